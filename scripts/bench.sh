#!/usr/bin/env bash
# Prints the release build's sizes (raw and gzip -9) and the median time from
# navigation to a mounted page in headless Chromium. Figures, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
export PATH="$HOME/.cargo/bin:$PATH" TRUNK_SKIP_VERSION_CHECK=true
trunk build --release --offline >/dev/null 2>&1

printf '%-8s %10s %10s\n' kind raw gzip
total_raw=0 total_gzip=0
for ext in wasm js css html; do
    raw=0 gz=0
    for file in dist/*."$ext"; do
        [ -e "$file" ] || continue
        raw=$((raw + $(stat -c %s "$file")))
        gz=$((gz + $(gzip -9 -c "$file" | wc -c)))
    done
    printf '%-8s %10d %10d\n' "$ext" "$raw" "$gz"
    total_raw=$((total_raw + raw)) total_gzip=$((total_gzip + gz))
done
printf '%-8s %10d %10d\n' total "$total_raw" "$total_gzip"
node bench/mount.mjs
node bench/playback.mjs
cargo run -q --release -p fencing-sim --example bench
