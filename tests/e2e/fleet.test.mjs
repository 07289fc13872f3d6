// The fleet view: the default fleet's counters climb to the command line's
// figures for the same link (and so do lease ×4's and fencing's); an
// incident opens its window; the trade draws its charts and says the brief's
// sentence; bad links get notices; the form works from the keyboard; axe at
// 390 and 1280 px, light and dark; the widget alone under the strict CSP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { useLab, watchedPage, screenshot, axeViolations, ROOT, DIST, CSP } from './harness.mjs';

const lab = useLab({ '/lab/': DIST }, { 'content-security-policy': CSP });

/** The command line's figures for a fleet link (the page's own reader parses it there too). */
function cli(link) {
  const out = execFileSync('cargo', ['run', '-q', '--release', '-p', 'fencing-lab', '--', 'fleet', '--link', link, '--json'], { cwd: ROOT });
  return JSON.parse(out.toString());
}

async function open(query, options = {}) {
  const watched = await watchedPage(lab.browser, { viewport: { width: 1280, height: 800 }, ...options });
  await watched.page.goto(`${lab.url}lab/?${query}`);
  await finished(watched.page);
  return watched;
}

/** Waits for the run to end: the live region states the final counters. */
async function finished(page) {
  await page.getByTestId('fleet-status').filter({ hasText: /jobs:/ }).waitFor({ timeout: 120_000 });
}

const count = async (page, id) => Number((await page.getByTestId(id).locator('.count').textContent()).replaceAll(',', ''));

async function figures(page) {
  return {
    zombie: await count(page, 'fleet-zombie'),
    stale: await count(page, 'fleet-stale'),
    rejected: await count(page, 'fleet-rejected'),
    jobs: Number((await page.getByTestId('fleet-jobs').textContent()).replaceAll(',', '')),
  };
}

test('the default fleet, lease ×4 and fencing show the command line\'s figures for the same links', async () => {
  const runs = [];
  for (const link of ['seed=1', 'seed=1&ttl_ms=40000', 'seed=1&fencing=on']) {
    const { page, problems, context } = await open(`view=fleet&${link}`);
    const shown = await figures(page);
    const expected = cli(link);
    assert.deepEqual(shown, { zombie: expected.zombie_writes, stale: expected.stale_overwrites, rejected: expected.rejected_writes, jobs: expected.jobs }, link);
    assert.match(await page.getByTestId('fleet-zombie').textContent(), /per 10,000 jobs \(95 %: /);
    assert.equal(await page.getByTestId('fleet-chart').locator('path.line').count(), 3, 'three series, each a line');
    runs.push(shown);
    assert.deepEqual(problems, []);
    await context.close();
  }
  const [short, long, fenced] = runs;
  assert.ok(short.zombie > long.zombie && long.zombie > 0, `rarer, not impossible: ${short.zombie} then ${long.zombie}`);
  assert.equal(fenced.stale, 0, 'fencing: no stale overwrite');
  assert.ok(fenced.rejected > 0, 'the zombies are rejected instead');
});

test('an incident opens the window around it, replayed from the same run', async () => {
  const { page, problems, context } = await open('view=fleet&seed=1&span_ms=3600000&pauses=custom&median_ms=2000&p99_ms=30000&tail_milli=1000&per_hour=600');
  const picker = page.getByTestId('fleet-incident');
  // Times read one way: moments as "day 1, 00:20:29", lengths as "9.692 s" or "3 min 13 s".
  assert.match(await picker.locator('option').nth(1).textContent(), /^Incident 1 of \d+: [A-Z]+\d* paused (\d+\.\d{3} s|\d+ min( \d+ s)?) at day 1, \d\d:\d\d:\d\d and .* at day 1, \d\d:\d\d:\d\d$/);
  await picker.selectOption('0');
  const story = page.getByTestId('fleet-story');
  await story.waitFor({ timeout: 60_000 });
  // Picking an incident brings its replay into view (issue 42, finding 7).
  await page.waitForFunction(() => {
    const rect = document.querySelector('[data-testid=fleet-story]').getBoundingClientRect();
    return rect.top >= 0 && rect.top < window.innerHeight - 100;
  }, null, { timeout: 15_000 });
  const rows = await story.locator('time').allTextContents();
  assert.ok(rows.every((time) => /^day 1, \d\d:\d\d:\d\d\.\d{3}$/.test(time)), rows.join(' | '));
  assert.doesNotMatch(await story.textContent(), /until \d+\.\d{3} s/, 'no raw moment in the story');
  assert.ok((await story.locator('li').count()) > 3);
  assert.match(await story.textContent(), /paus/, 'the pause is told');
  assert.equal(await story.locator('li.row-zombie').count(), 1, 'the incident\'s write, marked');
  await screenshot(page, 'fleet-incident-1280');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the trade draws both charts, says the brief\'s sentence and lists its runs', async () => {
  const { page, problems, context } = await open('view=fleet&seed=1&span_ms=3600000&pauses=custom&median_ms=2000&p99_ms=30000&tail_milli=1000&per_hour=600');
  await page.getByTestId('fleet-trade-renewal').uncheck();
  await page.getByTestId('fleet-trade-draw').click();
  const sentence = page.getByTestId('fleet-trade-summary');
  await sentence.waitFor({ timeout: 120_000 });
  await page.getByTestId('fleet-trade-draw').and(page.locator(':enabled')).waitFor({ timeout: 120_000 });
  assert.match(await sentence.textContent(), /^Quadrupling the lease cut zombie writes from [\d.]+ to [\d.]+ per 10,000 jobs under this pause shape, and raised the wait after a holder's crash from 10\.692 s to 40\.260 s\. With fencing, 0\.00 stale overwrites/);
  assert.equal(await page.getByTestId('fleet-trade-table').locator('tbody tr').count(), 6, 'five leases and fencing');
  assert.equal(await page.getByTestId('fleet-trade-zombies').locator('.mark').count(), 6);
  assert.equal(await page.getByTestId('fleet-trade-waits').locator('.mark').count(), 6);
  await screenshot(page, 'fleet-trade-1280');
  assert.deepEqual(problems, []);
  await context.close();
});

// How fast it answers is a benchmark figure (bench/fleet.mjs), not a wall clock here.
test('the default fleet\'s trade answers from its shipped rows, and under the bounded shape too, where the lease past the cap reaches zero', async () => {
  const { page, problems, context } = await open('view=fleet&seed=1');
  const bounded = page.getByTestId('fleet-trade-bounded');
  assert.match(await bounded.locator('xpath=..').textContent(), /capped at 4 minutes too \(the longest JVM pause ZOOKEEPER-601 reports/);
  await bounded.check();
  await page.getByTestId('fleet-trade-draw').click();
  await page.getByTestId('fleet-trade-summary').waitFor({ timeout: 30_000 });
  const summary = page.getByTestId('fleet-trade-bounded-summary');
  await summary.waitFor({ timeout: 30_000 });
  assert.match(await page.getByTestId('fleet-trade-summary').textContent(), /under this pause shape/);
  const said = await summary.textContent();
  assert.match(said, /to none at 5 min 20 s, a lease longer than the cap/);
  assert.match(said, /in production no one knows it, so no lease length can promise it/);
  assert.equal(await page.getByTestId('fleet-trade-bounded-zombies').locator('.mark').count(), 6, 'six leases, 10 s to 320 s');
  assert.equal(await page.getByTestId('fleet-trade-shipped').count(), 1, 'the shipped rows say so');
  await summary.scrollIntoViewIfNeeded();
  await screenshot(page, 'fleet-trade-bounded-1280');
  assert.deepEqual(problems, []);
  await context.close();
  // A custom shape has no cited bound: the box says so and cannot be ticked.
  const custom = await open('view=fleet&seed=1&span_ms=3600000&pauses=custom&median_ms=2000&p99_ms=30000&tail_milli=1000&per_hour=600');
  assert.ok(await custom.page.getByTestId('fleet-trade-bounded').isDisabled());
  await custom.context.close();
});

test('a bad fleet link gets notices and the default, and the form works from the keyboard', async () => {
  const { page, problems, context } = await open('view=fleet&workers=999&span_ms=3600000&pauses=earthquake');
  assert.match(await page.locator('.notice').first().textContent(), /ignored workers=999: a fleet has 2 to 64 workers/);
  assert.match(await page.locator('.notice').first().textContent(), /ignored pauses=earthquake/);
  assert.equal(await page.getByTestId('fleet-workers').inputValue(), '16');
  const lease = page.getByTestId('fleet-ttl_ms');
  await lease.focus();
  await lease.fill('40000');
  await page.keyboard.press('Tab');
  await page.waitForURL(/ttl_ms=40000/);
  await finished(page);
  assert.equal(await page.getByTestId('fleet-ttl_ms').inputValue(), '40000');
  await page.getByTestId('fleet-ttl_ms').fill('-5');
  await page.keyboard.press('Tab');
  await page.locator('.notice').filter({ hasText: /ignored ttl_ms=-5/ }).waitFor();
  assert.equal(await page.getByTestId('fleet-ttl_ms').inputValue(), '40000', 'a refused value shows the one kept');
  assert.deepEqual(problems, []);
  await context.close();
});

test('axe finds nothing on the fleet at 390 and 1280 px, light and dark; the widget runs alone under the CSP', async () => {
  for (const scheme of ['light', 'dark']) {
    for (const width of [390, 1280]) {
      const { page, problems, context } = await open('view=fleet&seed=1', { viewport: { width, height: 900 }, colorScheme: scheme });
      await page.getByTestId('fleet-incident').selectOption('0');
      await page.getByTestId('fleet-story').waitFor({ timeout: 120_000 });
      assert.deepEqual(await axeViolations(page), [], `${scheme} ${width}`);
      await screenshot(page, `fleet-${scheme}-${width}`);
      assert.deepEqual(problems, []);
      await context.close();
    }
  }
  const { page, problems, context } = await open('embed=fleet&seed=1&span_ms=3600000&pauses=jvm_full_gc');
  assert.equal(await count(page, 'fleet-zombie'), cli('seed=1&span_ms=3600000&pauses=jvm_full_gc').zombie_writes);
  assert.match(await page.locator('.fleet-incidents .hint').first().textContent(), /No write went wrong in this run\. Not impossible/);
  assert.equal(await page.getByTestId('embed-fleet').count(), 0, 'no Embed button inside a widget');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a fleet link gains its fingerprint once the fleet has run; one made for another fleet says what differs', async () => {
  const small = 'view=fleet&workers=4&span_ms=600000';
  const made = await open(`${small}&seed=1`);
  await made.page.waitForURL(/&fp=/);
  const fingerprint = new URL(made.page.url()).searchParams.get('fp');
  assert.match(fingerprint, /^[0-9a-f]{8}_\d+_\d+\.\d+\.\d+\.\d+_\d+$/);
  assert.equal(await made.page.getByTestId('story-notice').count(), 0, 'its own fleet');
  await made.context.close();
  // The same fingerprint on another seed's link: as if the fleet had changed since.
  const { page, problems, context } = await open(`${small}&seed=2&fp=${fingerprint}`);
  const notice = page.getByTestId('story-notice');
  await notice.waitFor();
  assert.match(await notice.textContent(), /This link was made with an earlier version of the simulator; the run below differs from what its author saw: its author/);
  assert.equal(await page.locator('.notice').filter({ hasText: /Parts of this link could not be used/ }).count(), 0, 'every setting was used');
  await page.waitForURL((url) => url.searchParams.get('fp') !== fingerprint, { timeout: 10_000 });
  await screenshot(page, 'fleet-stale-link-1280');
  assert.deepEqual(problems, []);
  await context.close();
});
