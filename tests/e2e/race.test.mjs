// A person's path through the release build: play the classic race, step
// back past the zombie write and forward again, turn fencing on, inject a
// pause by clicking during playback, share a link, compare side by side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useLab, watchedPage, screenshot } from './harness.mjs';

const lab = useLab();

const text = (page, testid) => page.getByTestId(testid).textContent();

async function open(query = '', options = {}) {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 }, ...options });
  await page.goto(lab.url + (query ? `?${query}` : ''));
  await page.getByRole('heading', { name: 'Fencing Lab' }).waitFor();
  return { page, problems };
}

/** Presses a key until the check passes (bounded), returning the presses. */
async function pressUntil(page, key, check, most = 200) {
  for (let presses = 0; presses < most; presses += 1) {
    if (await check()) return presses;
    await page.keyboard.press(key);
  }
  throw new Error(`pressed ${key} ${most} times and the page never got there`);
}

test('playing the classic race ends with the zombie write; stepping back undoes it on screen', async () => {
  const { page, problems } = await open();
  assert.equal(await text(page, 'race-zombie-writes'), '0');
  await page.getByLabel('Speed').selectOption({ label: '16× (faster)' });
  await page.getByTestId('race-play').click();
  await page.getByText("A's stale write (token 33) overwrote B's newer data (token 34)").waitFor({ timeout: 20_000 });
  assert.equal(await text(page, 'race-zombie-writes'), '1');
  assert.equal(await text(page, 'race-stale-overwrites'), '1');
  assert.match(await text(page, 'race-store-holds'), /A's data \(token 33\)/);
  await page.getByTestId('race-before-after').waitFor();
  await screenshot(page, 'race-end-1280-light');

  // Keyboard: step back until the zombie write is undone, then forward again.
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  const back = await pressUntil(page, 'ArrowLeft', async () => (await text(page, 'race-zombie-writes')) === '0');
  assert.ok(back > 0);
  assert.match(await text(page, 'race-store-holds'), /B's data \(token 34\)/);
  await page.keyboard.press('ArrowRight');
  assert.equal(await text(page, 'race-zombie-writes'), '1');
  assert.deepEqual(problems, []);
});

test('with fencing on the store rejects the same write', async () => {
  const { page, problems } = await open();
  await page.getByTestId('race-scenario-summary').click();
  await page.getByLabel('Fencing (the store checks tokens)').check();
  await page.getByTestId('race-end').click();
  assert.equal(await text(page, 'race-zombie-writes'), '0');
  assert.equal(await text(page, 'race-rejected-writes'), '1');
  assert.match(await text(page, 'race-verdict'), /A's stale write was rejected: token 33 < 34 already accepted/);
  assert.match(await text(page, 'race-events'), /Store rejected A's write: token 33 < 34 already accepted/);
  assert.match(page.url(), /fencing=on/, 'the URL carries the change');
  assert.deepEqual(problems, []);
});

test('a pause injected by clicking during playback makes the zombie write appear', async () => {
  // No faults, and A works 3 s before writing: nothing goes wrong by itself.
  const { page, problems } = await open('fault=none&work_ms=3000');
  await page.getByTestId('race-end').click();
  assert.equal(await text(page, 'race-zombie-writes'), '0');
  await page.getByTestId('race-back').click();
  await page.keyboard.press('Home');
  await pressUntil(page, 'ArrowRight', async () => /A holds the lock with token 33/.test(await text(page, 'race-events')));
  await page.getByTestId('race-pause-A').click();
  await page.getByTestId('race-end').click();
  assert.equal(await text(page, 'race-zombie-writes'), '1');
  assert.match(await text(page, 'race-events'), /A froze in a stop-the-world pause of 15\.000 s/);
  assert.deepEqual(problems, []);
});

test('a copied link reproduces the counters and the cursor', async () => {
  const { page, problems } = await open('preset=naive-del');
  await page.getByTestId('race-end').click();
  for (let step = 0; step < 6; step += 1) await page.getByTestId('race-back').click();
  await page.getByTestId('race-copy-link').click();
  const link = page.url();
  const counters = ['race-zombie-writes', 'race-violations', 'race-stale-overwrites'];
  const seen = await Promise.all(counters.map((id) => text(page, id)));
  const position = await page.locator('.position').textContent();

  const fresh = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  await fresh.page.goto(link);
  await fresh.page.getByTestId('race-play').waitFor();
  assert.deepEqual(await Promise.all(counters.map((id) => text(fresh.page, id))), seen);
  assert.equal(await fresh.page.locator('.position').textContent(), position);
  assert.deepEqual([...problems, ...fresh.problems], []);
});

test('a garbage URL shows a notice and the default scenario', async () => {
  const { page, problems } = await open('preset=nope&ttl_ms=abc&zzz=%ff&workers=500');
  await page.getByTestId('url-notice').waitFor();
  assert.match(await text(page, 'url-notice'), /ttl_ms=abc/);
  assert.equal(await page.getByLabel('Preset').inputValue(), 'gc-pause');
  await page.getByTestId('race-end').click();
  assert.equal(await text(page, 'race-zombie-writes'), '1');
  assert.deepEqual(problems, []);
});

test('side by side: one zombie write on the left, one rejected write on the right', async () => {
  const { page, problems } = await open('compare=fencing');
  await page.getByTestId('compare-named').waitFor();
  assert.match(await text(page, 'compare-named'), /Fencing off vs on/);
  await page.getByTestId('compare-end').click();
  assert.equal(await text(page, 'left-zombie-writes'), '1');
  assert.equal(await text(page, 'right-rejected-writes'), '1');
  assert.match(await text(page, 'left-verdict'), /overwrote B's newer data/);
  assert.match(await text(page, 'right-verdict'), /rejected: token 33 < 34/);
  await screenshot(page, 'compare-end-1280-light');
  assert.deepEqual(problems, []);
});

for (const [width, scheme] of [[390, 'light'], [390, 'dark'], [1280, 'dark']]) {
  test(`the race and the comparison fit ${width} px in ${scheme}`, async () => {
    for (const query of ['', 'compare=fencing']) {
      const { page, problems } = await open(query, { viewport: { width, height: 844 }, colorScheme: scheme });
      // The heading is the static page's; the End key works once the playback bar is mounted.
      await page.getByTestId(query ? 'compare-end' : 'race-end').waitFor();
      await page.keyboard.press('End');
      await page.locator('.verdict:not(.pending)').first().waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at ${width}px`);
      await screenshot(page, `${query ? 'compare' : 'race'}-end-${width}-${scheme}`);
      assert.deepEqual(problems, []);
    }
  });
}

test('the theme switch overrides the system and is remembered', async () => {
  const { page, problems } = await open('', { colorScheme: 'light' });
  await page.getByLabel('Theme').selectOption('dark');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  const background = () => page.evaluate(() => getComputedStyle(document.body.parentElement).backgroundColor);
  assert.equal(await background(), 'rgb(17, 20, 24)');
  await page.reload();
  await page.getByLabel('Theme').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  assert.deepEqual(problems, []);
});

test('the trace downloads as the command line JSON and the diagram as SVG', async () => {
  const { page, problems } = await open();
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download trace (JSON)' }).click()]);
  const trace = JSON.parse(await readStream(await json.createReadStream()));
  assert.equal(trace.summary.zombie_writes, 1);
  assert.deepEqual(trace.summary.final_store, { writer: 'A', token: 33 });
  const [svg] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download diagram (SVG)' }).click()]);
  const markup = await readStream(await svg.createReadStream());
  assert.match(markup, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(markup, /<style>/);
  assert.deepEqual(problems, []);
});

async function readStream(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

test('on a phone the scenario controls fold into a one-line summary, and open on demand', async () => {
  const { page, problems } = await open('preset=lease-x4&fencing=on', { viewport: { width: 390, height: 844 } });
  const summary = page.getByTestId('race-scenario-summary');
  assert.equal((await summary.textContent()).replace(/\u00a0/g, ' '), 'Scenario: Quadrupled lease · fencing on · lease 40 s · seed 1');
  assert.equal(await page.getByLabel('Lease TTL (ms)').isVisible(), false, 'folded on a phone');
  await summary.click();
  assert.equal(await page.getByLabel('Lease TTL (ms)').inputValue(), '40000');
  assert.deepEqual(problems, []);
});
