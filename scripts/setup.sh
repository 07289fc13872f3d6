#!/usr/bin/env bash
# Installs what Fencing Lab builds and tests with, from the registries only
# (crates.io, Debian, npm), and skips whatever is already there at the right
# version: on a ready machine it finishes in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
# Cargo's bin directory first (the pinned Trunk and wasm-bindgen).
export PATH="$HOME/.cargo/bin:$PATH"

TRUNK_VERSION=0.21.14
# wasm-opt (binaryen 116; Debian's 108 breaks the page) comes from npm's
# `binaryen` package (package.json), which ships it compiled to wasm and run
# by Node: seconds to install, where building binaryen's C++ from crates.io
# took about 7 minutes. The scripts put node_modules/.bin on PATH for Trunk.
# wasm-bindgen-cli must match the library exactly: read it from Cargo.lock.
WASM_BINDGEN_VERSION=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$WASM_BINDGEN_VERSION" ] || { echo "setup: no wasm-bindgen in Cargo.lock" >&2; exit 1; }
if ! grep -q "wasm_bindgen = \"$WASM_BINDGEN_VERSION\"" Trunk.toml; then
    echo "setup: Trunk.toml's wasm_bindgen must be $WASM_BINDGEN_VERSION, as in Cargo.lock" >&2
    exit 1
fi

step() { printf '==> setup: %s\n' "$*"; }
# timed SECONDS_BEFORE WHAT: prints how long an install took.
timed() { printf '==> setup: %s took %d s\n' "$2" $((SECONDS - $1)); }
# The tools are build tools, not shipped code: compiled without the
# optimiser's slowest passes (Trunk at opt-level 0: its work is waiting on
# cargo and files; wasm-bindgen at 1, which processes a wasm in a second),
# without LTO and with many codegen units, into one target folder inside the
# clone so crates they share are compiled once. Trunk alone went from about
# 7.5 minutes to about 2.5 on this 2-core machine.
quick_install() {
    local opt_level=$1
    shift
    CARGO_PROFILE_RELEASE_OPT_LEVEL=$opt_level CARGO_PROFILE_RELEASE_LTO=false \
        CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 CARGO_PROFILE_RELEASE_DEBUG=false \
        CARGO_PROFILE_RELEASE_STRIP=true CARGO_PROFILE_RELEASE_INCREMENTAL=false \
        CARGO_TARGET_DIR="$PWD/target/tools" cargo install "$@"
}
has_version() { "$1" --version 2>/dev/null | grep -qF "$2"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
# For the lesson's reference code in Go and Java (scripts/check-snippets.sh).
command -v go >/dev/null || missing+=(golang-go)
command -v javac >/dev/null || missing+=(default-jdk-headless)
# The Redis model is replayed against a real server (scripts/fidelity.sh).
command -v redis-server >/dev/null || missing+=(redis-server)
# The split brain against a real Sentinel, cut apart by firewall rules (scripts/fidelity-sentinel.sh).
command -v redis-sentinel >/dev/null || missing+=(redis-sentinel)
command -v nft >/dev/null || missing+=(nftables)
# The consensus model is replayed against a real etcd (scripts/fidelity-etcd.sh).
command -v etcd >/dev/null || missing+=(etcd-server)
# The ZooKeeper model is replayed against a real server (scripts/fidelity-zookeeper.sh).
[ -r /usr/share/java/zookeeper.jar ] || missing+=(zookeeper)
# The SCORM package's tests (tests/e2e/lms.test.mjs): its manifest checked
# against the SCORM 1.2 schemas, the zip read back by another tool, and the
# Open edX problem's Python check run as the platform runs it.
command -v xmllint >/dev/null || missing+=(libxml2-utils)
command -v unzip >/dev/null || missing+=(unzip)
command -v python3 >/dev/null || missing+=(python3)
# Load for the busy-machine run (scripts/test-busy.sh).
command -v stress-ng >/dev/null || missing+=(stress-ng)
if [ ${#missing[@]} -gt 0 ]; then
    step "installing ${missing[*]} from Debian"
    started_s=$SECONDS
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    timed "$started_s" "Debian's packages"
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    step "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
fi

if ! has_version trunk "trunk $TRUNK_VERSION"; then
    step "installing trunk $TRUNK_VERSION (about 2.5 minutes)"
    started_s=$SECONDS
    quick_install 0 --locked "trunk@$TRUNK_VERSION"
    timed "$started_s" trunk
fi
if ! has_version wasm-bindgen "wasm-bindgen $WASM_BINDGEN_VERSION" \
    || ! has_version wasm-bindgen-test-runner "$WASM_BINDGEN_VERSION"; then
    step "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2 minutes)"
    started_s=$SECONDS
    # Not --locked: the CLI's own lock file names a crate the registry lacks.
    quick_install 1 --force "wasm-bindgen-cli@$WASM_BINDGEN_VERSION"
    timed "$started_s" wasm-bindgen-cli
fi

if ! npm ls --prefix . >/dev/null 2>&1; then
    step "installing the npm packages in package-lock.json"
    started_s=$SECONDS
    npm ci --no-audit --no-fund --loglevel=error
    timed "$started_s" "npm packages"
fi
# Trunk finds wasm-opt on PATH; this is the one it must find.
if ! has_version node_modules/.bin/wasm-opt "version 116"; then
    echo "setup: node_modules/.bin/wasm-opt is not binaryen 116" >&2
    exit 1
fi
step "ready"
