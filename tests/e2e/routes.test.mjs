// The page keeps what the learner did (issue 12): every view has its own
// URL, Back goes back, edits survive a look at another view, the pause
// length is the scenario's own, a delayed write leaves the past alone, and
// a link with too many settings says what it ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { framesDrawn, useLab, watchedPage } from './harness.mjs';

const lab = useLab();

async function open(query = '', options = {}) {
  const watched = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 }, ...options });
  await watched.page.goto(`${lab.url}${query ? `?${query}` : ''}`);
  await watched.page.locator('main').waitFor();
  return watched;
}

test('every view has its own URL, and Back and Forward move between them', async () => {
  const { page, problems } = await open('preset=naive-del');
  await page.getByTestId('race-play').waitFor();
  assert.match(page.url(), /\?preset=naive-del&seed=1/);
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-named').waitFor();
  assert.match(page.url(), /view=compare.*preset=naive-del.*compare=fencing/);
  await page.getByTestId('tab-quiz').click();
  await page.getByTestId('question').waitFor();
  assert.match(page.url(), /view=quiz/);
  await page.locator('.quiz-dots a').nth(2).click();
  await page.waitForURL(/quiz=/);
  const third = await page.getByTestId('question').getAttribute('data-question');
  assert.match(page.url(), new RegExp(`quiz=${third}`));
  await page.getByTestId('tab-lesson').click();
  await page.locator('#lesson-title').waitFor();
  assert.match(page.url(), /lesson\/index\.html$/);

  await page.goBack();
  await page.getByTestId('question').waitFor();
  assert.equal(await page.getByTestId('question').getAttribute('data-question'), third);
  await page.goBack();
  await page.getByTestId('question').waitFor();
  await page.goBack();
  await page.getByTestId('compare-named').waitFor();
  assert.match(await page.getByTestId('compare-named').textContent(), /Fencing off vs on/);
  await page.goBack();
  await page.getByTestId('race-play').waitFor();
  assert.match(await page.getByTestId('race-scenario-summary').textContent(), /Naive DEL release/);
  await page.goForward();
  await page.getByTestId('compare-named').waitFor();
  assert.deepEqual(problems, []);
});

test('edits to the scenario survive a look at the quiz and the comparison', async () => {
  const { page, problems } = await open('preset=gc-pause');
  await page.getByTestId('race-scenario-summary').click();
  await page.getByLabel('Fencing (the store checks tokens)').check();
  await page.getByLabel('Lease TTL (ms)').fill('12000');
  await page.getByLabel('Lease TTL (ms)').press('Enter');
  await page.getByLabel('Lease TTL (ms)').blur();
  await page.waitForURL(/ttl_ms=12000/);
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-named').waitFor();
  assert.match(page.url(), /fencing=on/);
  assert.match(page.url(), /ttl_ms=12000/);
  await page.getByTestId('tab-quiz').click();
  await page.getByTestId('question').waitFor();
  await page.getByTestId('tab-race').click();
  await page.getByTestId('race-play').waitFor();
  assert.match(await page.getByTestId('race-scenario-summary').textContent(), /fencing on · lease\s12\ss/);
  assert.deepEqual(problems, []);
});

test('a preset brings its own pause length, and a pause added afterwards has it', async () => {
  const { page, problems } = await open('preset=gc-pause');
  await page.getByTestId('race-scenario-summary').click();
  assert.equal(await page.getByTestId('race-pause').inputValue(), '15000');
  await page.locator('#race-preset').selectOption('token-inversion');
  assert.equal(await page.getByTestId('race-pause').inputValue(), '12000', 'the field follows the preset');
  await page.getByTestId('race-forward').click();
  await page.getByTestId('race-pause-B').click();
  assert.match(await page.getByTestId('race-faults').textContent(), /B pauses 12000 ms, right after event \d+/);
  await page.getByTestId('race-end').click();
  assert.match(await page.getByTestId('race-events').textContent(), /B froze[^.]*12\.000 s/);
  assert.deepEqual(problems, []);
});

test('"Delay A\'s next write" at the cursor leaves every event before the cursor as it was', async () => {
  const { page, problems } = await open('preset=token-inversion');
  // Step to just after A's first write: its second is still to come.
  // The retries' switch is in the run's details, under the picture.
  await page.locator('[data-testid=race-details] > summary').click();
  await page.getByLabel('Show retries and refused attempts').check();
  const writes = () => page.locator('[data-testid=race-write-log] li').count();
  for (let steps = 0; steps < 400 && (await page.getByTestId('race-write-log').textContent()).match(/A's/g)?.length !== 1; steps += 1) {
    await page.getByTestId('race-forward').click();
  }
  assert.equal(await writes() >= 1, true);
  const before = await page.getByTestId('race-events').textContent();
  const position = await page.getByTestId('race-scrubber').inputValue();
  await page.getByTestId('race-delay-A').click();
  assert.match(await page.getByTestId('race-faults').textContent(), /A's write 2 is held/);
  assert.equal(await page.getByTestId('race-scrubber').inputValue(), position);
  assert.equal(await page.getByTestId('race-events').textContent(), before, 'the past is unchanged');
  assert.deepEqual(problems, []);
});

test('a link with 70 settings says it ignored the last ones', async () => {
  const { page, problems } = await open('ttl_ms=5000&'.repeat(70));
  await page.getByTestId('url-notice').waitFor();
  assert.match(await page.getByTestId('url-notice').textContent(), /ignored the last 6 setting/);
  assert.match(await page.getByTestId('race-scenario-summary').textContent(), /lease\s5\ss/);
  assert.deepEqual(problems, []);
});

/** The builds whose wasm the page downloaded, by name (race, quiz, web, teach). */
async function buildsLoaded(page) {
  const names = await page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name));
  return names.map((name) => name.match(/fencing-lab-(\w+)_bg\.wasm/)?.[1]).filter(Boolean);
}

test('a page load starts the one build that draws the link\'s view, as the app reads the link', async () => {
  // Each view's mark, and links that name views twice (the app reads the last
  // view named, and "quiz" never overrides one named before it).
  const cases = [
    ['', 'race-play', 'race'],
    ['view=quiz', 'question', 'quiz'],
    ['quiz=nfs&embed=quiz', 'question', 'quiz'],
    ['embed=quiz&view=race', 'race-play', 'race'],
    ['view=race&view=compare', 'compare-named', 'compare'],
    ['view=compare&view=quiz', 'compare-named', 'compare'],
    ['quiz=gc-pause&view=compare', 'compare-named', 'compare'],
    ['compare=renewal&embed=compare', 'compare-named', 'compare'],
    ['view=explore', 'explore-search', 'web'],
  ];
  for (const [query, mark, build] of cases) {
    const { page, problems, context } = await open(query);
    let loads = 0;
    page.on('load', () => (loads += 1));
    await page.getByTestId(mark).first().waitFor();
    await framesDrawn(page, 4);
    assert.deepEqual(await buildsLoaded(page), [build], `?${query}`);
    assert.equal(loads, 0, `?${query}: the page did not load itself again`);
    assert.deepEqual(problems, [], `?${query}`);
    await context.close();
  }
});

test('a link the loader reads otherwise than the app goes once to the view\'s own link, never round and round', async () => {
  // `?compare` without a value: the loader starts side by side's build, the
  // app reads the race (it names no difference), so the page goes to the race's link.
  const { page, problems } = await open('compare');
  await page.getByTestId('race-play').waitFor();
  assert.match(page.url(), /\?preset=gc-pause&seed=1&.*fp=/);
  assert.doesNotMatch(page.url(), /compare/);
  let loads = 0;
  page.on('load', () => (loads += 1));
  await framesDrawn(page, 4);
  assert.equal(loads, 0);
  assert.deepEqual(await buildsLoaded(page), ['race']);
  assert.deepEqual(problems, []);
});

test('the quiz has a build of its own: its questions move in place, and the race\'s tab leaves for the race\'s build', async () => {
  const { page, problems } = await open('view=quiz');
  await page.getByTestId('question').waitFor();
  await page.locator('.quiz-dots a').nth(1).click();
  await page.waitForURL(/quiz=/);
  await page.getByTestId('question').waitFor();
  assert.deepEqual(await buildsLoaded(page), ['quiz'], 'the next question without a new build');
  await page.getByTestId('tab-race').click();
  await page.getByTestId('race-play').waitFor();
  assert.deepEqual(await buildsLoaded(page), ['race']);
  assert.deepEqual(problems, []);
});

test('a host without the quiz\'s or side by side\'s build (a SCORM package carries the full one) starts the full build for their links', async () => {
  const { page, problems } = await open();
  await page.route(/fencing-lab-(quiz|compare)/, (route) => route.fulfill({ status: 404, body: 'not here' }));
  await page.goto(`${lab.url}?view=quiz&quiz=nfs`);
  await page.getByTestId('question').waitFor();
  assert.equal(await page.getByTestId('question').getAttribute('data-question'), 'nfs');
  assert.ok((await buildsLoaded(page)).includes('web'), 'the full build drew the quiz');
  assert.equal(await page.getByRole('alert').filter({ hasText: 'could not start' }).count(), 0);
  await page.goto(`${lab.url}?view=compare&compare=renewal`);
  await page.getByTestId('compare-named').waitFor();
  assert.ok((await buildsLoaded(page)).includes('web'), 'the full build drew side by side');
  // The missing files are the only complaints.
  assert.deepEqual(problems.filter((problem) => !/404/.test(problem)), []);
});
