// The lesson: static pages that read without WebAssembly, opened by an
// introduction with its contents, one URL per section (Back returns), every
// link into the lab opening what it names, runs that play in place, code
// highlighted with the store's check marked, tables that fit a phone, and a
// theme an embed can set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useLab, watchedPage, screenshot } from './harness.mjs';

const lab = useLab();

async function open(path, options = {}) {
  const watched = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 }, ...options });
  await watched.page.goto(`${lab.url}${path}`);
  await watched.page.locator('#lesson-title').waitFor();
  return watched;
}

/** The lesson's pages, from its own contents. */
async function sections(page) {
  return page.locator('nav[aria-label="Lesson contents"] a').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
}

test('the lesson opens with its introduction and contents, and each section has its own URL', async () => {
  const { page, problems } = await open('lesson/index.html');
  assert.match(await page.locator('#lesson-title').textContent(), /Locks, leases and fencing tokens/);
  assert.match(await page.locator('.lesson-lede').textContent(), /cannot keep two workers apart/);
  const pages = await sections(page);
  assert.ok(pages.length >= 9, `${pages.length} sections`);
  assert.equal(await page.locator('.lesson-toc-full li').count(), pages.length - 1, 'the introduction lists every section');
  // Each section is numbered once: by its link's words, not by the list too.
  assert.equal(await page.locator('.lesson-toc-full').evaluate((list) => getComputedStyle(list).listStyleType), 'none');
  assert.match(await page.locator('.lesson-toc-full li').first().innerText(), /^1\. /);
  await page.locator('.lesson-toc-full a').nth(1).click();
  await page.waitForURL(/mechanism\.html$/);
  assert.match(await page.locator('#lesson-title').textContent(), /How it works/);
  assert.equal(await page.locator('nav[aria-label="Lesson contents"] [aria-current=page]').getAttribute('href'), 'mechanism.html');
  await page.locator('a[rel=next]').click();
  await page.waitForURL(/build\.html$/);
  await page.goBack();
  await page.waitForURL(/mechanism\.html$/);
  await page.goBack();
  await page.waitForURL(/lesson\/index\.html$/);
  assert.deepEqual(problems, []);
});

test('a run link leaves the lesson for the lab, and Back returns to the same section', async () => {
  const { page, problems } = await open('lesson/failures.html');
  await page.getByRole('link', { name: /See it run: the GC pause, 10 s lease/ }).click();
  await page.getByTestId('race-play').waitFor();
  assert.match(page.url(), /\?preset=gc-pause/);
  await page.goBack();
  await page.locator('#lesson-title').waitFor();
  assert.match(page.url(), /lesson\/failures\.html$/);
  assert.deepEqual(problems, []);
});

test('every link from the lesson into the lab opens what it names', async () => {
  const { page, problems } = await open('lesson/index.html');
  const links = new Set();
  for (const section of await sections(page)) {
    await page.goto(`${lab.url}lesson/${section}`);
    for (const href of await page.locator('main a[href^="../?"]').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')))) links.add(href);
  }
  assert.ok(links.size >= 20, `${links.size} links`);
  for (const href of links) {
    await page.goto(new URL(href, `${lab.url}lesson/index.html`).href);
    const params = new URLSearchParams(href.split('?')[1]);
    if (params.get('view') === 'quiz') {
      await page.getByTestId('question').waitFor();
      const id = params.get('quiz');
      if (id) assert.equal(await page.getByTestId('question').getAttribute('data-question'), id, href);
    } else if (params.get('view') === 'fleet') {
      // A fleet: its own view, its counters, no notice about its keys.
      await page.getByTestId('fleet-counters').waitFor({ timeout: 120_000 });
      assert.equal(await page.locator('.notice:visible').count(), 0, `${href} was not understood`);
    } else {
      await page.locator('.playback').first().waitFor();
      assert.equal(await page.getByTestId('url-notice').count(), 0, `${href} was not understood`);
    }
  }
  assert.deepEqual(problems, []);
});

test('a run plays in place, inside the lesson', async () => {
  const { page, problems } = await open('lesson/failures.html');
  await page.getByRole('button', { name: '▶ Play it here' }).first().click();
  const frame = page.frameLocator('iframe.lesson-widget').first();
  await frame.getByTestId('race-end').click();
  assert.equal(await frame.getByTestId('race-zombie-writes').textContent(), '1');
  assert.deepEqual(problems, []);
});

test('the prose reads without JavaScript and WebAssembly', async () => {
  const { page, problems, context } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
  await page.goto(`${lab.url}lesson/mechanism.html`);
  assert.match(await page.locator('.lesson-key').textContent(), /safety moves from the lock to the resource/);
  assert.match(await page.locator('main').textContent(), /See it run: the GC pause with fencing off and on/);
  await page.goto(`${lab.url}lesson/code.html`);
  assert.equal(await page.locator('.code-listing').count(), 5, 'every language, one after another');
  await page.goto(`${lab.url}lesson/myths.html`);
  assert.match(
    await page.locator('[data-testid=sweep] .sweep-summary').textContent(),
    /With a 10 s lease, every run corrupts the store from a pause of 15 s on; with a 40 s lease, from a pause of 45 s on/,
  );
  assert.equal(await page.locator('.sweep-table tbody tr').count(), 13);
  // The fleet's rates, written by the model when the site was built.
  assert.match(
    await page.locator('.fleet-summary').textContent(),
    /Quadrupling the lease cut zombie writes from 0\.48 to 0\.09 per 10,000 jobs under this pause shape, and raised the wait after a holder's crash from 10\.692 s to 40\.260 s/,
  );
  assert.equal(await page.locator('[data-testid=fleet-trade] tbody tr').count(), 3);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the code is highlighted, marks the store\'s check, remembers the language and downloads', async () => {
  const { page, problems } = await open('lesson/code.html');
  await page.getByTestId('code-python').click();
  const listing = page.locator('#code-python');
  assert.ok(await listing.isVisible());
  assert.equal(await page.locator('#code-rust').isVisible(), false, 'one language at a time');
  assert.match(await listing.locator('.line.check').first().textContent(), /if token < self\.highest_token:/);
  assert.ok((await listing.locator('.kw').count()) > 20, 'keywords are highlighted');
  const wraps = await listing.locator('pre').evaluate((pre) => pre.scrollWidth <= pre.clientWidth + 1);
  assert.ok(wraps, 'long lines wrap instead of being cut');
  await page.reload();
  assert.equal(await page.getByTestId('code-python').getAttribute('aria-pressed'), 'true');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download fencing.py' }).click()]);
  assert.equal(download.suggestedFilename(), 'fencing.py');
  await screenshot(page, 'lesson-code-1280');
  assert.deepEqual(problems, []);
});

test('on a phone the lesson fits: the tables become cards, nothing scrolls sideways', async () => {
  for (const section of ['index.html', 'tradeoffs.html', 'code.html', 'failures.html']) {
    const { page, problems, context } = await watchedPage(lab.browser, { viewport: { width: 390, height: 844 } });
    await page.goto(`${lab.url}lesson/${section}`);
    await page.locator('#lesson-title').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${section} scrolls sideways by ${overflow}px`);
    if (section === 'tradeoffs.html') {
      // The trade-offs and the token table: each becomes cards.
      for (const table of await page.locator('.lesson-table').all()) {
        const box = await table.boundingBox();
        assert.ok(box.width <= 390, `a table is ${box.width} px wide`);
      }
      await screenshot(page, 'lesson-tradeoffs-390');
    }
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('an embed sets its theme, whatever the reader\'s system says', async () => {
  for (const [theme, scheme, background] of [['dark', 'light', 'rgb(17, 20, 24)'], ['light', 'dark', 'rgb(246, 247, 249)']]) {
    const { page, problems, context } = await watchedPage(lab.browser, { viewport: { width: 832, height: 700 }, colorScheme: scheme });
    for (const path of [`?preset=gc-pause&embed=race&theme=${theme}`, `lesson/index.html?embed=lesson&theme=${theme}`]) {
      await page.goto(`${lab.url}${path}`);
      await page.locator('main').waitFor();
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), theme, path);
      assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor), background, path);
    }
    assert.deepEqual(problems, []);
    await context.close();
  }
});
