#!/usr/bin/env bash
# Soak: the property "atomic tokens and a fencing store never let a stale
# write land" over fresh random seeds, for as many minutes as asked (default
# 10), in rounds of 2,000 schedules. Any counterexample is printed as a
# scenario to replay with `fencing-lab run --scenario FILE.json`, with the
# runner seed that found it. Not part of the test command: fresh seeds make
# a run unrepeatable, which a CI check must never be. Add every counterexample
# it finds to sim/tests/properties.rs as a named regression.
#   scripts/soak.sh [minutes]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
minutes="${1:-10}"
case "$minutes" in ''|*[!0-9]*) echo "soak: minutes must be a whole number, not '$minutes'" >&2; exit 2 ;; esac
SOAK_MINUTES="$minutes" cargo test --release -p fencing-sim --test properties -- --ignored soak --nocapture
