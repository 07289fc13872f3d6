# Sourced by scripts that need a private etcd cluster on loopback: its data in
# a temporary folder, its members stopped by PID when the script exits.
# Provides `workdir` and `start_etcd NAME MEMBERS [proxied]`, which starts a
# cluster of MEMBERS members on free ports and sets `etcd_endpoints` (client
# URLs, comma-separated, member 1 first) and `etcd_pids` (comma-separated, same
# order), or exits non-zero.
#
# A script may set the array `etcd_flags` (e.g. `(--pre-vote)`) before
# calling start_etcd: every member gets those flags too.
#
# With `proxied`, each member advertises a third port as its peer address
# (the one the others dial) instead of the one it listens on, so that a test
# can run a proxy there and cut the members' raft traffic while their
# clients' goes on. It then also sets `etcd_peer_listen` (host:port where each
# member listens for peers) and `etcd_peer_advertised` (host:port the test
# must serve, forwarding to the former; same order), and waits only until
# every member runs and listens: no leader can be elected before the proxies
# run, so the test waits for one.

# scripts/setup.sh installs etcd-server with the rest of the toolchain.
command -v etcd >/dev/null 2>&1 || { echo "etcd is missing; run scripts/setup.sh" >&2; exit 1; }

workdir="$(mktemp -d)"
etcd_pid_list=()
etcd_endpoints=""
etcd_pids=""
etcd_peer_listen=""
etcd_peer_advertised=""

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

# Whether every member runs and accepts connections on its client and peer
# ports (args: the first client port, the ports per member, the members).
etcd_listening() {
    local base=$1 per=$2 members=$3 member pid
    for pid in "${etcd_pid_list[@]}"; do kill -0 "$pid" 2>/dev/null || return 1; done
    for member in $(seq "$members"); do
        port_taken $((base + per * (member - 1))) && port_taken $((base + per * (member - 1) + 1)) || return 1
    done
}

start_etcd() {
    local name=$1 members=$2 proxied=${3:-} per=2 slots=1000 attempt base member cluster client peer advertised all_up
    # Two ports per member (client, peer), side by side; a third (the
    # advertised peer address) with proxies, and fewer places for the lot
    # so that it stays below the kernel's ephemeral ports (from 32768).
    [ "$proxied" = proxied ] && per=3 slots=900
    for attempt in $(seq 20); do
        base=$((23790 + per * members * (RANDOM % slots)))
        all_up=1
        for port in $(seq "$base" $((base + per * members - 1))); do
            if port_taken "$port"; then all_up=0; break; fi
        done
        [ "$all_up" = 1 ] || continue
        cluster=""
        for member in $(seq "$members"); do
            advertised=$((base + per * (member - 1) + per - 1))
            cluster="${cluster:+$cluster,}m$member=http://127.0.0.1:$advertised"
        done
        etcd_endpoints="" etcd_pids="" etcd_peer_listen="" etcd_peer_advertised=""
        for member in $(seq "$members"); do
            client=$((base + per * (member - 1))) peer=$((base + per * (member - 1) + 1))
            advertised=$((base + per * (member - 1) + per - 1))
            rm -rf "$workdir/m$member"
            etcd --name "m$member" --data-dir "$workdir/m$member" \
                --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
                --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$advertised" \
                --initial-cluster "$cluster" --initial-cluster-token "fencing-lab-$$-$attempt" \
                --initial-cluster-state new ${etcd_flags[@]+"${etcd_flags[@]}"} >"$workdir/m$member.log" 2>&1 &
            etcd_pid_list+=("$!")
            # A test may kill a member on purpose: no "Killed" notice from
            # this shell (the exit trap still stops every member by pid).
            disown "$!"
            etcd_endpoints="${etcd_endpoints:+$etcd_endpoints,}http://127.0.0.1:$client"
            etcd_pids="${etcd_pids:+$etcd_pids,}$!"
            etcd_peer_listen="${etcd_peer_listen:+$etcd_peer_listen,}127.0.0.1:$peer"
            etcd_peer_advertised="${etcd_peer_advertised:+$etcd_peer_advertised,}127.0.0.1:$advertised"
        done
        # Bounded wait until every member is healthy (a leader is elected),
        # or with proxies until every member listens.
        for _ in $(seq 150); do
            all_up=1
            if [ "$proxied" = proxied ]; then
                etcd_listening "$base" "$per" "$members" || all_up=0
            else
                for member in $(seq "$members"); do
                    etcd_healthy $((base + 2 * member - 2)) || { all_up=0; break; }
                done
            fi
            [ "$all_up" = 1 ] && break
            sleep 0.1
        done
        if [ "$all_up" = 1 ]; then
            echo "==> $name: $(etcd --version | head -n 1), $members member(s) on $etcd_endpoints (pids $etcd_pids)"
            [ "$proxied" = proxied ] && echo "==> $name: peers listen on $etcd_peer_listen, advertised (proxied) as $etcd_peer_advertised"
            return 0
        fi
        echo "==> $name: ports from $base did not work (attempt $attempt), trying others" >&2
        stop_etcd
    done
    echo "==> $name: could not start etcd" >&2
    tail -n 30 "$workdir"/m*.log >&2 2>/dev/null || true
    exit 1
}
