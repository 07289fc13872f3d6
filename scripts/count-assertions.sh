#!/usr/bin/env bash
# Counts the runtime assertions in the engine's non-test code, per file
# (issue 44, item 4): `invariant!` (the engine's own, engine/src/world/invariant.rs),
# `assert!`/`assert_eq!`/`assert_ne!` and their `debug_` forms. A file's
# unit tests (everything from its first `#[cfg(test)]`, and `tests.rs`
# files) are left out, and so are compile-time `const _: () = assert!(..)`.
#
# The engine is its crate (engine/src): the world, workers, lock nodes,
# services, scenario, store, queue, randomness, pauses and the run record
# (events, history, observer, ledger, incidents).
#
#   scripts/count-assertions.sh          per file, then the total
#   scripts/count-assertions.sh --total  the total only: "<assertions> <lines>"
set -euo pipefail
cd "$(dirname "$0")/../engine/src"

mapfile -t engine < <(find . -name '*.rs' -printf '%P\n' | sort)

total=0
lines=0
for file in "${engine[@]}"; do
    # Tests, and the definition of `invariant!` itself, are not assertions.
    [[ $file == */tests.rs || $file == world/invariant.rs ]] && continue
    # The file up to its unit tests: a `#[cfg(test)]` followed by a
    # `mod` (a lone test helper before them is code, though not run).
    code=$(awk '
        pending { if ($0 ~ /^[[:space:]]*mod [a-z_]+/) exit; print held; pending = 0 }
        /^[[:space:]]*#\[cfg\(test\)\]/ { held = $0; pending = 1; next }
        { print }' "$file")
    count=$(grep -v 'const _: () = assert' <<<"$code" \
        | grep -oE '\b(invariant|(debug_)?assert(_eq|_ne)?)!\(' | wc -l || true)
    length=$(wc -l <<<"$code")
    total=$((total + count))
    lines=$((lines + length))
    if [[ ${1:-} != --total ]]; then
        printf '%4d  %5d  %s\n' "$count" "$length" "engine/src/$file"
    fi
done
if [[ ${1:-} == --total ]]; then
    echo "$total $lines"
else
    printf '%4d  %5d  %s\n' "$total" "$lines" "total (assertions, non-test lines)"
fi
