#!/usr/bin/env bash
# The consensus-leader-crash preset against a real three-member etcd 3.4
# cluster on loopback: starts the members (data in a temporary directory) and
# runs sim/tests/etcd_cluster.rs, which lets A take the lock, kills the
# leader (SIGKILL) while A holds it, keeps A's lease alive through a
# surviving member across the election, checks that A still holds the lock,
# queues B, releases A, and checks that B's revision comes after A's. It
# prints the real timeline beside the model's and fails if they differ.
# Stops every member on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
started_s=$SECONDS

. scripts/lib/etcd.sh

# Build first, so the cluster does not sit idle through a compile
# (in release: the build the model's tests already made, so nothing is
# compiled twice).
cargo test --release -p fencing-sim --test etcd_cluster --no-run

start_etcd fidelity-etcd-cluster 3
FENCING_LAB_ETCD_ENDPOINTS="$etcd_endpoints" FENCING_LAB_ETCD_PIDS="$etcd_pids" \
    cargo test --release -p fencing-sim --test etcd_cluster -- --ignored --nocapture
echo "==> fidelity-etcd-cluster: $((SECONDS - started_s)) s"
