// The fleet view's speed in the browser, as a learner runs it: the release
// build's fleet view, the time from the run's start mark to its last slice
// (the page's own performance measure: slices and the gaps between them,
// so what the learner waits), and the trade's. Headless Chromium on
// loopback; the native figures are the model's bench's. Figures, not a test.
//
// node bench/fleet.mjs   (after trunk build --release)
import { serve, launch } from '../tests/e2e/harness.mjs';

const FLEETS = [
  ['one simulated hour, 16 workers, JVM pauses', 'span_ms=3600000&pauses=jvm_full_gc'],
  ['the default: a simulated day, 16 workers, throttled containers', ''],
];
// About 10,000 jobs a run (16 workers do 15,125 in an hour): the trade's
// eleven runs (five leases, five with renewal, fencing) are each that long.
const TRADE = ['the trade, 11 runs of about 10,000 jobs each', 'span_ms=2400000&pauses=jvm_full_gc'];

const measure = (page, name) => page.evaluate((wanted) => performance.getEntriesByName(wanted).at(-1)?.duration, name);

async function open(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.getByTestId('fleet-status').filter({ hasText: /jobs:/ }).waitFor({ timeout: 300_000 });
  return page;
}

const server = await serve();
const browser = await launch();
console.log('fleet view in the browser (release build, headless Chromium):');
for (const [label, query] of FLEETS) {
  const page = await open(browser, `${server.url}?view=fleet&seed=1&${query}`);
  const jobs = await page.getByTestId('fleet-jobs').textContent();
  console.log(`  ${label}: ${((await measure(page, 'fencing-lab-fleet')) / 1000).toFixed(3)} s (${jobs} jobs)`);
  await page.close();
}
const page = await open(browser, `${server.url}?view=fleet&seed=1&${TRADE[1]}`);
const jobs = await page.getByTestId('fleet-jobs').textContent();
await page.getByTestId('fleet-trade-draw').click();
await page.getByTestId('fleet-trade-table').waitFor({ state: 'attached', timeout: 300_000 });
await page.getByTestId('fleet-trade-draw').and(page.locator(':enabled')).waitFor({ timeout: 300_000 });
console.log(`  ${TRADE[0]} (${jobs} jobs at the first lease): ${((await measure(page, 'fencing-lab-fleet-trade')) / 1000).toFixed(3)} s`);
await browser.close();
await server.close();
