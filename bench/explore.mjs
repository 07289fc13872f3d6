// "Can this go wrong?" in the browser, as a learner runs it: the release
// build's explore view for each preset's design (fencing on,
// no_stale_overwrite, up to two faults), Search clicked, and the time from
// the click's start mark to the answer (the page's own performance measure:
// the slices and the gaps between them, so what the learner waits), with
// schedules per second. Headless Chromium on loopback. Figures, not a test.
//
// node bench/explore.mjs [--runs N]   (after trunk build --release)
import { serve, launch } from '../tests/e2e/harness.mjs';

const args = process.argv.slice(2);
const RUNS = Number(args.includes('--runs') ? args[args.indexOf('--runs') + 1] : 3);
const PRESETS = [
  'gc-pause', 'lease-x4', 'renewal', 'check-then-write', 'delayed-write', 'holder-crash', 'naive-del',
  'redis-failover', 'redlock-clock-jump', 'token-inversion', 'consensus-leader-crash', 'consensus-gc-pause', 'no-lock-version',
];

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One search: its wall-clock time and the schedules it tried. */
async function searchOnce(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.getByTestId('explore-search').click();
  // A counterexample opens the race with its card; none leaves the claim.
  const answer = page.locator('[data-testid=found]:not([hidden]), [data-testid=explore-claim]');
  await answer.first().waitFor({ timeout: 60_000 });
  const text = await answer.first().textContent();
  const ms = await page.evaluate(() => performance.getEntriesByName('fencing-lab-explore').at(-1)?.duration);
  const tried = Number((text.match(/tried (\d+) schedules|in (\d+) tried/) ?? []).slice(1).find(Boolean));
  const found = /It can go wrong/.test(text);
  await page.close();
  return { ms, tried, found };
}

const server = await serve();
const browser = await launch();
console.log(`explorer in the browser (release build, headless Chromium, median of ${RUNS}): fencing on, no_stale_overwrite, up to two faults`);
console.log(`${'preset'.padEnd(24)} ${'answer'.padEnd(15)} ${'schedules'.padStart(9)} ${'ms'.padStart(7)} ${'schedules/s'.padStart(12)}`);
let slowest = { ms: 0 };
for (const id of PRESETS) {
  const url = `${server.url}?view=explore&preset=${id}&fencing=on&property=no_stale_overwrite&faults_max=2`;
  const runs = [];
  for (let run = 0; run < RUNS; run += 1) runs.push(await searchOnce(browser, url));
  const ms = median(runs.map((run) => run.ms));
  const { tried, found } = runs[0];
  if (ms > slowest.ms) slowest = { id, ms, tried };
  const answer = found ? 'counterexample' : 'none';
  console.log(`${id.padEnd(24)} ${answer.padEnd(15)} ${String(tried).padStart(9)} ${ms.toFixed(0).padStart(7)} ${(tried / (ms / 1000)).toFixed(0).padStart(12)}`);
}
console.log(`slowest: ${slowest.id}, ${slowest.tried} schedules in ${slowest.ms.toFixed(0)} ms`);
await browser.close();
await server.close();
