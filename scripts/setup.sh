#!/usr/bin/env bash
# Installs what Fencing Lab builds and tests with, from the registries only
# (crates.io, Debian, npm), and skips whatever is already there at the right
# version: on a ready machine it finishes in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
# Cargo's bin directory first: Debian's older wasm-opt must never win.
export PATH="$HOME/.cargo/bin:$PATH"

TRUNK_VERSION=0.21.14
WASM_OPT_CRATE_VERSION=0.116.1   # binaryen 116; Debian's 108 breaks the page
# wasm-bindgen-cli must match the library exactly: read it from Cargo.lock.
WASM_BINDGEN_VERSION=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$WASM_BINDGEN_VERSION" ] || { echo "setup: no wasm-bindgen in Cargo.lock" >&2; exit 1; }
if ! grep -q "wasm_bindgen = \"$WASM_BINDGEN_VERSION\"" Trunk.toml; then
    echo "setup: Trunk.toml's wasm_bindgen must be $WASM_BINDGEN_VERSION, as in Cargo.lock" >&2
    exit 1
fi

step() { printf '==> setup: %s\n' "$*"; }
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
# The consensus model is replayed against a real etcd (scripts/fidelity-etcd.sh).
command -v etcd >/dev/null || missing+=(etcd-server)
if [ ${#missing[@]} -gt 0 ]; then
    step "installing ${missing[*]} from Debian"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    step "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
fi

if ! has_version trunk "trunk $TRUNK_VERSION"; then
    step "installing trunk $TRUNK_VERSION (about 8 minutes)"
    cargo install --locked "trunk@$TRUNK_VERSION"
fi
if ! has_version wasm-bindgen "wasm-bindgen $WASM_BINDGEN_VERSION" \
    || ! has_version wasm-bindgen-test-runner "$WASM_BINDGEN_VERSION"; then
    step "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2 minutes)"
    # Not --locked: the CLI's own lock file names a crate the registry lacks.
    cargo install --force "wasm-bindgen-cli@$WASM_BINDGEN_VERSION"
fi
if ! has_version wasm-opt "version 116"; then
    step "installing wasm-opt $WASM_OPT_CRATE_VERSION (about 7 minutes)"
    cargo install --locked "wasm-opt@$WASM_OPT_CRATE_VERSION"
fi

if ! npm ls --prefix . >/dev/null 2>&1; then
    step "installing the npm packages in package-lock.json"
    npm ci --no-audit --no-fund --loglevel=error
fi
step "ready"
