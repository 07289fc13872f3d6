#!/usr/bin/env bash
# Differential test against a real ZooKeeper 3.8 (Debian's `zookeeper`):
# starts a private standalone server on a free loopback port (tickTime 2000,
# its data in a temporary directory), runs sim/tests/zookeeper_differential.rs
# against it (session timeouts granted, a SIGSTOPped client's session expired
# and its successor's watch fired, the znodes' sequence numbers, an emptied
# container parent deleted and its sequence numbers restarted at 0 while the
# czxid grows; about 20 s),
# and stops the server on exit. Exits non-zero if ZooKeeper behaves otherwise
# than the model says.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

# scripts/setup.sh installs zookeeper with the rest of the toolchain.
jar=/usr/share/java/zookeeper.jar
[ -r "$jar" ] && command -v java >/dev/null || { echo "zookeeper is missing; run scripts/setup.sh" >&2; exit 1; }

# Build first, so the server does not sit idle through a compile.
cargo test --release -p fencing-sim --test zookeeper_differential --no-run

workdir="$(mktemp -d)"
zk_pid=""
cleanup() {
    if [ -n "$zk_pid" ]; then
        kill "$zk_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$zk_pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$zk_pid" 2>/dev/null || true
    fi
    rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port_taken() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
# ZooKeeper's `ruok` four-letter word, by hand: "imok" once it serves.
zk_ok() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1 && printf ruok >&3 && cat <&3" 2>/dev/null | grep -q imok; }

for attempt in $(seq 20); do
    port=$((22000 + RANDOM % 9000))
    port_taken "$port" && continue
    # ZooKeeperServerMain PORT DATADIR TICKTIME: one standalone server,
    # tickTime 2000 (the default): sessions of 4 s to 40 s.
    # Container checks every second instead of every minute, so the test
    # sees an emptied container parent deleted (Curator's lock parent).
    java -Dzookeeper.admin.enableServer=false -Dzookeeper.4lw.commands.whitelist=ruok,srvr -Dznode.container.checkIntervalMs=1000 \
        -cp "$jar" org.apache.zookeeper.server.ZooKeeperServerMain "$port" "$workdir/data" 2000 >"$workdir/zk.log" 2>&1 &
    zk_pid=$!
    for _ in $(seq 150); do
        zk_ok "$port" && break
        kill -0 "$zk_pid" 2>/dev/null || break
        sleep 0.1
    done
    if zk_ok "$port"; then
        echo "==> fidelity-zookeeper: ZooKeeper $(basename "$(readlink -f "$jar")" .jar | sed 's/zookeeper-//') on 127.0.0.1:$port (pid $zk_pid)"
        FENCING_LAB_ZOOKEEPER="127.0.0.1:$port" \
            cargo test --release -p fencing-sim --test zookeeper_differential -- --ignored --nocapture --test-threads=1 real_
        exit 0
    fi
    echo "==> fidelity-zookeeper: port $port did not work (attempt $attempt), trying another" >&2
    kill "$zk_pid" 2>/dev/null || true
    wait "$zk_pid" 2>/dev/null || true
    zk_pid=""
done
echo "==> fidelity-zookeeper: could not start ZooKeeper" >&2
tail -n 30 "$workdir/zk.log" >&2 2>/dev/null || true
exit 1
