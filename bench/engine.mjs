// The model's speed in WebAssembly (V8, the engine Chromium runs), beside the
// native figures scripts/bench-engine.sh prints: counters-only runs of the
// classic preset per second, and the explorer's time for each preset's design
// (fencing on, no_stale_overwrite, up to two faults). Figures, not a test.
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';

const pkg = new URL('./engine/pkg/', import.meta.url);
const engine = await import(new URL('fencing_lab_engine_bench.js', pkg));
await engine.default({ module_or_path: await readFile(new URL('fencing_lab_engine_bench_bg.wasm', pkg)) });

function rate(runs) {
  engine.classic_counts(2_000); // warm the engine up
  const started = performance.now();
  const checksum = engine.classic_counts(runs);
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: runs / seconds, checksum };
}

const { perSecond, checksum } = rate(200_000);
console.log(`wasm, counters only: ${perSecond.toFixed(0)} runs/s over 200000 seeds (checksum ${checksum})`);
console.log('wasm, explorer per preset (fencing on, no_stale_overwrite, up to two faults):');
for (const id of engine.preset_ids().split(',')) {
  const started = performance.now();
  const tried = engine.explore_preset(id);
  const ms = performance.now() - started;
  console.log(`  ${id.padEnd(24)} ${String(tried).padStart(6)} schedules  ${ms.toFixed(0).padStart(6)} ms  (${(tried / (ms / 1000)).toFixed(0)} schedules/s)`);
}

// A fleet's speed: the figures the fleet view's runs take, beside the
// native ones the example prints.
for (const [label, query] of [
  ['16 workers, 1 h, JVM pauses', 'span_ms=3600000&pauses=jvm_full_gc'],
  ['16 workers, 1 day, throttled (the page default)', ''],
]) {
  const started = performance.now();
  const jobs = engine.fleet_jobs(query);
  const seconds = (performance.now() - started) / 1000;
  console.log(`wasm, fleet ${label}: ${seconds.toFixed(3)} s (${jobs} jobs)`);
}
