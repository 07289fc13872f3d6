// Two figures for the visual simulator, printed, not asserted:
// - p95 frame time while the side-by-side view plays both panes at 16×;
// - the time to scrub across a 10,000-event trace (the event bound), and
//   how many positions missed their frame;
// - for scale, the same number of frames on an empty page: a position can
//   cost no less than one frame, and on a shared machine a frame runs late.
import { serve, launch } from '../tests/e2e/harness.mjs';

// BENCH_DIST=dir measures another build (a copy of the one before a change).
const server = await serve(process.env.BENCH_DIST ?? undefined);
const browser = await launch();

async function framesWhilePlaying() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${server.url}?compare=fencing`);
  await page.getByTestId('compare-play').waitFor();
  await page.getByLabel('Speed').selectOption({ label: '16× (faster)' });
  await page.getByTestId('compare-play').click();
  const frames = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const deltas = [];
        let last = performance.now();
        const started = last;
        const tick = (now) => {
          deltas.push(now - last);
          last = now;
          if (now - started < 3000) requestAnimationFrame(tick);
          else resolve(deltas);
        };
        requestAnimationFrame(tick);
      }),
  );
  await page.close();
  frames.sort((a, b) => a - b);
  return { p95: frames[Math.floor(frames.length * 0.95)], count: frames.length };
}

async function scrub() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Renewal every 10 ms for a minute: far more than the 10,000-event bound.
  await page.goto(`${server.url}?fault=none&renewal=on&ttl_ms=30&work_ms=60000`);
  const scrubber = page.getByTestId('race-scrubber');
  await scrubber.waitFor();
  const events = Number(await scrubber.getAttribute('max')) + 1;
  const result = await page.evaluate(async () => {
    const input = document.querySelector('[data-testid=race-scrubber]');
    const max = Number(input.max);
    const positions = 100;
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
    const started = performance.now();
    const each = [];
    for (let step = 0; step <= positions; step += 1) {
      const before = performance.now();
      input.value = String(Math.round((max * step) / positions));
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await frame();
      each.push(performance.now() - before);
    }
    return { total: performance.now() - started, positions: positions + 1, each };
  });
  await page.close();
  return { events, ...result };
}

/** The frame itself: as many frames as the scrub waits for, on an empty page. */
async function emptyFrames(count) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.setContent('<p>An empty page</p>');
  const each = await page.evaluate(async (count) => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
    await frame();
    const started = performance.now();
    for (let step = 0; step < count; step += 1) await frame();
    return (performance.now() - started) / count;
  }, count);
  await page.close();
  return each;
}

const frames = await framesWhilePlaying();
console.log(`two panes at 16×: p95 frame time ${frames.p95.toFixed(1)} ms over ${frames.count} frames`);
const scrubbed = await scrub();
console.log(
  `scrub across a ${scrubbed.events}-stop trace: ${scrubbed.total.toFixed(0)} ms for ${scrubbed.positions} positions ` +
    `(${(scrubbed.total / scrubbed.positions).toFixed(1)} ms each, a frame included)`,
);
const floor = await emptyFrames(scrubbed.positions);
console.log(`an empty page's frame on this machine now: ${floor.toFixed(1)} ms`);
// A position that missed its frame shows one frame late: count those that
// took more than a frame and a half.
const late = scrubbed.each.filter((ms) => ms > floor * 1.5).length;
console.log(`scrub positions that missed their frame: ${late} of ${scrubbed.positions}`);
await browser.close();
await server.close();
