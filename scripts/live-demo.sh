#!/usr/bin/env bash
# The classic scenario for real: starts a private redis-server on a free
# loopback port (no persistence), runs `fencing-lab live` on it (two worker
# processes, A frozen with SIGSTOP for 2 s holding a 1 s lease), once for
# people and once as JSON, and checks what the seeds promise: the plain store
# ends with A's token-33 data (B's write lost), the fenced store with B's
# token-34 data and A's write rejected, and the model agrees. Stops the server
# on exit; exits non-zero if anything differs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/redis.sh
started_s=$SECONDS

# Build first, so the server does not sit idle through a compile.
cargo build -q -p fencing-sim

start_redis live-demo
port=$redis_port
url="redis://127.0.0.1:$port/"

failures=0
fail() { echo "==> live-demo: FAILED: $*" >&2; failures=$((failures + 1)); }

# 1. For people: the real timeline, the outcomes next to the model's.
status=0
cargo run -q -p fencing-sim -- live --redis "$url" | tee "$workdir/human.txt" || status=$?
[ "$status" -eq 0 ] || fail "fencing-lab live exited $status (3: the real run and the model disagree)"
grep -q "plain store accepted A's write A:33 over B:34" "$workdir/human.txt" || fail "A's stale write did not land on B's data in the plain store"
grep -q "fenced store rejected A's write: token 33 < 34" "$workdir/human.txt" || fail "the fenced store did not reject A's token-33 write"
grep -q "^agree: " "$workdir/human.txt" || fail "no agreement line"

# 2. As JSON: the same facts, field by field.
echo "==> live-demo: again, as JSON"
status=0
cargo run -q -p fencing-sim -- live --redis "$url" --json >"$workdir/live.json" || status=$?
[ "$status" -eq 0 ] || fail "fencing-lab live --json exited $status"
# python3 if there is one, else node (the page's tests need it anyway).
if command -v python3 >/dev/null 2>&1; then
    python3 - "$workdir/live.json" <<'EOF' || fail "the JSON report is not what the seeds promise"
import json, sys
report = json.load(open(sys.argv[1]))
plain, fenced, simulated = report["real"]["plain"], report["real"]["fenced"], report["simulated"]
checks = [
    ("real plain final_store", plain["final_store"], {"writer": "A", "token": 33}),
    ("real plain zombie_writes", plain["zombie_writes"], 1),
    ("real plain stale_overwrites", plain["stale_overwrites"], 1),
    ("real fenced final_store", fenced["final_store"], {"writer": "B", "token": 34}),
    ("real fenced rejected_writes", fenced["rejected_writes"], 1),
    ("real fenced zombie_writes", fenced["zombie_writes"], 0),
    ("simulated plain final_store", simulated["plain"]["final_store"], {"writer": "A", "token": 33}),
    ("simulated fenced final_store", simulated["fenced"]["final_store"], {"writer": "B", "token": 34}),
    ("agree", report["agree"], True),
]
problems = [f"{what}: {got!r}, expected {want!r}" for what, got, want in checks if got != want]
for problem in problems:
    print(problem, file=sys.stderr)
print(f"==> live-demo: JSON: plain store ends {plain['final_store']}, fenced store ends {fenced['final_store']} "
      f"with {fenced['rejected_writes']} rejected write; agree: {report['agree']}")
sys.exit(1 if problems else 0)
EOF
else
    node - "$workdir/live.json" <<'EOF' || fail "the JSON report is not what the seeds promise"
const report = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
const { plain, fenced } = report.real;
const sorted = (v) => (v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
const checks = [
    ["real plain final_store", plain.final_store, { writer: "A", token: 33 }],
    ["real plain zombie_writes", plain.zombie_writes, 1],
    ["real plain stale_overwrites", plain.stale_overwrites, 1],
    ["real fenced final_store", fenced.final_store, { writer: "B", token: 34 }],
    ["real fenced rejected_writes", fenced.rejected_writes, 1],
    ["real fenced zombie_writes", fenced.zombie_writes, 0],
    ["simulated plain final_store", report.simulated.plain.final_store, { writer: "A", token: 33 }],
    ["simulated fenced final_store", report.simulated.fenced.final_store, { writer: "B", token: 34 }],
    ["agree", report.agree, true],
];
const problems = checks.filter(([, got, want]) => JSON.stringify(sorted(got)) !== JSON.stringify(sorted(want)));
for (const [what, got, want] of problems) console.error(`${what}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
console.log(`==> live-demo: JSON: plain store ends ${JSON.stringify(plain.final_store)}, fenced store ends ${JSON.stringify(fenced.final_store)} with ${fenced.rejected_writes} rejected write; agree: ${report.agree}`);
process.exit(problems.length ? 1 : 0);
EOF
fi

echo "==> live-demo: $((SECONDS - started_s)) s"
if [ "$failures" -ne 0 ]; then
    echo "==> live-demo: $failures check(s) failed" >&2
    exit 1
fi
echo "==> live-demo: OK: plain store kept A's stale token-33 write; the fenced store kept B's token 34 and rejected A's"
