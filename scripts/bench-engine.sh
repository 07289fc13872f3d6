#!/usr/bin/env bash
# The model's speed, natively and in WebAssembly with the page's release
# profile: full-trace, summary and counters-only runs of the classic preset,
# and the explorer's time per preset. Figures, not a test (a shared machine
# makes timings vary; compare figures from one run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
export PATH="$HOME/.cargo/bin:$PATH"

cargo run -q --release -p fencing-sim --example bench
cargo build -q --release --target wasm32-unknown-unknown --manifest-path bench/engine/Cargo.toml
wasm-bindgen --target web --out-dir bench/engine/pkg bench/engine/target/wasm32-unknown-unknown/release/fencing_lab_engine_bench.wasm
node bench/engine.mjs
