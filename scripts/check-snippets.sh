#!/usr/bin/env bash
# Compiles and runs the lesson's reference code (lesson/code/) in its five
# languages, and checks that each replays the story to the same end: B's write
# with token 34 accepted, then A's zombie write with token 33 rejected.
# Builds go to a temporary directory; Go's caches stay in the clone's .tools/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
code=lesson/code

# Each runs in an `if`, where bash ignores set -e: hence the explicit &&.
check_rust() {
    rustc --edition 2021 -O "$code/fencing.rs" -o "$tmp/fencing_rs" && "$tmp/fencing_rs"
}
check_python() {
    # The prefix keeps py_compile's __pycache__ out of the clone.
    PYTHONPYCACHEPREFIX="$tmp/pycache" python3 -m py_compile "$code/fencing.py" \
        && PYTHONPYCACHEPREFIX="$tmp/pycache" python3 "$code/fencing.py"
}
check_go() {
    # A persistent cache makes the second run quick; XDG_CONFIG_HOME catches
    # what newer Go versions write to the user's configuration directory.
    local tools=$PWD/.tools/go
    mkdir -p "$tools" \
        && env GOCACHE="$tools/cache" GOPATH="$tools/path" XDG_CONFIG_HOME="$tools/config" GOTOOLCHAIN=local GOFLAGS= \
            sh -c 'go vet "$1" && go run "$1"' sh "$code/fencing.go"
}
check_typescript() {
    [ -x node_modules/.bin/tsc ] || { echo "no node_modules/.bin/tsc: run scripts/setup.sh"; return 1; }
    node_modules/.bin/tsc --strict --target es2020 --module commonjs --outDir "$tmp/ts" "$code/fencing.ts" \
        && node "$tmp/ts/fencing.js"
}
check_java() {
    javac -d "$tmp/java" "$code/Fencing.java" && java -cp "$tmp/java" Fencing
}

passed=0 failed=0
for language in rust python go typescript java; do
    started=$(date +%s%N)
    if output=$("check_$language" 2>&1) \
        && grep -q "B writes with token 34: accepted" <<<"$output" \
        && grep -q "A writes with token 33: rejected" <<<"$output"; then
        passed=$((passed + 1)) verdict=passed
    else
        failed=$((failed + 1)) verdict=FAILED
    fi
    elapsed_ms=$((($(date +%s%N) - started) / 1000000))
    printf '%-10s %s (%d.%01d s): %s\n' "$language" "$verdict" $((elapsed_ms / 1000)) $((elapsed_ms % 1000 / 100)) \
        "$(grep -m1 -o 'A writes with token 33: .*' <<<"$output" || echo 'no rejection in the output')"
    [ "$verdict" = passed ] || sed 's/^/    | /' <<<"$output" >&2
done
echo "snippets: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
