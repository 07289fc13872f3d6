#!/usr/bin/env bash
# The model's four Redis persistence modes against a real redis-server
# restarted on its own data directory: runs sim/tests/redis_persistence.rs,
# which, for each mode (none, rdb, aof_everysec, fsync_always) and for a
# crash 300 ms and 2 s after A's INCR, starts a private server on loopback
# with that mode's configuration in a folder of this script's temporary
# directory, sets the counter at 32, lets A take the lock and draw 33, kills
# the server (SIGKILL: a crash, no shutdown save), restarts it on the same
# folder and lets B draw its token. It prints each real timeline beside the
# model's and a table, and fails if the counter or the lock key after the
# restart is not what the model predicts for the same scenario.
#
# The test stops each server it starts (by its own pid); on exit, also on
# failure, this script stops by pid any server the test left behind (a test
# killed midway) and removes the temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/redis.sh
started_s=$SECONDS

# The test writes each server's pid to $workdir/pids. Only those still
# running in a folder of this run's directory (a server works in its --dir;
# its command line is rewritten to its address) are stopped: a pid another
# process got since is left alone.
stop_test_servers() {
    local pid
    if [ -f "$workdir/pids" ]; then
        while read -r pid; do
            case "$(readlink "/proc/$pid/cwd" 2>/dev/null)" in
                "$workdir"/*) redis_pids+=("$pid") ;;
            esac
        done <"$workdir/pids"
    fi
    stop_redis
    # Its own duration, also when it fails.
    echo "==> fidelity-persistence: $((SECONDS - started_s)) s"
}
trap stop_test_servers EXIT

# Build first (in release: the build the model's tests already made, so
# nothing is compiled twice).
cargo test --release -p fencing-sim --test redis_persistence --no-run

FENCING_LAB_REDIS_SERVER="$(command -v redis-server)" \
FENCING_LAB_REDIS_HOST="$redis_host" \
FENCING_LAB_PERSISTENCE_DIR="$workdir" \
    cargo test --release -p fencing-sim --test redis_persistence -- --ignored --nocapture
