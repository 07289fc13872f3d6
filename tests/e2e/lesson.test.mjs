// The lesson and its code: every link to a run or a quiz question opens
// what it names; the language switch is remembered; the code downloads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useLab, watchedPage } from './harness.mjs';

const lab = useLab();

test('every quiz and preset link in the lesson opens what it names', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${lab.url}?view=lesson`);
  await page.locator('#lesson-title').waitFor();
  const links = await page.locator('.lesson a[href^="?"]').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')));
  assert.ok(links.length >= 15, `${links.length} links`);
  for (const href of new Set(links)) {
    await page.goto(`${lab.url}${href}`);
    const id = new URLSearchParams(href).get('quiz');
    if (id) {
      await page.getByTestId('question').waitFor();
      assert.equal(await page.getByTestId('question').getAttribute('data-question'), id, href);
    } else {
      await page.locator('.playback').first().waitFor();
      assert.equal(await page.getByTestId('url-notice').count(), 0, `${href} was not understood`);
    }
  }
  assert.deepEqual(problems, []);
});

test('the code panel remembers the language and downloads the file', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${lab.url}?view=lesson`);
  await page.getByTestId('code-python').click();
  assert.match(await page.getByTestId('code-source').textContent(), /def /);
  await page.reload();
  await page.getByTestId('code-source').waitFor();
  assert.equal(await page.getByTestId('code-python').getAttribute('aria-pressed'), 'true');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download fencing.py' }).click()]);
  assert.equal(download.suggestedFilename(), 'fencing.py');
  assert.deepEqual(problems, []);
});

test('the lease sweep shows a longer lease failing at a longer pause', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${lab.url}?view=lesson`);
  const summary = await page.locator('.sweep-summary').textContent();
  assert.match(summary, /With a 10 s lease, every run corrupts the store from a pause of 15 s on; with a 40 s lease, from a pause of 45 s on/);
  assert.equal(await page.locator('.sweep-table tbody tr').count(), 13);
  assert.deepEqual(problems, []);
});
