#!/usr/bin/env bash
# Builds the release page and serves it on http://127.0.0.1:8080.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# node_modules/.bin: the wasm-opt Trunk runs (binaryen 116 from npm).
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH" TRUNK_SKIP_VERSION_CHECK=true
exec trunk serve --release --offline --address 127.0.0.1 --port "${PORT:-8080}"
