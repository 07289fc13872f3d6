#!/usr/bin/env bash
# Differential test against a real Redis: starts a private redis-server on a
# free loopback port (no persistence), replays every Redis preset's lock
# commands on it with time scaled 1/100 (sim/tests/redis_differential.rs), and
# stops the server on exit. Exits non-zero if any reply differs from the model's.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

# scripts/setup.sh installs redis-server with the rest of the toolchain.
command -v redis-server >/dev/null 2>&1 || { echo "fidelity: redis-server is missing; run scripts/setup.sh" >&2; exit 1; }

workdir="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        # Bounded wait for it to go; then insist.
        for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Build first, so the server does not sit idle through a compile.
cargo test -p fencing-sim --test redis_differential --no-run

port=""
for attempt in $(seq 20); do
    candidate=$((6390 + RANDOM % 2000))
    # Taken already (by another test run or service)? Try another.
    if timeout 2 redis-cli -p "$candidate" ping >/dev/null 2>&1; then continue; fi
    redis-server --port "$candidate" --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
        --dir "$workdir" --logfile "$workdir/redis.log" &
    server_pid=$!
    for _ in $(seq 50); do
        if [ "$(timeout 2 redis-cli -p "$candidate" ping 2>/dev/null)" = "PONG" ]; then port=$candidate; break; fi
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -n "$port" ]; then break; fi
    echo "==> fidelity: port $candidate did not work (attempt $attempt), trying another" >&2
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
done
if [ -z "$port" ]; then
    echo "==> fidelity: could not start redis-server" >&2
    cat "$workdir/redis.log" >&2 2>/dev/null || true
    exit 1
fi

echo "==> fidelity: $(redis-server --version | cut -d' ' -f1-3) on 127.0.0.1:$port (pid $server_pid)"
FENCING_LAB_REDIS_URL="redis://127.0.0.1:$port/" \
    cargo test -p fencing-sim --test redis_differential -- --nocapture
