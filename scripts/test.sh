#!/usr/bin/env bash
# Runs every test: the model natively, the page's components in headless
# Chromium, and a person's path through the release build with Playwright.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH" TRUNK_SKIP_VERSION_CHECK=true CHROMEDRIVER=/usr/bin/chromedriver

step() { printf '\n==> test: %s\n' "$*"; }

step "the model (native cargo test)"
cargo test -p fencing-sim

step "release build (trunk)"
trunk build --release --offline

step "components in headless Chromium (wasm-bindgen-test)"
cargo test --target wasm32-unknown-unknown -p fencing-lab-web

step "a person's path through the release build (Playwright)"
node --test --test-reporter=spec tests/e2e/

step "the lesson's reference code compiles and runs in five languages"
scripts/check-snippets.sh

step "the Redis model against a real redis-server (time scaled 1/100)"
scripts/fidelity.sh

step "the consensus lock against a real etcd 3.4 (lease minimum, late expiry, revisions with gaps)"
scripts/fidelity-etcd.sh

step "fencing-lab live: the GC pause for real (SIGSTOP) against redis-server, beside the model's prediction"
scripts/live-demo.sh
