#!/usr/bin/env bash
# Both live stories for real: starts a private redis-server on a free loopback
# port (no persistence), runs `fencing-lab live` on it for each story (two
# worker processes, A frozen with SIGSTOP at an exact step and thawed with
# SIGCONT), once for people and once as JSON, and checks what the stories
# promise and that the model agrees:
# - gc-pause (A frozen 2 s after drawing token 33, lease 1 s): the plain store
#   ends with A's stale token-33 data over B's 34, the fenced store keeps B's
#   34 and rejects A's write;
# - token-inversion (A frozen 1.2 s between SET NX and INCR): B draws 33, A
#   draws 34; the fenced store accepts A's stale write over B's data and
#   refuses B, the rightful holder.
# The people's run of each story is also held to its committed recordings
# (recordings/<story>*.redis.jsonl, one per store: the holders, tokens, writes
# and decisions, the last writer and the verdict must agree; the timing
# differences are printed); with FENCING_LAB_RECORD=DIR (scripts/record.sh)
# it writes them into DIR instead.
# Stops the server on exit; exits non-zero if anything differs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/redis.sh
started_s=$SECONDS

# Build first, so the server does not sit idle through a compile
# (in release: the build the model's tests already made, so nothing is
# compiled twice).
# Through the CLI's tests: they build the binary with the test build's
# features, so it is the very file `cargo test --release` left (a plain
# `cargo build` resolves features without the dev-dependencies and would
# compile the model and its dependencies again).
cargo test -q --release -p fencing-lab --test cli --no-run
lab=target/release/fencing-lab

start_redis live-demo
url="redis://127.0.0.1:$redis_port/"

failures=0
fail() { echo "==> live-demo: FAILED: $*" >&2; failures=$((failures + 1)); }

# run_story STORY LINE...: the story for people (each LINE must be printed),
# then as JSON (checked field by field by the JS below).
run_story() {
    local story=$1 status=0 line recording
    shift
    if [ -n "${FENCING_LAB_RECORD:-}" ]; then recording=(--record "$FENCING_LAB_RECORD"); else recording=(--compare recordings); fi
    echo "==> live-demo: --story $story ${recording[*]}"
    "$lab" live --story "$story" --redis "$url" "${recording[@]}" | tee "$workdir/$story.txt" || status=$?
    [ "$status" -eq 0 ] || fail "$story: fencing-lab live exited $status (3: the real run disagrees with the model or its recording)"
    for line in "$@" "^agree: "; do
        grep -q -- "$line" "$workdir/$story.txt" || fail "$story: no line matching: $line"
    done
    echo "==> live-demo: --story $story, as JSON"
    status=0
    "$lab" live --story "$story" --redis "$url" --json >"$workdir/$story.json" || status=$?
    [ "$status" -eq 0 ] || fail "$story: fencing-lab live --json exited $status"
    node scripts/lib/live-checks.mjs "$story" "$workdir/$story.json" || fail "$story: the JSON report is not what the story promises"
}

run_story gc-pause \
    "plain store accepted A's write A:33 over B:34" \
    "fenced store rejected A's write: token 33 < 34 already accepted"
run_story token-inversion \
    "B's INCR fence returned 33" \
    "A's INCR fence returned 34" \
    "fenced store accepted A's write A:34 over B:33" \
    "fenced store rejected B's write: token 33 < 34 already accepted"

echo "==> live-demo: $((SECONDS - started_s)) s"
if [ "$failures" -ne 0 ]; then
    echo "==> live-demo: $failures check(s) failed" >&2
    exit 1
fi
echo "==> live-demo: OK: gc-pause (the plain store kept A's stale token 33; the fenced store kept B's 34) and"
echo "    token-inversion (B drew 33, A 34; the fenced store took A's stale write and refused B), as the model says"
