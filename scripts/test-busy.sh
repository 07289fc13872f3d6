#!/usr/bin/env bash
# The test command on a busy machine, as a developer's laptop or a shared CI
# runner usually is: starts `stress-ng --cpu N` beside it (N: every core, by
# default), runs scripts/test.sh RUNS times in a row (default 2), each logged
# to target/busy/run-K.log, then prints each run's step times and every real
# timing figure the reality checks printed, and stops the load. Exits
# non-zero if any run failed.
#
# Not part of the test command (it takes RUNS times as long): it is how a
# change to a reality check, or to anything that waits on a real clock, is
# checked before it lands.
#
# scripts/test-busy.sh [--runs N] [--cpu N]
set -euo pipefail
cd "$(dirname "$0")/.."

runs=2
cpus=$(nproc)
while [ $# -gt 0 ]; do
    case $1 in
        --runs) runs=$2; shift 2 ;;
        --cpu) cpus=$2; shift 2 ;;
        *) echo "usage: scripts/test-busy.sh [--runs N] [--cpu N]" >&2; exit 2 ;;
    esac
done
case "$runs$cpus" in *[!0-9]*) echo "--runs and --cpu take whole numbers" >&2; exit 2 ;; esac

scripts/setup.sh
mkdir -p target/busy

# The load stops by itself after 4 hours even if this script is killed
# without its exit trap running; the trap stops it at once.
stress-ng --cpu "$cpus" --timeout 4h --quiet &
load_pid=$!
trap 'kill "$load_pid" 2>/dev/null || true; wait "$load_pid" 2>/dev/null || true' EXIT
echo "==> test-busy: stress-ng --cpu $cpus running beside the test command (pid $load_pid)"

# What the reality checks print about real time: lateness, tolerated
# replies, election times, how long A was really frozen.
figures='late expiry, real|real expiries|note: .*late|ran out: the model|behind schedule|TOLERATED|near an expiry|new leader after|elected leader|was really frozen|gaps between writes|^==> (fidelity|live-demo)[^:]*: [0-9]+ s'

failed=0
for run in $(seq "$runs"); do
    log=target/busy/run-$run.log
    echo "==> test-busy: run $run of $runs (log: $log)"
    started_s=$SECONDS
    status=0
    scripts/test.sh >"$log" 2>&1 || status=$?
    echo "==> test-busy: run $run exited $status after $((SECONDS - started_s)) s"
    [ "$status" -eq 0 ] || failed=$((failed + 1))
    sed -n '/^==> test: time of each step/,$p' "$log"
    echo "==> test-busy: run $run, real timing figures:"
    grep -E "$figures" "$log" | sed 's/^/    /' || echo "    (none printed)"
    if [ "$status" -ne 0 ]; then
        echo "==> test-busy: run $run failed; its last lines:"
        tail -n 40 "$log" | sed 's/^/    /'
    fi
done
echo "==> test-busy: $((runs - failed)) of $runs runs passed with $cpus busy core(s)"
[ "$failed" -eq 0 ]
