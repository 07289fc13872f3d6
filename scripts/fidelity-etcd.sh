#!/usr/bin/env bash
# Differential test against a real etcd 3.4: starts a private single-member
# etcd on free loopback ports (its data in a temporary directory), measures its
# lease minimum and late expiry, replays the consensus stories on it at the
# model's own speed (sim/tests/etcd_differential.rs; about 11 s), and stops the
# server on exit. Exits non-zero if etcd behaves otherwise than the model says.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

# scripts/setup.sh installs etcd-server with the rest of the toolchain.
command -v etcd >/dev/null 2>&1 || { echo "fidelity-etcd: etcd is missing; run scripts/setup.sh" >&2; exit 1; }

workdir="$(mktemp -d)"
server_pid=""
stop_server() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        # Bounded wait for it to go; then insist.
        for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$server_pid" 2>/dev/null || true
    fi
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}
cleanup() {
    stop_server
    rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Whether something already listens on a loopback port.
taken() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# etcd's /health, by hand (no curl, no etcdctl needed).
healthy() {
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1 && printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 && cat <&3" 2>/dev/null \
        | grep -q '"health":"true"'
}

# Build first, so the server does not sit idle through a compile.
cargo test -p fencing-sim --test etcd_differential --no-run

port=""
for attempt in $(seq 20); do
    candidate=$((23790 + 2 * (RANDOM % 1000)))
    peer=$((candidate + 1))
    # Taken already (by another test run or service)? Try another pair.
    if taken "$candidate" || taken "$peer"; then continue; fi
    rm -rf "$workdir/data"
    etcd --name default --data-dir "$workdir/data" \
        --listen-client-urls "http://127.0.0.1:$candidate" --advertise-client-urls "http://127.0.0.1:$candidate" \
        --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
        --initial-cluster "default=http://127.0.0.1:$peer" >"$workdir/etcd.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do
        if healthy "$candidate"; then port=$candidate; break; fi
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -n "$port" ]; then break; fi
    echo "==> fidelity-etcd: ports $candidate/$peer did not work (attempt $attempt), trying another pair" >&2
    stop_server
done
if [ -z "$port" ]; then
    echo "==> fidelity-etcd: could not start etcd" >&2
    tail -n 30 "$workdir/etcd.log" >&2 2>/dev/null || true
    exit 1
fi

echo "==> fidelity-etcd: $(etcd --version | head -n 1) on 127.0.0.1:$port (peer port $peer, pid $server_pid)"
FENCING_LAB_ETCD_URL="http://127.0.0.1:$port" \
    cargo test -p fencing-sim --test etcd_differential -- --ignored --nocapture
