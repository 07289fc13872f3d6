#!/usr/bin/env bash
# The consensus-partitioned-leader preset against a real three-member etcd
# 3.4 cluster on loopback: starts the members (data in a temporary
# directory), each advertising as its peer address a port that
# sim/tests/etcd_partition.rs serves with a TCP proxy to the member's own
# peer listener, and runs that test: A takes the lock through the leader;
# the test cuts the leader off from both followers (their proxied links
# closed and refused) while A's client still reaches it, checks that a put
# through it commits nothing, that it steps down and the other two elect a
# leader that keeps A's lease, queues B, releases A, checks that B's revision
# comes after A's, heals the partition and checks that the old leader
# rejoins as a follower. It prints the real timeline beside the model's and
# fails if they differ. Stops every member on exit (the proxies end with the
# test).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
started_s=$SECONDS

. scripts/lib/etcd.sh

# Build first, so the cluster does not sit idle through a compile
# (in release: the build the model's tests already made, so nothing is
# compiled twice).
cargo test --release -p fencing-sim --test etcd_partition --no-run

# Pre-vote, as the model's members run (etcd's default from 3.5; 3.4 needs
# the flag): without it the cut-off member campaigns alone, its term climbs,
# and its return at the heal forces a needless election.
etcd_flags=(--pre-vote)
# No leader until the test's proxies run: start_etcd waits only until every
# member listens, and the test waits (bounded) for the first election.
start_etcd fidelity-etcd-partition 3 proxied
status=0
FENCING_LAB_ETCD_ENDPOINTS="$etcd_endpoints" FENCING_LAB_ETCD_PIDS="$etcd_pids" \
    FENCING_LAB_ETCD_PEERS="$etcd_peer_listen" FENCING_LAB_ETCD_PEER_PROXIES="$etcd_peer_advertised" \
    cargo test --release -p fencing-sim --test etcd_partition -- --ignored --nocapture || status=$?
echo "==> fidelity-etcd-partition: $((SECONDS - started_s)) s$([ "$status" -eq 0 ] || echo " (failed)")"
exit "$status"
