#!/usr/bin/env bash
# Records examples/histories/etcd-watch.log, etcd-store.log and
# etcd-store.fenced.log from a real etcd: a private one-member etcd on
# loopback (scripts/lib/etcd.sh), two `etcdctl lock --ttl 2 fixlock`
# workers, and `etcdctl watch --prefix fixlock/ -w json` with each line
# prefixed by the moment it arrived.
#
# The story is the GC pause on etcd's lock: A holds, B waits; A's whole
# process group is frozen (SIGSTOP) past its session's 2 s TTL, so etcd
# expires A's lease and deletes its key; B holds, writes with its token and
# releases; A thaws and writes with its old token. The store is this
# script: a plain one that accepts every write (etcd-store.log) and a
# fenced one that refuses a token lower than one it accepted
# (etcd-store.fenced.log). Each worker's token is its key's create
# revision, read with `etcdctl get $ETCD_LOCK_KEY -w json`.
#
# Usage: examples/histories/etcd-watch.sh [OUTPUT_DIR]   (about 10 s)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here}"
# shellcheck source=../../scripts/lib/etcd.sh
source "$here/../../scripts/lib/etcd.sh"
command -v etcdctl >/dev/null 2>&1 || { echo "etcdctl is missing (Debian: apt-get install etcd-client)" >&2; exit 1; }
start_etcd etcd-watch 1
export ETCDCTL_API=3
ctl=(etcdctl --endpoints="$etcd_endpoints")
now() { date +%s.%6N; }
: >"$workdir/plain.log"
: >"$workdir/fenced.log"
echo 0 >"$workdir/fenced.max"

# $! is etcdctl's own pid: the timestamping reader ends when it does.
"${ctl[@]}" watch --prefix fixlock/ -w json > >(while read -r line; do printf '%s %s\n' "$(now)" "$line"; done >"$workdir/watch.log") &
watch_pid=$!
a_pid=""
# On any exit: thaw and stop A's group, stop the watch, then etcd.
cleanup_all() {
    if [ -n "$a_pid" ]; then kill -CONT -- "-$a_pid" 2>/dev/null || true; kill -- "-$a_pid" 2>/dev/null || true; fi
    kill "$watch_pid" 2>/dev/null || true
    cleanup_etcd
}
trap cleanup_all EXIT
sleep 0.5

# One worker's job, run by `etcdctl lock` while it holds the lock: read the
# token, say so, wait for the go-ahead (A is frozen meanwhile), then write
# to both stores.
job='
set -eu
token=$(etcdctl --endpoints="$EP" get "$ETCD_LOCK_KEY" -w json | python3 -c "import json,sys; print(json.load(sys.stdin)[\"kvs\"][0][\"create_revision\"])")
echo "$token" >"$WD/$ME.token"
for _ in $(seq 300); do [ -e "$WD/$ME.go" ] && break; sleep 0.05; done
t=$(date +%s.%6N)
echo "$t $ME $token accepted" >>"$WD/plain.log"
max=$(cat "$WD/fenced.max")
if [ "$token" -ge "$max" ]; then echo "$token" >"$WD/fenced.max"; echo "$t $ME $token accepted" >>"$WD/fenced.log"
else echo "$t $ME $token refused" >>"$WD/fenced.log"; fi
'
EP="$etcd_endpoints" WD="$workdir" ME=A setsid "${ctl[@]}" lock --ttl 2 fixlock -- sh -c "$job" &
a_pid=$!
for _ in $(seq 100); do [ -e "$workdir/A.token" ] && break; sleep 0.05; done
[ -e "$workdir/A.token" ] || { echo "A never held the lock" >&2; exit 1; }
EP="$etcd_endpoints" WD="$workdir" ME=B "${ctl[@]}" lock --ttl 2 fixlock -- sh -c "$job" &
b_pid=$!
touch "$workdir/B.go"
sleep 0.5
echo "==> A (token $(cat "$workdir/A.token")) frozen"
kill -STOP -- "-$a_pid"
for _ in $(seq 200); do [ -e "$workdir/B.token" ] && break; sleep 0.05; done
[ -e "$workdir/B.token" ] || { echo "B never held the lock" >&2; kill -CONT -- "-$a_pid"; exit 1; }
echo "==> B holds (token $(cat "$workdir/B.token"))"
wait "$b_pid"
sleep 0.3
kill -CONT -- "-$a_pid"
touch "$workdir/A.go"
echo "==> A thawed"
wait "$a_pid" || true
sleep 0.5
kill "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true
sleep 0.2

{
    echo "# The plain store's decisions (it checks no token), written by examples/histories/etcd-watch.sh"
    cat "$workdir/plain.log"
} >"$out/etcd-store.log"
{
    echo "# The fenced store's decisions (it refuses a token lower than one it accepted), written by examples/histories/etcd-watch.sh"
    cat "$workdir/fenced.log"
} >"$out/etcd-store.fenced.log"
cp "$workdir/watch.log" "$out/etcd-watch.log"
echo "==> wrote $out/etcd-watch.log ($(wc -l <"$out/etcd-watch.log") lines), etcd-store.log, etcd-store.fenced.log"
echo "==> A's key, for --expired: $(grep -o '"key":"[^"]*"' "$out/etcd-watch.log" | head -n 1 | cut -d'"' -f4 | base64 -d)"
