// Where a scrub position's time goes: the same scrub as bench/playback.mjs
// (100 positions across a 10,000-event trace), recorded as a DevTools
// performance trace, and the renderer's main thread time per position split
// by what the browser was doing (self time, so nothing is counted twice).
// Printed, not asserted. `node bench/scrub-profile.mjs [runs]`.
import { serve, launch } from '../tests/e2e/harness.mjs';

const runs = Number(process.argv[2] ?? 3);
// BENCH_DIST=dir measures another build (a copy of the one before a change).
const server = await serve(process.env.BENCH_DIST ?? undefined);
const browser = await launch();

/** What the browser was doing, by trace event name. */
const GROUPS = [
  ['parse markup', /ParseHTML|HTMLDocumentParser|innerHTML/i],
  ['style', /style|LayoutTree|Selector/i],
  ['layout', /layout|Shape|SvgText|InlineNode|Reflow/i],
  ['paint and commit', /paint|commit|Layer|Raster|Composit|CullRect|DisplayItem|Scroll/i],
  ['script (wasm, Leptos, JS)', /FunctionCall|Microtask|EventDispatch|V8|v8|Compile|Task|Animation|Timer|GC/],
];
const group = (name) => GROUPS.find(([, pattern]) => pattern.test(name))?.[0] ?? 'other';

/**
 * The page's main thread, as self time per group: thread (CPU) time, so
 * the figures hold up while other work shares the machine.
 */
function selfTimes(events) {
  const main = events.find((event) => event.name === 'thread_name' && event.args?.name === 'CrRendererMain');
  const mine = events
    .filter((event) => main && event.pid === main.pid && event.tid === main.tid && event.ph === 'X' && event.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const frames = [];
  const stack = [];
  for (const event of mine) {
    while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= event.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent && event.ts + event.dur > parent.ts + parent.dur) continue; // overlapping, not nested
    const frame = { name: event.name, cpu: event.tdur ?? event.dur, child: 0, ts: event.ts, dur: event.dur };
    if (parent) parent.child += frame.cpu;
    stack.push(frame);
    frames.push(frame);
  }
  const totals = new Map();
  for (const frame of frames) {
    const key = group(frame.name);
    totals.set(key, (totals.get(key) ?? 0) + Math.max(0, frame.cpu - frame.child));
  }
  return totals;
}

async function scrubOnce() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${server.url}?fault=none&renewal=on&ttl_ms=30&work_ms=60000`);
  const scrubber = page.getByTestId('race-scrubber');
  await scrubber.waitFor();
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink', 'cc'] },
  });
  const result = await page.evaluate(async () => {
    const input = document.querySelector('[data-testid=race-scrubber]');
    const max = Number(input.max);
    const positions = 100;
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
    let handler = 0;
    const started = performance.now();
    for (let step = 0; step <= positions; step += 1) {
      input.value = String(Math.round((max * step) / positions));
      const before = performance.now();
      input.dispatchEvent(new Event('input', { bubbles: true }));
      handler += performance.now() - before;
      await frame();
    }
    return { total: performance.now() - started, handler, positions: positions + 1 };
  });
  await cdp.send('Tracing.end');
  await done;
  await page.close();
  return { ...result, totals: selfTimes(events) };
}

const all = [];
for (let run = 0; run < runs; run += 1) all.push(await scrubOnce());
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const each = (pick) => median(all.map((run) => pick(run) / run.positions));
console.log(`scrub, ${runs} runs of ${all[0].positions} positions, medians per position:`);
console.log(`  whole position (input to next frame): ${each((run) => run.total).toFixed(2)} ms`);
console.log(`  input handler (Leptos updates, markup): ${each((run) => run.handler).toFixed(2)} ms`);
const names = [...GROUPS.map(([name]) => name), 'other'];
const cpu = each((run) => [...run.totals.values()].reduce((sum, value) => sum + value, 0) / 1000);
console.log(`  main thread CPU time: ${cpu.toFixed(2)} ms, of which`);
for (const name of names) console.log(`    ${name.padEnd(28)} ${each((run) => (run.totals.get(name) ?? 0) / 1000).toFixed(2)} ms`);
await browser.close();
await server.close();
