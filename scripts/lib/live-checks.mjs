// Checks one `fencing-lab live --json` report against what its story
// promises (scripts/live-demo.sh): node live-checks.mjs STORY REPORT.json
import { readFileSync } from "node:fs";

const [story, path] = process.argv.slice(2);
const report = JSON.parse(readFileSync(path, "utf8"));
const { real, simulated } = report;
const datum = (writer, token) => ({ writer, token });

const expected = {
    "gc-pause": [
        ["real tokens", real.tokens, "A:33 B:34"],
        ["real plain final_store", real.plain.final_store, datum("A", 33)],
        ["real plain zombie_writes", real.plain.zombie_writes, 1],
        ["real plain stale_overwrites", real.plain.stale_overwrites, 1],
        ["real fenced final_store", real.fenced.final_store, datum("B", 34)],
        ["real fenced rejected_writes", real.fenced.rejected_writes, 1],
        ["real fenced rightful_writes_rejected", real.fenced.rightful_writes_rejected, 0],
        ["real fenced zombie_writes", real.fenced.zombie_writes, 0],
        ["simulated plain final_store", simulated.plain.final_store, datum("A", 33)],
        // The live workers attempt each job once; the model's retried job is left out.
        ["simulated fenced final_store, each job attempted once", simulated.final_store_attempted_once.fenced, datum("B", 34)],
    ],
    "token-inversion": [
        ["real tokens", real.tokens, "B:33 A:34"],
        ["simulated tokens", simulated.tokens, "B:33 A:34"],
        ["real fenced final_store", real.fenced.final_store, datum("A", 34)],
        ["real fenced stale_overwrites", real.fenced.stale_overwrites, 1],
        ["real fenced rejected_writes", real.fenced.rejected_writes, 1],
        ["real fenced rightful_writes_rejected", real.fenced.rightful_writes_rejected, 1],
        ["simulated fenced final_store, each job attempted once", simulated.final_store_attempted_once.fenced, datum("A", 34)],
        ["simulated fenced stale_overwrites", simulated.fenced.stale_overwrites, 1],
        ["simulated fenced rejected_writes", simulated.fenced.rejected_writes, 1],
    ],
}[story];
if (!expected) {
    console.error(`live-checks: unknown story ${story}`);
    process.exit(2);
}

const sorted = (v) => (v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
const same = (got, want) => JSON.stringify(sorted(got)) === JSON.stringify(sorted(want));
const checks = [...expected, ["story", report.story, story], ["agree", report.agree, true]];
const problems = checks.filter(([, got, want]) => !same(got, want));
for (const [what, got, want] of problems) console.error(`${what}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
console.log(
    `==> live-demo: ${story} JSON: tokens ${real.tokens}; plain store ends ${JSON.stringify(real.plain.final_store)}, ` +
        `fenced store ends ${JSON.stringify(real.fenced.final_store)} with ${real.fenced.rejected_writes} rejected write(s); agree: ${report.agree}`,
);
process.exit(problems.length ? 1 : 0);
