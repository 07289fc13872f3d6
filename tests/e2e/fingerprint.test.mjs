// Links that keep their story (issue 27): every link the page writes of a
// run carries that run's fingerprint (fp=); a link made before the model
// changed (here: a link made for a 12 s lease, read as the 10 s preset it
// names, as if the preset had been retimed since) opens with a notice that
// names the first difference; a question whose run changed is not put to
// learners.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useLab, watchedPage, screenshot, axeViolations } from './harness.mjs';

const lab = useLab();

async function open(query, viewport = { width: 1280, height: 900 }) {
  const watched = await watchedPage(lab.browser, { viewport });
  await watched.page.goto(`${lab.url}?${query}`);
  await watched.page.locator('main').waitFor();
  return watched;
}

/** The fingerprint the page writes into its own URL for a link. */
async function fingerprintOf(query) {
  const { page, context } = await open(query);
  await page.getByTestId('race-play').waitFor();
  await page.waitForURL(/fp=/);
  const fingerprint = new URL(page.url()).searchParams.get('fp');
  await context.close();
  return fingerprint;
}

/** The question links' checksum (sim/src/ask.rs): 32-bit FNV-1a of the signed part. */
function checksum(text) {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

test('a link made now opens without a notice, and the page writes its fingerprint', async () => {
  const fingerprint = await fingerprintOf('preset=gc-pause');
  assert.match(fingerprint, /^[0-9a-f]{8}_A-33\.B-34_1\.1\.0\.2_A-33_\d+\.\d+$/, 'A and B drew 33 and 34; one zombie write, one stale overwrite');
  const { page, problems, context } = await open(`preset=gc-pause&fp=${fingerprint}`);
  await page.getByTestId('race-play').waitFor();
  assert.equal(await page.getByTestId('story-notice').count(), 0);
  assert.equal(await page.getByTestId('url-notice').count(), 0);
  // Fencing on is another run: the URL's fingerprint follows it.
  await page.getByTestId('race-scenario-summary').click();
  await page.getByLabel('Fencing (the store checks tokens)').check();
  await page.waitForURL(/fencing=on/);
  assert.match(new URL(page.url()).searchParams.get('fp'), /_0\.0\.1\.2_A-35_/, 'A\'s write refused; its job retried under token 35');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a link made before a preset changed says so, names the first difference, and still shows the run', async () => {
  const then = await fingerprintOf('preset=gc-pause&ttl_ms=12000');
  for (const [query, name, viewport] of [
    [`preset=gc-pause&fp=${then}`, 'stale-link-1280', { width: 1280, height: 900 }],
    [`preset=gc-pause&embed=race&fp=${then}`, 'stale-link-embed-390', { width: 390, height: 844 }],
  ]) {
    const { page, problems, context } = await open(query, viewport);
    await page.getByTestId('race-play').waitFor();
    const notice = page.getByTestId('story-notice');
    await notice.waitFor();
    const words = await notice.textContent();
    assert.match(words, /This link was made with an earlier version of the simulator; the run below differs from what its author saw: its author's run had \d+ events and ended at [\d.]+ s; this one has \d+ and ends at [\d.]+ s\./, words);
    assert.equal(await notice.getAttribute('role'), 'status', 'read out by a screen reader');
    assert.equal(await page.getByTestId('url-notice').count(), 0, 'every setting was used: only the story differs');
    assert.match(await page.getByTestId('race-scenario-summary').textContent(), /GC pause/, 'the run it names is shown');
    await screenshot(page, name);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('a question whose run changed since it was made is not put to learners', async () => {
  const then = await fingerprintOf('preset=gc-pause&ttl_ms=12000');
  const signed = `preset=gc-pause&seed=1&fp=${then}&ask=token:B`;
  const { page, problems, context } = await open(`${signed}&sum=${checksum(signed)}`);
  const notice = page.getByTestId('ask-notice');
  await notice.waitFor();
  assert.match(await notice.textContent(), /this question was made with an earlier version of the simulator, and its run has changed since \(its author's run had \d+ events.*\), so it is not put to learners/);
  assert.equal(await page.locator('[data-testid=question][data-question^=ask-]').count(), 0, 'the instructor\'s question is not asked');
  // The same question made now is asked.
  const now = `preset=gc-pause&seed=1&fp=${await fingerprintOf('preset=gc-pause')}&ask=token:B`;
  await page.goto(`${lab.url}?${now}&sum=${checksum(now)}`);
  await page.locator('[data-testid=question][data-question^=ask-]').waitFor();
  assert.equal(await page.getByTestId('ask-notice').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});
