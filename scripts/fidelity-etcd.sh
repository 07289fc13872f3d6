#!/usr/bin/env bash
# Differential test against a real etcd 3.4: starts a private single-member
# etcd on free loopback ports (its data in a temporary directory), measures its
# lease minimum and late expiry, replays the consensus stories on it at the
# model's own speed (sim/tests/etcd_differential.rs; about 11 s), and stops the
# server on exit. Exits non-zero if etcd behaves otherwise than the model says.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/etcd.sh

# Build first, so the server does not sit idle through a compile
# (in release: the build the model's tests already made, so nothing is
# compiled twice).
cargo test --release -p fencing-sim --test etcd_differential --no-run

start_etcd fidelity-etcd 1
FENCING_LAB_ETCD_URL="$etcd_endpoints" \
    cargo test --release -p fencing-sim --test etcd_differential -- --ignored --nocapture
