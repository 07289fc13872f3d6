# Sourced by scripts that need a private etcd cluster on loopback: its data in
# a temporary folder, its members stopped by PID when the script exits.
# Provides `workdir` and `start_etcd NAME MEMBERS`, which starts a cluster of
# MEMBERS members on free ports and sets `etcd_endpoints` (client URLs,
# comma-separated, member 1 first) and `etcd_pids` (comma-separated, same
# order), or exits non-zero.

# scripts/setup.sh installs etcd-server with the rest of the toolchain.
command -v etcd >/dev/null 2>&1 || { echo "etcd is missing; run scripts/setup.sh" >&2; exit 1; }

workdir="$(mktemp -d)"
etcd_pid_list=()
etcd_endpoints=""
etcd_pids=""

stop_etcd() {
    local pid
    for pid in "${etcd_pid_list[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${etcd_pid_list[@]}"; do
        # Bounded wait for each to go; then insist.
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    etcd_pid_list=()
}
cleanup_etcd() {
    stop_etcd
    rm -rf "$workdir"
}
trap cleanup_etcd EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Whether something already listens on a loopback port.
port_taken() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# etcd's /health, by hand (no curl, no etcdctl needed): true once the
# member sees a leader.
etcd_healthy() {
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1 && printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 && cat <&3" 2>/dev/null \
        | grep -q '"health":"true"'
}

start_etcd() {
    local name=$1 members=$2 attempt base member cluster client peer all_up
    for attempt in $(seq 20); do
        # Two ports per member (client, peer), side by side.
        base=$((23790 + 2 * members * (RANDOM % 1000)))
        all_up=1
        for port in $(seq "$base" $((base + 2 * members - 1))); do
            if port_taken "$port"; then all_up=0; break; fi
        done
        [ "$all_up" = 1 ] || continue
        cluster=""
        for member in $(seq "$members"); do
            peer=$((base + 2 * member - 1))
            cluster="${cluster:+$cluster,}m$member=http://127.0.0.1:$peer"
        done
        etcd_endpoints="" etcd_pids=""
        for member in $(seq "$members"); do
            client=$((base + 2 * member - 2)) peer=$((base + 2 * member - 1))
            rm -rf "$workdir/m$member"
            etcd --name "m$member" --data-dir "$workdir/m$member" \
                --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
                --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
                --initial-cluster "$cluster" --initial-cluster-token "fencing-lab-$$-$attempt" \
                --initial-cluster-state new >"$workdir/m$member.log" 2>&1 &
            etcd_pid_list+=("$!")
            # A test may kill a member on purpose: no "Killed" notice from
            # this shell (the exit trap still stops every member by pid).
            disown "$!"
            etcd_endpoints="${etcd_endpoints:+$etcd_endpoints,}http://127.0.0.1:$client"
            etcd_pids="${etcd_pids:+$etcd_pids,}$!"
        done
        # Bounded wait until every member is healthy (a leader is elected).
        for _ in $(seq 150); do
            all_up=1
            for member in $(seq "$members"); do
                etcd_healthy $((base + 2 * member - 2)) || { all_up=0; break; }
            done
            [ "$all_up" = 1 ] && break
            sleep 0.1
        done
        if [ "$all_up" = 1 ]; then
            echo "==> $name: $(etcd --version | head -n 1), $members member(s) on $etcd_endpoints (pids $etcd_pids)"
            return 0
        fi
        echo "==> $name: ports from $base did not work (attempt $attempt), trying others" >&2
        stop_etcd
    done
    echo "==> $name: could not start etcd" >&2
    tail -n 30 "$workdir"/m*.log >&2 2>/dev/null || true
    exit 1
}
