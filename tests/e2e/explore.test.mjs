// "Can this go wrong?": from the race's own build to the explorer and back
// to a race that replays what it found; the claim when nothing breaks; a
// search cancelled halfway while the page keeps drawing; the property
// picked by keyboard; side by side; the widget in an iframe under the
// strict CSP; axe on every state, at 390 and 1280 px, light and dark.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { useLab, watchedPage, screenshot, framesDrawn, DIST, CSP, axeViolations } from './harness.mjs';


// A course page of the test's own, beside the lab, both under the CSP.
const course = await mkdtemp(path.join(tmpdir(), 'fencing-lab-course-'));
after(() => rm(course, { recursive: true, force: true }));
await writeFile(
  path.join(course, 'index.html'),
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Course: can it go wrong?</title></head><body>
<main><h1>Can fencing with a separate INCR go wrong?</h1>
<iframe class="lab" src="/lab/?preset=gc-pause&amp;fencing=on&amp;property=no_stale_overwrite&amp;embed=explore" title="Fencing Lab: Can this go wrong?" width="100%" height="700"></iframe>
</main><script src="/lab/fencing-lab-embed.js" async></script></body></html>`,
);

const lab = useLab({ '/lab/': DIST, '/course/': course }, { 'content-security-policy': CSP });

const text = (page, testid) => page.getByTestId(testid).textContent();

async function open(query, options = {}) {
  const watched = await watchedPage(lab.browser, { viewport: { width: 1280, height: 800 }, ...options });
  await watched.page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective}`));
  });
  await watched.page.goto(`${lab.url}lab/${query ? `?${query}` : ''}`);
  await watched.page.locator('main').waitFor();
  return watched;
}


/** The race's counters at the end of the run on screen. */
async function countersAtEnd(page) {
  await page.getByTestId('race-end').click();
  const ids = ['race-zombie-writes', 'race-stale-overwrites', 'race-rejected-writes', 'race-store-holds'];
  return Promise.all(ids.map((id) => text(page, id)));
}

test('GC pause, fencing on: the search finds one pause before A\'s INCR and opens it as a race with its link and cause chain', async () => {
  const { page, problems } = await open('preset=gc-pause&fencing=on');
  // The race's own build: the button is a link to the full build's explore view.
  const loaded = () => page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name).join(' '));
  assert.doesNotMatch(await loaded(), /fencing-lab-web/, 'the race alone, without the explorer');
  await page.getByRole('link', { name: 'Can this go wrong?' }).click();
  await page.getByTestId('explore-search').waitFor();
  // Issue 42, item 6: after the fencing run, Search is in view at 1280×800.
  const box = await page.getByTestId('explore-search').boundingBox();
  assert.ok(box && box.y + box.height <= 800, `Search in view: ${JSON.stringify(box)}`);
  await screenshot(page, 'explore-search-1280-light');
  assert.match(page.url(), /\?view=explore&preset=gc-pause&seed=1&fencing=on/);
  assert.match(await text(page, 'explore-set-aside'), /own fault is set aside \(A pauses 15000 ms before write 1\)/);
  assert.match(await text(page, 'explore-design'), /SET NX, then INCR \(two round trips\)/);
  assert.equal(await page.getByTestId('explore-property-no_stale_overwrite').isChecked(), true, 'the default property');

  await page.getByTestId('explore-search').click();
  await page.getByTestId('found').waitFor();
  // The race view, on the shrunk schedule: one pause before A's message 2 (its INCR).
  assert.match(page.url(), /\/lab\/\?preset=gc-pause&seed=1&fencing=on&fault=pause:A:send2:\d+/);
  assert.doesNotMatch(page.url(), /view=explore/);
  assert.match(await text(page, 'found-faults'), /^‖A pauses \d+ ms before its message 2$/);
  // One plain sentence first, connecting to the run just seen; then the chain; then the bounds.
  assert.equal(await text(page, 'found-lead'), 'Fencing saved this run: the store refused the stale write. But with the token drawn by a second command (an INCR after the SET), one stop-the-world pause can still break the rule: a stale write overwrites data written under a newer grant.');
  assert.equal(await page.getByTestId('found-chain').locator('li').count() >= 4, true, 'the chain is a numbered list');
  assert.match(await page.getByTestId('found-bounds').locator('li').first().textContent(), /^Pauses of [\d,]+(, [\d,]+)* and [\d,]+ ms, before each of a worker's first 16 messages$/);
  const chain = await text(page, 'found-chain');
  assert.match(chain, /^A froze before its INCR \(its SET already granted\)/);
  assert.match(chain, /B took the lock \(token 33\)/);
  assert.match(chain, /A went on as the holder \(token 34\), though its lease had run out/);
  assert.match(chain, /The store took A's write \(token 34\) over B's newer data$/);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'found-title', 'focus moves to the finding');
  assert.match(await text(page, 'race-faults'), /A pauses \d+ ms before its message 2/, 'the fault is listed with the race');
  const counters = await countersAtEnd(page);
  assert.deepEqual(counters.slice(0, 2), ['1', '1'], 'a zombie write and a stale overwrite');
  assert.match(counters[3], /A's data \(token 34\)/);
  await screenshot(page, 'explore-found-1280-light');

  // Back returns to the search, Forward to the run and its card.
  await page.goBack();
  await page.getByTestId('explore-search').waitFor();
  await page.goForward();
  await page.getByTestId('found').waitFor();
  // The link replays the same run (the race's own build, from scratch).
  await page.goto(page.url().replace(/&cursor=\d+/, ''));
  assert.deepEqual(await countersAtEnd(page), counters);
  assert.deepEqual(problems, []);
});

test('the consensus lock: no schedule breaks it, and the claim says exactly what was searched', async () => {
  const { page, problems } = await open('view=explore&preset=gc-pause&fencing=on&lock=consensus');
  await page.getByTestId('explore-search').click();
  await page.getByTestId('explore-claim').waitFor();
  const claim = await text(page, 'explore-claim');
  assert.match(claim, /^Fencing saved this run: the store refused the stale write\. And none of the \d+ schedules of up to two faults the search tried broke the rule that no write overwrites data written under a newer grant\.$/);
  const bounds = page.getByTestId('explore-bounds').locator('li');
  assert.match(await bounds.first().textContent(), /^Pauses of [\d,]+(, [\d,]+)* and [\d,]+ ms, before each of a worker's first 16 messages \(\d+ schedules\)$/);
  assert.ok((await page.getByTestId('explore-bounds').textContent()).includes('A lock node cut off for'), 'partitions are searched');
  for (const item of await bounds.allTextContents()) assert.ok(item.length <= 140, `a short item: ${item}`);
  assert.match(await page.getByTestId('explore-none').textContent(), /A bounded search, not a proof/);
  const tried = claim.match(/none of the (\d+) schedules/)[1];
  assert.match(await page.getByLabel('Up to two: each alone, then every pair').evaluate((input) => input.parentElement.textContent), new RegExp(`\\(${tried} schedules\\)`), 'the form said how many it would try');
  assert.match(await text(page, 'explore-status'), new RegExp(`Nothing broke the property in ${tried} schedules`), 'the live region narrates');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'explore-result', 'focus moves to the answer');
  assert.equal(page.url().includes('view=explore'), true, 'the page stays on the search');
  assert.deepEqual(problems, []);
});

test('Cancel stops a long search at once, and the page keeps drawing while it runs', async () => {
  // consensus-leader-crash with two faults: the longest search; the CPU is
  // slowed 20× so that it lasts seconds.
  const { page, problems, context } = await open('view=explore&preset=consensus-leader-crash&fencing=on&faults_max=2');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 });
  await page.getByTestId('explore-search').click();
  const bar = page.getByRole('progressbar', { name: 'Schedules explored' });
  await page.waitForFunction(() => Number(document.querySelector('[role=progressbar]')?.getAttribute('aria-valuenow')) > 0);
  const total = Number(await bar.getAttribute('aria-valuemax'));
  const first = Number(await bar.getAttribute('aria-valuenow'));
  assert.ok(first > 0 && first < total, `a partial count is on screen (${first} of ${total}): the search yields between slices`);
  // Frames are drawn while it searches, and it goes on.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.waitForFunction((seen) => Number(document.querySelector('[role=progressbar]')?.getAttribute('aria-valuenow')) > seen, first);
  assert.match(await bar.getAttribute('aria-valuetext'), new RegExp(`^\\d+ of ${total} schedules$`));
  assert.equal(await page.getByTestId('explore-property-mutual_exclusion').isDisabled(), true, 'the question is fixed while it runs');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'explore-cancel', 'focus is on Cancel');

  await page.getByRole('button', { name: 'Cancel' }).click();
  const stopped = await text(page, 'explore-cancelled');
  const [, tried] = stopped.match(/^Cancelled after (\d+) of (\d+) schedules/);
  assert.ok(Number(tried) < total, stopped);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  // A search still running would run a slice between any two of these frames.
  await framesDrawn(page, 20);
  assert.equal(await text(page, 'explore-cancelled'), stopped, 'nothing ran after Cancel');
  assert.equal(await bar.isVisible(), false);
  assert.equal(await page.getByTestId('found').count(), 0);
  assert.equal(await page.getByTestId('explore-claim').count(), 0);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'explore-search', 'focus is back on Search');

  // Escape cancels too.
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 });
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => Number(document.querySelector('[role=progressbar]')?.getAttribute('aria-valuenow')) > 0);
  await page.keyboard.press('Escape');
  assert.match(await text(page, 'explore-cancelled'), /^Cancelled after \d+ of \d+ schedules/);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  assert.deepEqual(problems, []);
});

test('the property is picked by keyboard; a link can pick it, and a bad one gets a notice', async () => {
  const { page, problems } = await open('view=explore&preset=gc-pause&fencing=on&faults_max=1');
  assert.equal(await page.getByTestId('explore-faults-1').isChecked(), true);
  await page.getByTestId('explore-property-no_stale_overwrite').focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.getByTestId('explore-property-mutual_exclusion').isChecked(), true);
  for (let presses = 0; presses < 5; presses += 1) {
    if (await page.evaluate(() => document.activeElement?.dataset.testid === 'explore-search')) break;
    await page.keyboard.press('Tab');
  }
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'explore-search', 'Tab reaches Search');
  await page.keyboard.press('Enter');
  await page.getByTestId('found').waitFor();
  assert.match(await page.getByRole('heading', { level: 2, name: /It can go wrong/ }).textContent(), /It can go wrong: two workers believe they hold the lock at once$/);
  assert.match(await text(page, 'found'), /no two workers believe they hold the lock at once/);

  const linked = await open('view=explore&property=lock_eventually_free');
  assert.equal(await linked.page.getByTestId('explore-property-lock_eventually_free').isChecked(), true);
  const bad = await open('view=explore&property=safety&faults_max=9');
  assert.match(await text(bad.page, 'url-notice'), /ignored property=safety: the properties are no_stale_overwrite, mutual_exclusion/);
  assert.match(await text(bad.page, 'url-notice'), /ignored faults_max=9: a schedule holds 1 or 2 faults/);
  assert.equal(await bad.page.getByTestId('explore-property-no_stale_overwrite').isChecked(), true, 'the default stands in');
  assert.deepEqual([...problems, ...linked.problems, ...bad.problems], []);
});

test('side by side: each pane\'s design can be searched', async () => {
  const { page, problems } = await open('view=compare&preset=gc-pause&compare=fencing');
  await page.getByTestId('compare-explore-right').click();
  await page.getByTestId('explore-search').waitFor();
  assert.match(await text(page, 'explore-design'), /Fencingon/);
  await page.goBack();
  await page.getByTestId('compare-explore-left').click();
  await page.getByTestId('explore-search').waitFor();
  assert.match(await text(page, 'explore-design'), /Fencingoff/);
  assert.deepEqual(problems, []);
});

test('embed=explore: the widget searches inside an iframe under the strict CSP, plays what it finds, and reports its height', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective}`));
  });
  const frameErrors = [];
  page.on('console', (message) => message.type() === 'error' && frameErrors.push(message.text()));
  await page.goto(`${lab.url}course/index.html`);
  const widget = page.frameLocator('iframe.lab');
  await widget.getByTestId('explore-search').click();
  await widget.getByTestId('found').waitFor();
  assert.match(await widget.getByTestId('found-chain').textContent(), /A froze before its INCR/);
  assert.match(await widget.getByTestId('found-link').getAttribute('href'), /^\.\/\?preset=gc-pause&seed=1&fencing=on&fault=pause:A:send2:\d+&fp=[0-9a-f]{8}_[^&]+$/);
  await widget.getByTestId('race-end').click();
  assert.equal(await widget.getByTestId('race-stale-overwrites').textContent(), '1');
  assert.equal(await widget.locator('.site-header').count(), 0, 'an embed shows only its widget');
  assert.equal(await widget.getByTestId('race-explore').isVisible(), false, 'no way out of the frame but its own link');
  const frame = page.locator('iframe.lab');
  await page.waitForFunction(() => Number(document.querySelector('iframe.lab').dataset.fencingLabHeight) > 700);
  const inner = await (await frame.elementHandle()).contentFrame();
  const content = await inner.evaluate(() => document.documentElement.scrollHeight);
  const reported = Number(await frame.getAttribute('data-fencing-lab-height'));
  assert.ok(Math.abs(reported - content) <= 2, `height ${reported} vs content ${content}`);
  await screenshot(page, 'explore-embedded-1280');
  assert.deepEqual([...problems, ...frameErrors], []);
});

test('embed=race keeps the learner in its frame: no link to the search', async () => {
  const { page, problems } = await open('preset=gc-pause&embed=race');
  await page.getByTestId('race-play').waitFor();
  assert.equal(await page.getByTestId('race-explore').isVisible(), false);
  assert.deepEqual(problems, []);
});

test('the Embed button writes an embed=explore snippet with the design and the property', async () => {
  const { page, problems } = await open('view=explore&preset=naive-del&fencing=on');
  await page.getByTestId('explore-property-mutual_exclusion').check();
  await page.getByTestId('embed-explore').click();
  const code = await page.getByTestId('embed-explore-code').inputValue();
  assert.match(code, /<iframe src="http:\/\/127\.0\.0\.1:\d+\/lab\/\?view=explore&preset=naive-del&seed=1[^"]*&property=mutual_exclusion&faults_max=2&embed=explore"/);
  await page.frameLocator('.embed-preview').getByTestId('explore-search').waitFor();
  assert.deepEqual(problems, []);
});

for (const width of [390, 1280]) {
  for (const scheme of ['light', 'dark']) {
    test(`axe finds nothing on the search, its claim, a found run and the widget at ${width} px, ${scheme}; touch targets are 44 px`, async () => {
      const options = { viewport: { width, height: width === 390 ? 844 : 800 }, colorScheme: scheme, reducedMotion: 'reduce', hasTouch: width === 390, isMobile: width === 390 };
      const found = [];
      const check = async (name, page) => found.push(...(await axeViolations(page)).map((violation) => `${name}: ${violation}`));
      const search = await open('view=explore&preset=gc-pause&fencing=on&lock=consensus', options);
      await check('search', search.page);
      await screenshot(search.page, `explore-${width}-${scheme}`);
      if (width === 390) {
        const small = await search.page.$$eval('#explore button, #explore a.button, #explore label.option', (nodes) =>
          nodes.filter((node) => node.offsetParent && node.getBoundingClientRect().height < 44).map((node) => node.outerHTML.slice(0, 80)));
        assert.deepEqual(small, [], 'every tap target is at least 44 px tall');
      }
      await search.page.getByTestId('explore-search').click();
      await search.page.getByTestId('explore-claim').waitFor();
      await check('claim', search.page);
      await screenshot(search.page, `explore-claim-${width}-${scheme}`);
      const run = await open('view=explore&preset=gc-pause&fencing=on', options);
      await run.page.getByTestId('explore-search').click();
      await run.page.getByTestId('found').waitFor();
      await check('found', run.page);
      await screenshot(run.page, `explore-found-${width}-${scheme}`);
      const widget = await open('preset=gc-pause&fencing=on&embed=explore', options);
      await widget.page.getByTestId('explore-search').click();
      await widget.page.getByTestId('found').waitFor();
      await check('widget', widget.page);
      found.push(...search.problems, ...run.problems, ...widget.problems);
      assert.deepEqual(found, []);
    });
  }
}
