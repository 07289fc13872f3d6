// Median time from navigation start to the mounted page (the app's
// "fencing-lab-mounted" performance mark), over 10 fresh loads.
import { serve, launch } from '../tests/e2e/harness.mjs';

const RUNS = 10;
const server = await serve();
const browser = await launch();
const times = [];
for (let run = 0; run < RUNS; run += 1) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => performance.getEntriesByName('fencing-lab-mounted').length > 0);
  times.push(await page.evaluate(() => performance.getEntriesByName('fencing-lab-mounted')[0].startTime));
  await context.close();
}
await browser.close();
await server.close();
times.sort((a, b) => a - b);
const median = (times[RUNS / 2 - 1] + times[RUNS / 2]) / 2;
console.log(`navigation to mounted: median ${median.toFixed(1)} ms over ${RUNS} loads (min ${times[0].toFixed(1)}, max ${times[RUNS - 1].toFixed(1)})`);
