# Sourced by scripts that need private redis-servers on loopback (no
# persistence), stopped by PID when the script exits. Provides `workdir` (a
# temporary folder, removed on exit) and `start_redis NAME [ARGS...]`, which
# starts one more server (ARGS are passed on, e.g. `--replicaof HOST PORT`)
# on `redis_host` (127.0.0.1 unless the caller sets another loopback
# address) and sets `redis_port` and `redis_pid`, or exits non-zero.

for tool in redis-server redis-cli; do
    # scripts/setup.sh installs redis-server with the rest of the toolchain.
    command -v "$tool" >/dev/null 2>&1 || { echo "$tool is missing; run scripts/setup.sh" >&2; exit 1; }
done

workdir="$(mktemp -d)"
redis_pid=""
redis_port=""
redis_host=127.0.0.1
redis_pids=()

stop_one_redis() {
    local pid=$1
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        # Bounded wait for it to go; then insist.
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}
stop_redis() {
    local pid
    for pid in "${redis_pids[@]}"; do stop_one_redis "$pid"; done
    redis_pids=()
    rm -rf "$workdir"
}
trap stop_redis EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_redis() {
    local name=$1 attempt candidate
    shift
    redis_port=""
    for attempt in $(seq 20); do
        candidate=$((6390 + RANDOM % 2000))
        # Taken already (by another test run or service)? Try another.
        if timeout 2 redis-cli -h "$redis_host" -p "$candidate" ping >/dev/null 2>&1; then continue; fi
        mkdir -p "$workdir/$candidate"
        # No snapshot, no append-only file; a replica's first sync goes
        # over the socket at once instead of after the default 5 s wait.
        redis-server --port "$candidate" --bind "$redis_host" --save "" --appendonly no --daemonize no \
            --repl-diskless-sync-delay 0 --dir "$workdir/$candidate" --logfile "$workdir/$candidate/redis.log" "$@" &
        redis_pid=$!
        for _ in $(seq 50); do
            if [ "$(timeout 2 redis-cli -h "$redis_host" -p "$candidate" ping 2>/dev/null)" = "PONG" ]; then redis_port=$candidate; break; fi
            kill -0 "$redis_pid" 2>/dev/null || break
            sleep 0.1
        done
        if [ -n "$redis_port" ]; then
            redis_pids+=("$redis_pid")
            echo "==> $name: $(redis-server --version | cut -d' ' -f1-3) on $redis_host:$redis_port (pid $redis_pid)"
            return 0
        fi
        echo "==> $name: port $candidate did not work (attempt $attempt), trying another" >&2
        stop_one_redis "$redis_pid"
        redis_pid=""
    done
    echo "==> $name: could not start redis-server" >&2
    cat "$workdir"/*/redis.log >&2 2>/dev/null || true
    exit 1
}
