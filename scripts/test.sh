#!/usr/bin/env bash
# Runs every test: lints first (a warning fails the run), then the model
# natively, the page's components in headless Chromium, a person's path
# through the release build with Playwright, and the reality checks against
# real servers that the scripts start on loopback and stop.
#
# At the end (pass or fail) it prints how long each step took, so a slow
# machine shows where its time went.
#
# With no argument it runs everything (what `.ci/run` runs). One argument
# runs a named subset instead, for the edit-test loop:
#   --quick    rustfmt, clippy on the model, the model's tests with a
#              twentieth of the property schedules (same seeds, the first
#              ones), and the page's pure modules natively: under 2 minutes
#              with a warm cache
#   --model    lints, then the model's, the page's native and the lesson's
#              tests in full
#   --web      the page: release build, components, Playwright, snippets
#   --reality  the reality checks against real servers
set -euo pipefail
cd "$(dirname "$0")/.."

subset=${1:-all}
case "$subset" in
    all | --quick | --model | --web | --reality) ;;
    *) echo "test: unknown subset '$subset' (use --quick, --model, --web or --reality, or nothing for everything)" >&2; exit 2 ;;
esac
# wanted GROUP: whether this run includes the group (model, web, reality).
wanted() { [ "$subset" = all ] || [ "$subset" = "--$1" ]; }

# step LABEL DESCRIPTION: starts a step; the previous one's time is kept.
timings=() step_label="" step_started_s=0
end_step() {
    [ -n "$step_label" ] && timings+=("$(printf '%6d s  %s' $((SECONDS - step_started_s)) "$step_label")")
    step_label=""
}
step() {
    end_step
    step_label=$1 step_started_s=$SECONDS
    printf '\n==> test: %s\n' "$2"
}
report_times() {
    local status=$?
    end_step
    printf '\n==> test: time of each step%s\n' "$([ "$status" -eq 0 ] || echo " (failed in the last one)")"
    printf '%s\n' "${timings[@]}"
    printf '%6d s  in all\n' "$SECONDS"
}
trap report_times EXIT

if [ "$subset" = --quick ]; then
    # Only cargo's own tools: no installs, no browser, no servers.
    export PATH="$HOME/.cargo/bin:$PATH"
    step "lints" "lints: rustfmt, then clippy on the model and the command line with warnings as errors"
    cargo fmt --all --check
    cargo clippy -p fencing-engine -p fencing-sim -p fencing-course -p fencing-lab --all-targets -- -D warnings
    step "model" "the model's and the command line's tests with a twentieth of the property schedules"
    FENCING_LAB_QUICK=1 cargo test --release -p fencing-engine -p fencing-sim -p fencing-course -p fencing-lab
    step "page, native" "the page's pure modules natively (layout, routes, glyphs, the fleet's chart, the panes; no browser)"
    cargo test -p fencing-lab-web --lib
    exit 0
fi

step setup "setup: install what is missing (scripts/setup.sh)"
scripts/setup.sh
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH" TRUNK_SKIP_VERSION_CHECK=true CHROMEDRIVER=/usr/bin/chromedriver

step "lints" "lints: rustfmt, then clippy with warnings as errors (the model, the command line and the lesson natively; the page for wasm32)"
cargo fmt --all --check
cargo clippy -p fencing-engine -p fencing-sim -p fencing-course -p fencing-lab -p fencing-lab-site --all-targets -- -D warnings
# The page natively too: the site draws its first screens with it (src/shell/prerender.rs).
cargo clippy -p fencing-lab-web --lib -- -D warnings
cargo clippy --target wasm32-unknown-unknown -p fencing-lab-web --all-targets -- -D warnings

if wanted model; then
    step "model" "the model (native, release: unit, preset, cause, CLI and property tests; 100,000 schedules from fixed seeds)"
    cargo test --release -p fencing-engine -p fencing-sim -p fencing-course -p fencing-lab

    # The page's modules that import neither leptos nor web-sys (layout,
    # routes, glyphs, the fleet's chart, the panes) are tested here, in
    # seconds; the browser step below keeps what needs a DOM.
    step "page, native" "the page's pure modules natively (layout, routes, glyphs, the fleet's chart, the panes; no browser)"
    cargo test -p fencing-lab-web --lib

    step "lesson" "the lesson's static pages (their sentences about runs checked against the model)"
    cargo test -p fencing-lab-site
fi

if wanted web; then
    step "release build" "release build (trunk)"
    trunk build --release --offline

    step "wasm-bindgen tests" "components in headless Chromium (wasm-bindgen-test)"
    cargo test --target wasm32-unknown-unknown -p fencing-lab-web

    step "Playwright" "a person's path through the release build (Playwright)"
    node --test --test-reporter=spec tests/e2e/

    step "snippets" "the lesson's reference code compiles and runs in five languages"
    scripts/check-snippets.sh
fi

if wanted reality; then
    step "reality: redis" "the Redis model against a real redis-server (time scaled 1/100)"
    scripts/fidelity.sh

    step "reality: persistence" "a real Redis restarted under each persistence mode: the fencing counter after the restart is the model's"
    scripts/fidelity-persistence.sh

    step "reality: failover" "redis-failover against a real primary + replica: the lock key and the last INCR lost, token 33 issued twice"
    scripts/fidelity-failover.sh

    step "reality: sentinel" "redis-split-brain against a real primary, replica and Sentinel: both primaries grant the lock with token 34 until the old one is demoted"
    scripts/fidelity-sentinel.sh

    step "reality: etcd" "the consensus lock against a real etcd 3.4 (lease minimum, late expiry, revisions with gaps)"
    scripts/fidelity-etcd.sh

    step "reality: etcd cluster" "the three-member consensus lock against a real three-member etcd 3.4: the leader killed while A holds the lock"
    scripts/fidelity-etcd-cluster.sh

    step "reality: etcd partition" "the consensus lock against a real three-member etcd whose leader is cut off from both followers"
    scripts/fidelity-etcd-partition.sh

    step "reality: zookeeper" "the ZooKeeper lock against a real ZooKeeper 3.8: session timeouts, a SIGSTOPped client's session expired, sequence numbers as tokens"
    scripts/fidelity-zookeeper.sh

    step "reality: live" "fencing-lab live: the GC pause and the token inversion for real (SIGSTOP) against redis-server, beside the model's prediction"
    scripts/live-demo.sh
fi
