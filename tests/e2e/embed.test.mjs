// An instructor's course page, hosted on a subpath by a server that sends
// the documented Content-Security-Policy, embedding four widgets: each
// loads, works inside its frame, and grows to fit its content; the quizzes
// report answers to the page's gradebook, and only to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { useLab, watchedPage, screenshot, messagesFlushed, DIST, ROOT, CSP } from './harness.mjs';

const lab = useLab({ '/lab/': DIST, '/course/': path.join(ROOT, 'examples') }, { 'content-security-policy': CSP });

/** A page that also records every CSP violation, in any frame. */
async function cspWatchedPage() {
  const watched = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  await watched.page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return watched;
}

test('the course page embeds four working widgets under a strict CSP, each showing what its sentence says and sized to its content', async () => {
  const { page, problems } = await cspWatchedPage();
  const frameProblems = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !problems.includes(`console error: ${message.text()}`)) frameProblems.push(message.text());
  });
  await page.goto(`${lab.url}course/course.html`);
  const frames = page.locator('iframe.lab');
  assert.equal(await frames.count(), 4);

  // The quiz question works inside its frame.
  const quiz = page.frameLocator('iframe.lab >> nth=0');
  await quiz.getByTestId('question').waitFor();
  await quiz.getByLabel(/A's write goes through/).check();
  await quiz.getByTestId('quiz-check').click();
  assert.match(await quiz.getByTestId('quiz-result').textContent(), /^✓ Right\. The run says: A's write goes through/);

  // The race runs inside its frame, and does what the page's sentence says:
  // "Play it, step back past A's zombie write, then turn fencing on and play it again."
  assert.match(await page.locator('iframe.lab >> nth=1').evaluate((frame) => frame.previousElementSibling.textContent), /turn fencing on and play it again/);
  const race = page.frameLocator('iframe.lab >> nth=1');
  await race.getByTestId('race-end').click();
  assert.equal(await race.getByTestId('race-zombie-writes').textContent(), '1');
  assert.match(await race.getByTestId('race-verdict').textContent(), /A's stale write \(token 33\) overwrote B's newer data \(token 34\)/);
  await race.getByTestId('race-fencing').check();
  await race.getByTestId('race-end').click();
  assert.match(await race.getByTestId('race-verdict').textContent(), /rejected: token 33 < 34/);
  assert.equal(await race.getByTestId('race-rejected-writes').textContent(), '1');
  assert.equal(await race.locator('.site-header').count(), 0, 'an embed shows only its widget');
  assert.match(await race.getByRole('link', { name: /Open in Fencing Lab/ }).getAttribute('href'), /\/lab\/\?preset=gc-pause/);

  // The comparison shows both verdicts (its frame loads as the reader nears it).
  await page.locator('iframe.lab >> nth=2').scrollIntoViewIfNeeded();
  const compare = page.frameLocator('iframe.lab >> nth=2');
  await compare.getByTestId('compare-end').click();
  assert.equal(await compare.getByTestId('right-rejected-writes').textContent(), '1');
  // Its title says "fencing off and on": the left pane is overwritten, the right refuses.
  assert.match(await compare.getByTestId('left-verdict').textContent(), /overwrote B's newer data/);
  assert.match(await compare.getByTestId('right-verdict').textContent(), /rejected: token 33 < 34/);

  // Each frame was resized by the helper script to its content's height.
  await page.locator('iframe.lab >> nth=3').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => [...document.querySelectorAll('iframe.lab')].every((frame) => frame.dataset.fencingLabHeight));
  for (let index = 0; index < 4; index += 1) {
    const frame = frames.nth(index);
    const reported = Number(await frame.getAttribute('data-fencing-lab-height'));
    const inner = await (await frame.elementHandle()).contentFrame();
    const content = await inner.evaluate(() => document.body.offsetHeight);
    assert.ok(Math.abs(reported - content) <= 2, `frame ${index}: height ${reported} vs content ${content}`);
    const fixed = index === 3 ? 900 : 760; // course.css: .lab, .lab.tall
    assert.notEqual(reported, fixed, `frame ${index} kept its fixed height`);
  }
  await screenshot(page, 'course-page-1280');
  assert.deepEqual([...problems, ...frameProblems], []);
});

test('the course page downloads the simulator only for the frames its reader nears', async () => {
  const { page, problems } = await cspWatchedPage();
  const asked = [];
  page.on('request', (request) => asked.push(new URL(request.url()).pathname));
  await page.goto(`${lab.url}course/course.html`);
  const frames = page.locator('iframe.lab');
  await page.frameLocator('iframe.lab >> nth=1').getByTestId('race-play').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('iframe.lab[src]').length === 2);
  // The question and the race are near the top; the comparison and the set are far below.
  assert.deepEqual(await frames.evaluateAll((all) => all.map((frame) => frame.hasAttribute('src'))), [true, true, false, false]);
  assert.ok(!asked.includes('/lab/fencing-lab-teach_bg.wasm'), "the set's build is not downloaded");
  await frames.nth(3).scrollIntoViewIfNeeded();
  await page.frameLocator('iframe.lab >> nth=3').getByTestId('question').waitFor();
  assert.deepEqual(await frames.evaluateAll((all) => all.map((frame) => frame.hasAttribute('src'))), [true, true, true, true]);
  assert.ok(asked.includes('/lab/fencing-lab-teach_bg.wasm'), 'and is, once the reader gets there');
  assert.deepEqual(problems, []);
});

test('the Embed button writes a snippet for exactly what is on screen', async () => {
  const { page, problems } = await cspWatchedPage();
  await page.goto(`${lab.url}lab/?preset=naive-del&fencing=on`);
  await page.getByTestId('embed-race').click();
  const code = await page.getByTestId('embed-race-code').inputValue();
  assert.match(code, /<iframe src="http:\/\/127\.0\.0\.1:\d+\/lab\/\?preset=naive-del&seed=1&fencing=on[^"]*&embed=race"/);
  assert.match(code, /<script src="http:\/\/127\.0\.0\.1:\d+\/lab\/fencing-lab-embed\.js" async><\/script>/);
  const preview = page.frameLocator('.embed-preview');
  await preview.getByTestId('race-play').waitFor();
  assert.deepEqual(problems, []);
});

test('from a subpath, under the strict CSP, the views are routes: tabs, Back and Forward', async () => {
  const { page, problems } = await cspWatchedPage();
  await page.goto(`${lab.url}lab/?view=compare&preset=gc-pause&compare=fencing`);
  await page.getByTestId('compare-named').waitFor();
  await page.getByTestId('tab-quiz').click();
  await page.getByTestId('question').waitFor();
  assert.match(page.url(), /\/lab\/\?view=quiz/);
  await page.goBack();
  await page.getByTestId('compare-named').waitFor();
  assert.match(page.url(), /\/lab\/\?view=compare/);
  await page.goForward();
  await page.getByTestId('question').waitFor();
  await page.getByTestId('tab-race').click();
  await page.getByTestId('race-play').waitFor();
  assert.match(page.url(), /\/lab\/\?preset=gc-pause/);
  assert.deepEqual(problems, []);
});

test('answering an embedded question delivers exactly one statement to the course page, and its gradebook shows it', async () => {
  const { page, problems } = await cspWatchedPage();
  // Everything the page hears from its frames, as it arrives.
  await page.addInitScript(() => {
    window.__heard = [];
    window.addEventListener('message', (event) => {
      if (event.data?.type !== 'fencing-lab:height') window.__heard.push({ origin: event.origin, data: event.data });
    });
  });
  await page.goto(`${lab.url}course/course.html`);
  const origin = new URL(lab.url).origin;
  await page.locator('iframe.lab >> nth=3').scrollIntoViewIfNeeded();
  const set = page.frameLocator('iframe.lab >> nth=3');
  await set.getByTestId('question').waitFor();
  assert.match(await page.locator('iframe.lab >> nth=3').getAttribute('src'), new RegExp(`&origin=${encodeURIComponent(origin).replace(/[.]/g, '\\.')}$`));
  assert.match(await set.getByTestId('ask-prompt').textContent(), /Which token does B get/);
  await set.getByLabel('Token 34').check();
  await set.getByTestId('quiz-check').click();
  assert.match(await set.getByTestId('quiz-result').textContent(), /Right\. The run says: Token 34/);
  await page.getByText('1 statement received.').waitFor();
  // Anything else the question posted has arrived once a marker it posts after has.
  await messagesFlushed(page, await (await page.locator('iframe.lab >> nth=3').elementHandle()).contentFrame(), '__heard');
  const heard = await page.evaluate(() => window.__heard);
  assert.equal(heard.length, 1, JSON.stringify(heard));
  const [{ origin: from, data }] = heard;
  assert.equal(from, origin, 'from the lab\'s origin');
  assert.deepEqual([data.type, data.version], ['fencing-lab:statement', '1.0']);
  const { verb, object, result, context } = data.statement;
  assert.deepEqual(verb, { id: 'http://adlnet.gov/expapi/verbs/answered', display: { 'en-US': 'answered' } });
  assert.match(object.id, /\/lab\/\?preset=gc-pause&seed=1&fp=[0-9a-f]{8}_[^&]+&ask=token:B&prompt=.*&sum=[0-9a-f]{8}$/);
  assert.match(object.definition.extensions['urn:fencing-lab:question-id'], /^ask-[0-9a-f]{8}$/);
  assert.equal(object.definition.interactionType, 'choice');
  const picked = object.definition.choices.find((choice) => choice.id === result.response);
  assert.equal(picked.description['en-US'], 'Token 34');
  assert.deepEqual(object.definition.correctResponsesPattern, [result.response]);
  assert.equal(result.success, true);
  assert.match(result.duration, /^PT\d+\.\d{2}S$/);
  assert.match(context.contextActivities.parent[0].id, /\/lab\/\?set=/);
  // The gradebook shows it, as text.
  const row = page.locator('#gradebook-rows tr');
  assert.equal(await row.count(), 1);
  assert.match(await row.textContent(), /Which token does B get.*Token 34.*✓ right/);

  // The second question finishes the set: its answer, then "completed" with the score.
  await set.getByTestId('quiz-next').click();
  await set.getByLabel('It is refused').check();
  await set.getByTestId('quiz-check').click();
  await page.getByText('3 statements received.').waitFor();
  const completed = (await page.evaluate(() => window.__heard)).at(-1).data.statement;
  assert.equal(completed.verb.id, 'http://adlnet.gov/expapi/verbs/completed');
  assert.deepEqual(completed.result.score, { raw: 2, min: 0, max: 2, scaled: 1 });
  assert.match(await page.locator('#gradebook-rows tr[data-verb=completed]').textContent(), /2 of 2 right/);
  await screenshot(page, 'course-gradebook-1280');
  assert.deepEqual(problems, []);
});
