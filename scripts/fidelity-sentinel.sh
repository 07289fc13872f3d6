#!/usr/bin/env bash
# The redis-split-brain preset against a real primary, a real replica and a
# real Redis Sentinel on loopback, cut apart by a real network partition:
# starts a primary (L1) on 127.0.0.2, its replica (L2) and one Sentinel on
# 127.0.0.3 (the model's Sentinels run beside the replica), and an nftables
# table of this script's own that drops B's packets to L1 from the start
# (B's side is 127.0.0.5; A and C talk from 127.0.0.1, which reaches
# everything). It then runs sim/tests/redis_sentinel.rs, which lets A take
# the lock and token 33 on L1, replicated; cuts L1 off from L2 and Sentinel
# (nft -f cut.nft, prepared here) while A's and C's connections to L1 stay
# usable; waits for Sentinel to promote L2; lets B take the lock on L2 and C
# on L1, both drawing 34; heals (nft -f heal.nft); waits for Sentinel to
# make L1 a replica of L2, which drops C's lock; and prints the real
# timeline beside the model's, failing if the facts differ.
#
# On exit, also on failure, it deletes its nftables table (and only it: the
# table is named after this shell's pid and no other rule is touched), then
# stops every server it started, by pid.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
started_s=$SECONDS

for tool in redis-sentinel nft; do
    # scripts/setup.sh installs both (Debian's redis-sentinel and nftables).
    command -v "$tool" >/dev/null 2>&1 || { echo "$tool is missing; run scripts/setup.sh" >&2; exit 1; }
done
. scripts/lib/redis.sh

# Each process its own loopback address (Linux routes all of 127.0.0.0/8 to
# lo), so that a rule can cut one link and leave the others.
primary_host=127.0.0.2
replica_host=127.0.0.3
b_host=127.0.0.5
master_name=fencing-lab
nft_table="fencing_lab_sentinel_$$"
nft_created=""

remove_cut() {
    if [ -n "$nft_created" ]; then
        nft delete table inet "$nft_table" 2>/dev/null || echo "==> fidelity-sentinel: could not delete nft table inet $nft_table" >&2
        nft_created=""
    fi
}
# The library's trap stops the servers; the firewall table goes first.
trap 'remove_cut; stop_redis' EXIT

# Build first, so the servers do not sit idle through a compile
# (in release: the build the model's tests already made, so nothing is
# compiled twice).
cargo test --release -p fencing-sim --test redis_sentinel --no-run

# Protected mode refuses clients from any address but 127.0.0.1 and ::1,
# the replica's and Sentinel's 127.0.0.3 included; every server here
# listens on a loopback address only, so nothing off this machine reaches
# it either way. bind-source-addr makes each server's own connections (the
# replica's to its primary, Sentinel's to both) leave from its address, so
# the rules can tell them from the clients'.
redis_host=$primary_host
start_redis sentinel-primary --protected-mode no --bind-source-addr "$primary_host"
primary_port=$redis_port
redis_host=$replica_host
start_redis sentinel-replica --protected-mode no --bind-source-addr "$replica_host" --replicaof "$primary_host" "$primary_port"
replica_port=$redis_port

# Bounded wait for the first full sync.
for _ in $(seq 100); do
    redis-cli -h "$replica_host" -p "$replica_port" info replication | grep -q '^master_link_status:up' && break
    sleep 0.1
done
if ! redis-cli -h "$replica_host" -p "$replica_port" info replication | grep -q '^master_link_status:up'; then
    echo "==> fidelity-sentinel: the replica never got in sync with the primary" >&2
    tail -n 20 "$workdir/$replica_port/redis.log" >&2 || true
    exit 1
fi
echo "==> fidelity-sentinel: replica $replica_host:$replica_port in sync with primary $primary_host:$primary_port"

# One Sentinel, so quorum 1: it alone decides that the primary is down and
# elects itself to fail it over (three Sentinels with quorum 2 would agree
# the same way here: they would all run beside the replica and see what it
# sees). Sentinel's default down-after-milliseconds is 30 s; the story
# configures a fast failover (the preset's 2 s, halved like every time of
# the real run: the test checks that this is the model's failover time at
# its scale) so that it happens inside one lease. failover-timeout (default
# 3 minutes) is how long Sentinel gives a failover before it gives up on it
# and how long it waits before it tries again: 5 s, one halved lease, as a
# failover that has not promoted the replica by then has missed the story
# anyway.
start_sentinel() {
    local attempt candidate dir
    for attempt in $(seq 20); do
        candidate=$((26390 + RANDOM % 2000))
        if timeout 2 redis-cli -h "$replica_host" -p "$candidate" ping >/dev/null 2>&1; then continue; fi
        dir="$workdir/sentinel-$candidate"
        mkdir -p "$dir"
        # Sentinel rewrites its configuration file as it learns: a file of its own.
        cat >"$dir/sentinel.conf" <<EOF
port $candidate
bind $replica_host
bind-source-addr $replica_host
protected-mode no
daemonize no
dir $dir
logfile $dir/sentinel.log
sentinel monitor $master_name $primary_host $primary_port 1
sentinel down-after-milliseconds $master_name 1000
sentinel failover-timeout $master_name 5000
EOF
        redis-sentinel "$dir/sentinel.conf" &
        sentinel_pid=$!
        sentinel_port=""
        for _ in $(seq 50); do
            if [ "$(timeout 2 redis-cli -h "$replica_host" -p "$candidate" ping 2>/dev/null)" = "PONG" ]; then sentinel_port=$candidate; break; fi
            kill -0 "$sentinel_pid" 2>/dev/null || break
            sleep 0.1
        done
        if [ -n "$sentinel_port" ]; then
            redis_pids+=("$sentinel_pid")
            sentinel_log="$dir/sentinel.log"
            echo "==> sentinel: $(redis-sentinel --version | cut -d' ' -f1-3) on $replica_host:$sentinel_port (pid $sentinel_pid)"
            return 0
        fi
        echo "==> sentinel: port $candidate did not work (attempt $attempt), trying another" >&2
        stop_one_redis "$sentinel_pid"
    done
    echo "==> sentinel: could not start redis-sentinel" >&2
    cat "$workdir"/sentinel-*/sentinel.log >&2 2>/dev/null || true
    exit 1
}
start_sentinel

# Bounded wait until Sentinel has found the replica (from the primary's
# INFO) and sees both: it cannot fail over to a replica it does not know.
sentinel_ready() {
    redis-cli -h "$replica_host" -p "$sentinel_port" sentinel replicas "$master_name" 2>/dev/null | grep -qx "$replica_host:$replica_port" \
        && redis-cli -h "$replica_host" -p "$sentinel_port" sentinel master "$master_name" 2>/dev/null | grep -qx 'master'
}
for _ in $(seq 100); do sentinel_ready && break; sleep 0.1; done
if ! sentinel_ready; then
    echo "==> fidelity-sentinel: Sentinel never saw the primary and its replica" >&2
    tail -n 20 "$sentinel_log" >&2 || true
    exit 1
fi
echo "==> fidelity-sentinel: Sentinel monitors $master_name at $primary_host:$primary_port with replica $replica_host:$replica_port"

# The network: this script's own table, hooked on output (every packet
# here is sent from this machine, over lo). B never reaches L1, as in the
# model (from the start); the partition chain starts empty: cut.nft fills
# it, heal.nft empties it. Every rule names L1's port, so no other
# server on these addresses is touched.
nft -f - <<EOF
table inet $nft_table {
    chain partition {
    }
    chain output {
        type filter hook output priority filter; policy accept;
        ip saddr $b_host ip daddr $primary_host tcp dport $primary_port drop
        ip saddr $primary_host tcp sport $primary_port ip daddr $b_host drop
        jump partition
    }
}
EOF
nft_created=1
# L1 cut off from the replica and Sentinel, both ways (their connections
# to L1 and L1's answers; L1 opens none of its own while it is a primary).
cat >"$workdir/cut.nft" <<EOF
add rule inet $nft_table partition ip saddr $replica_host ip daddr $primary_host tcp dport $primary_port drop
add rule inet $nft_table partition ip saddr $primary_host tcp sport $primary_port ip daddr $replica_host drop
EOF
echo "flush chain inet $nft_table partition" >"$workdir/heal.nft"
echo "==> fidelity-sentinel: nft table inet $nft_table: $b_host cut off from $primary_host:$primary_port"

FENCING_LAB_SENTINEL_PRIMARY="$primary_host:$primary_port" \
FENCING_LAB_SENTINEL_REPLICA="$replica_host:$replica_port" \
FENCING_LAB_SENTINEL_ADDR="$replica_host:$sentinel_port" \
FENCING_LAB_SENTINEL_MASTER="$master_name" \
FENCING_LAB_SENTINEL_B_HOST="$b_host" \
FENCING_LAB_SENTINEL_CUT="$workdir/cut.nft" \
FENCING_LAB_SENTINEL_HEAL="$workdir/heal.nft" \
    cargo test --release -p fencing-sim --test redis_sentinel -- --ignored --nocapture || {
    echo "==> fidelity-sentinel: failed; Sentinel's log:" >&2
    tail -n 40 "$sentinel_log" >&2 || true
    exit 1
}
echo "==> fidelity-sentinel: $((SECONDS - started_s)) s"
