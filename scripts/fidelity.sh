#!/usr/bin/env bash
# Differential test against a real Redis: starts a private redis-server on a
# free loopback port (no persistence), replays every Redis preset's lock
# commands on it with time scaled 1/100 (sim/tests/redis_differential.rs), and
# stops the server on exit. Exits non-zero if any reply differs from the model's.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/redis.sh

# Build first, so the server does not sit idle through a compile
# (in release: the build the model's tests already made, so nothing is
# compiled twice).
cargo test --release -p fencing-sim --test redis_differential --no-run

start_redis fidelity
port=$redis_port

FENCING_LAB_REDIS_URL="redis://127.0.0.1:$port/" \
    cargo test --release -p fencing-sim --test redis_differential -- --ignored --nocapture
