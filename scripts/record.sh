#!/usr/bin/env bash
# Refreshes recordings/: runs each reality check that records its real run
# (docs/histories.md, "Recordings") with FENCING_LAB_RECORD set, so that each
# writes what it saw the real server do as a history instead of comparing it
# with the committed one:
#   scripts/live-demo.sh              gc-pause and token-inversion on Redis (both stores each)
#   scripts/fidelity-failover.sh      redis-failover.jsonl
#   scripts/fidelity-sentinel.sh      redis-split-brain.jsonl
#   scripts/fidelity-etcd-partition.sh etcd-partition.jsonl
#   scripts/fidelity-zookeeper.sh     zookeeper-gc-pause.jsonl
# Each check still compares its run with the model's and fails if they
# differ, so nothing is recorded from a run the model disowns. Then review
# the new files with `git diff recordings/` (a changed token, holder or
# decision is a change in what the real server does; a moved time is
# expected) and commit them. `scripts/record.sh live-demo` (or any of the
# names above without .sh) refreshes only those.
set -euo pipefail
cd "$(dirname "$0")/.."
started_s=$SECONDS
mkdir -p recordings
export FENCING_LAB_RECORD="$PWD/recordings"
checks=("$@")
[ "${#checks[@]}" -gt 0 ] || checks=(live-demo fidelity-failover fidelity-sentinel fidelity-etcd-partition fidelity-zookeeper)
for check in "${checks[@]}"; do
    case "$check" in
        live-demo | fidelity-failover | fidelity-sentinel | fidelity-etcd-partition | fidelity-zookeeper) ;;
        *) echo "record.sh: $check is not a check that records (see the list at the top)" >&2; exit 2 ;;
    esac
    echo "==> record: scripts/$check.sh"
    "scripts/$check.sh"
done
echo "==> record: $((SECONDS - started_s)) s; now review: git diff --stat recordings/ && git diff recordings/"
ls -l recordings/
