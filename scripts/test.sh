#!/usr/bin/env bash
# Runs every test: lints first (a warning fails the run), then the model
# natively, the page's components in headless Chromium, a person's path
# through the release build with Playwright, and the reality checks against
# real servers that the scripts start on loopback and stop.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH" TRUNK_SKIP_VERSION_CHECK=true CHROMEDRIVER=/usr/bin/chromedriver

step() { printf '\n==> test: %s\n' "$*"; }

step "lints: rustfmt, then clippy with warnings as errors (sim natively with and without its CLI; the page for wasm32)"
cargo fmt --all --check
cargo clippy -p fencing-sim --all-targets -- -D warnings
cargo clippy -p fencing-sim --all-targets --no-default-features -- -D warnings
cargo clippy --target wasm32-unknown-unknown -p fencing-lab-web --all-targets -- -D warnings

step "the model (native, release: unit, preset, cause, CLI and property tests; 100,000 schedules from fixed seeds)"
cargo test --release -p fencing-sim

step "the lesson's static pages (their sentences about runs checked against the model)"
cargo test -p fencing-lab-site

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

step "redis-failover against a real primary + replica: the lock key and the last INCR lost, token 33 issued twice"
scripts/fidelity-failover.sh

step "the consensus lock against a real etcd 3.4 (lease minimum, late expiry, revisions with gaps)"
scripts/fidelity-etcd.sh

step "the three-member consensus lock against a real three-member etcd 3.4: the leader killed while A holds the lock"
scripts/fidelity-etcd-cluster.sh

step "fencing-lab live: the GC pause and the token inversion for real (SIGSTOP) against redis-server, beside the model's prediction"
scripts/live-demo.sh
