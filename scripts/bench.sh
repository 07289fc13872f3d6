#!/usr/bin/env bash
# Prints Fencing Lab's figures (not a test): the release build's sizes (gzip
# -9), the first load and ready time of each page beside a bare Leptos
# counter built with the same profile (loopback, and a phone on a slow
# network through the DevTools protocol), playback and scrubbing, "Can
# this go wrong?" and the fleet view in the page, and the model's speed. `--peer DIR` adds
# another static site (e.g. a local copy of RaftScope) to the load table;
# nothing is fetched from the network.
#
# scripts/bench.sh [--peer DIR] [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
# node_modules/.bin: the wasm-opt Trunk runs (binaryen 116 from npm).
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH" TRUNK_SKIP_VERSION_CHECK=true
trunk build --release --offline >/dev/null 2>&1
# The counter shares the lab's compiled dependencies (same versions, same profile).
(cd bench/counter && CARGO_TARGET_DIR="$PWD/../../target/bench-counter" trunk build --release --offline >/dev/null 2>&1)
(cd bench/floor && CARGO_TARGET_DIR="$PWD/../../target/bench-counter" trunk build --release --offline >/dev/null 2>&1)

gz() { gzip -9 -c "$1" | wc -c; }
echo "release build, gzip -9 (bytes)"
printf '%-34s %10s %10s\n' file raw gzip
total_raw=0 total_gzip=0
while IFS= read -r file; do
    raw=$(stat -c %s "$file") gzip=$(gz "$file")
    printf '%-34s %10d %10d\n' "${file#dist/}" "$raw" "$gzip"
    total_raw=$((total_raw + raw)) total_gzip=$((total_gzip + gzip))
done < <(find dist -type f ! -path 'dist/lesson/code/*' ! -path 'dist/first/*' | sort)
# The first screens (one per drawn link): one line for them all.
first_raw=0 first_gzip=0 first_count=0
while IFS= read -r file; do
    first_raw=$((first_raw + $(stat -c %s "$file"))) first_gzip=$((first_gzip + $(gz "$file"))) first_count=$((first_count + 1))
done < <(find dist/first -type f -name '*.html')
printf '%-34s %10d %10d\n' "first/ ($first_count first screens)" "$first_raw" "$first_gzip"
total_raw=$((total_raw + first_raw)) total_gzip=$((total_gzip + first_gzip))
printf '%-34s %10d %10d\n' "whole site" "$total_raw" "$total_gzip"
first_race=$(( $(gz dist/index.html) + $(gz dist/boot.js) + $(gz dist/theme.js) + $(gz dist/main.css) + $(gz dist/fencing-lab-race.js) + $(gz dist/fencing-lab-race_bg.wasm) ))
every_view=$(( first_race + $(gz dist/fencing-lab-quiz.js) + $(gz dist/fencing-lab-quiz_bg.wasm) + $(gz dist/fencing-lab-compare.js) + $(gz dist/fencing-lab-compare_bg.wasm) + $(gz dist/fencing-lab-web.js) + $(gz dist/fencing-lab-web_bg.wasm) + $(gz dist/fencing-lab-teach.js) + $(gz dist/fencing-lab-teach_bg.wasm) + $(gz dist/print.css) + $(gz dist/lesson.css) + $(gz dist/lesson.js) + $(gz dist/fencing-lab-embed.js) + $(gz dist/lesson/index.html) ))
echo "first load of the race (html, boot, theme, css, race js + wasm): $first_race bytes"
echo "every view once (that, the quiz's, side by side's, the full and the instructors' entry points, the print sheet, the lesson's first page): $every_view bytes"
# The floor under the race's first load (bench/floor): the smallest Leptos
# page that runs the model as the race's first screen needs it, with the
# race's profile and wasm-opt level. With the race's stylesheet and loaders
# added, a race drawn with Leptos downloads at least this before it is
# interactive.
floor_app=0
while IFS= read -r file; do floor_app=$((floor_app + $(gz "$file"))); done < <(find bench/floor/dist -type f)
echo "floor: a Leptos page that runs the model and draws nothing (html, js, wasm): $floor_app bytes"
echo "floor of the race's first load (that, and the race's css, boot.js, theme.js): $(( floor_app + $(gz dist/main.css) + $(gz dist/boot.js) + $(gz dist/theme.js) )) bytes"
# The race's page with no race in it (bench/shell.rs), built as Trunk builds
# the race (same profile, wasm-bindgen, wasm-opt -Os): the first load before
# any of the race's own views, and what those views add.
shell_dir=target/bench-shell
cargo build --quiet --offline --profile release-small --target wasm32-unknown-unknown --bin fencing-lab-shell
wasm-bindgen --target web --out-dir "$shell_dir" target/wasm32-unknown-unknown/release-small/fencing-lab-shell.wasm
wasm-opt -Os "$shell_dir/fencing-lab-shell_bg.wasm" -o "$shell_dir/fencing-lab-shell.opt.wasm"
shell_first=$(( $(gz dist/index.html) + $(gz dist/boot.js) + $(gz dist/theme.js) + $(gz dist/main.css) + $(gz "$shell_dir/fencing-lab-shell.js") + $(gz "$shell_dir/fencing-lab-shell.opt.wasm") ))
echo "the race's page with no race in it (bench/shell.rs: html, boot, theme, css, js + wasm): $shell_first bytes; the race's own views add $(( first_race - shell_first ))"
echo
node bench/load.mjs "$@"
echo
node bench/playback.mjs
echo
node bench/explore.mjs
echo
node bench/fleet.mjs
cargo run -q --release -p fencing-sim --example bench
