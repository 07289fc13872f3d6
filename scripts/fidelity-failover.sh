#!/usr/bin/env bash
# The redis-failover preset against a real primary and replica: starts two
# private redis-servers on free loopback ports (no persistence), the second
# with `--replicaof` the first, waits until the replica is in sync, and runs
# sim/tests/redis_failover.rs, which cuts the replica off, lets A take the
# lock and token 33 on the primary alone, kills the primary (SIGKILL),
# promotes the replica (REPLICAOF NO ONE) and lets B take the lock and token
# 33 again; it prints the real timeline beside the model's and fails if they
# differ. Stops both servers on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/redis.sh
started_s=$SECONDS

# Build first, so the servers do not sit idle through a compile
# (in release: the build the model's tests already made, so nothing is
# compiled twice).
cargo test --release -p fencing-sim --test redis_failover --no-run

start_redis failover-primary
primary_port=$redis_port primary_pid=$redis_pid
# The test kills it on purpose: no "Killed" notice from this shell (the exit
# trap still stops it by pid if the test never got that far).
disown "$primary_pid"
start_redis failover-replica --replicaof 127.0.0.1 "$primary_port"
replica_port=$redis_port

# Bounded wait for the first full sync.
for _ in $(seq 100); do
    redis-cli -p "$replica_port" info replication | grep -q '^master_link_status:up' && break
    sleep 0.1
done
if ! redis-cli -p "$replica_port" info replication | grep -q '^master_link_status:up'; then
    echo "==> fidelity-failover: the replica never got in sync with the primary" >&2
    tail -n 20 "$workdir/$replica_port/redis.log" >&2 || true
    exit 1
fi
echo "==> fidelity-failover: replica 127.0.0.1:$replica_port in sync with primary 127.0.0.1:$primary_port"

FENCING_LAB_REDIS_PRIMARY_URL="redis://127.0.0.1:$primary_port/" \
FENCING_LAB_REDIS_PRIMARY_PID="$primary_pid" \
FENCING_LAB_REDIS_REPLICA_URL="redis://127.0.0.1:$replica_port/" \
    cargo test --release -p fencing-sim --test redis_failover -- --ignored --nocapture
echo "==> fidelity-failover: $((SECONDS - started_s)) s"
