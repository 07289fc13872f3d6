// For instructors: a question made from a run with a fault added by click,
// opened from its link in a fresh browser, answered wrongly then rightly,
// its key the model's own outcome; a set; links that were altered or are
// too long; answers reported only to the origin the link names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useLab, watchedPage, screenshot, messagesFlushed } from './harness.mjs';

const lab = useLab();

/** Builds a question in the builder from a race with a fault clicked in; returns its link and key. */
async function buildQuestion(page, ask, prompt) {
  await page.goto(`${lab.url}?preset=gc-pause&fencing=on`);
  await page.getByTestId('race-play').waitFor();
  // Step past B's grant, then freeze B there for the pause length (15 s).
  for (let step = 0; step < 24; step += 1) await page.getByTestId('race-forward').click();
  await page.getByTestId('race-pause-B').click();
  assert.match(await page.getByTestId('race-faults').textContent(), /B pauses/);
  await page.getByTestId('race-make-question').click();
  await page.getByTestId('builder-asks').waitFor();
  assert.match(await page.getByTestId('builder-faults').textContent(), /B pauses 15000 ms, right after event \d+/, 'the clicked fault is in the question');
  await page.getByLabel(ask).check();
  if (prompt) await page.getByTestId('builder-prompt').fill(prompt);
  const link = await page.getByTestId('builder-link').inputValue();
  const key = (await page.getByTestId('builder-key').textContent()).replace(/ ✓ the run's answer$/, '').trim();
  return { link, key };
}

test('a question built from a run with a fault added by click opens in a fresh browser; wrong, then right; the key is the run\'s', async () => {
  const builder = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  const prompt = 'After B freezes too, whose data is in the store at the end? <b>not bold</b> & "plain"';
  const { link, key } = await buildQuestion(builder.page, 'Whose data the store holds at the end', prompt);
  assert.match(link, /fault=pause%3AB%3A|fault=pause:B:/, link);
  assert.match(link, /&ask=owner&prompt=.*&sum=[0-9a-f]{8}$/, link);
  await screenshot(builder.page, 'builder-1280');

  // The model's own run of that scenario, in the race view: what the store holds at the end.
  await builder.page.getByTestId('builder-back').click();
  await builder.page.getByTestId('race-end').click();
  const holds = await builder.page.getByTestId('race-store-holds').textContent();
  assert.ok(holds.startsWith(key), `the key "${key}" is what the run's store holds: "${holds}"`);
  assert.deepEqual(builder.problems, []);
  await builder.context.close();

  // A learner, in a fresh browser context, opens the link.
  const learner = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  const { page } = learner;
  await page.goto(link);
  await page.getByTestId('question').waitFor();
  assert.equal(await page.getByTestId('ask-prompt').textContent(), prompt, 'the prompt is shown as it was typed');
  assert.equal(await page.locator('[data-testid=ask-prompt] b').count(), 0, 'and never read as markup');
  assert.equal(await page.getByTestId('quiz-reveal').isVisible(), false, 'nothing is revealed before answering');
  const options = page.locator('[data-testid=question] .option');
  const texts = await options.allTextContents();
  const right = texts.findIndex((text) => text.trim() === key);
  assert.ok(right >= 0, `the key is one of the options: ${texts}`);
  await options.nth(right === 0 ? 1 : 0).locator('input').check();
  await page.getByTestId('quiz-check').click();
  // A wrong first try keeps the key back and asks for another.
  assert.match(await page.getByTestId('quiz-result').textContent(), /Not quite\./);
  assert.doesNotMatch(await page.getByTestId('quiz-result').textContent(), /The run says/);
  assert.equal(await page.getByTestId('quiz-reveal').isVisible(), false, 'nothing revealed after a wrong first try');
  await page.getByTestId('quiz-retry').click();
  await options.nth(right).locator('input').check();
  await page.getByTestId('quiz-check').click();
  assert.match(await page.getByTestId('quiz-result').textContent(), new RegExp(`^✓ Right this time\\. The run says: ${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.match(await page.getByTestId('quiz-reveal').textContent(), /The run: .*The store/s);
  assert.match(await page.getByTestId('quiz-run-link').getAttribute('href'), /preset=gc-pause.*fault=/);
  // The key explains itself from the run, as a built-in question's does.
  assert.match(await page.locator('.whys .why.right').textContent(), /the last one the store accepted|sent it at|granted the lock|The store refused|The run counts/);
  assert.equal(page.url(), link, 'the question keeps its link');
  await screenshot(page, 'asked-question-1280');
  assert.deepEqual(learner.problems, []);
});

test('questions gather into a set with one link; the set is answered one question at a time', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  const first = await buildQuestion(page, 'Which fencing token A draws');
  await page.getByTestId('builder-add').click();
  await page.getByLabel('Whether the store refuses any write').check();
  await page.getByTestId('builder-add').click();
  assert.equal(await page.locator('[data-testid=builder-set] li').count(), 2);
  // The set's Embed snippet names where answers go, and still opens the set as it was made.
  await page.getByTestId('report-origin').fill('https://courses.example.edu/week-6.html');
  assert.match(await page.getByTestId('report-status').textContent(), /only to pages at https:\/\/courses\.example\.edu/);
  await page.getByTestId('builder-set-embed').getByTestId('embed-quiz').click();
  const snippet = await page.getByTestId('builder-set-embed').getByTestId('embed-quiz-code').inputValue();
  const src = snippet.match(/<iframe src="([^"]+)"/)[1].replaceAll('&amp;', '&');
  assert.match(src, /\?set=[A-Za-z0-9_.-]+&origin=https%3A%2F%2Fcourses\.example\.edu&embed=quiz$/, src);
  const framed = await watchedPage(lab.browser, { viewport: { width: 900, height: 700 } });
  await framed.page.goto(src);
  await framed.page.getByTestId('ask-progress').waitFor();
  assert.equal(await framed.page.getByTestId('ask-notice').count(), 0, 'origin= leaves the set as it was made');
  assert.deepEqual(framed.problems, []);
  await framed.context.close();
  const setLink = await page.getByTestId('builder-set-link').inputValue();
  assert.match(setLink, /\?set=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  await page.goto(setLink);
  await page.getByTestId('question').waitFor();
  assert.match(await page.getByTestId('ask-progress').textContent(), /Question 1 of 2/);
  await page.getByLabel(first.key).check();
  await page.getByTestId('quiz-check').click();
  assert.match(await page.getByTestId('quiz-result').textContent(), /Right\./);
  await page.getByTestId('quiz-next').click();
  assert.match(await page.getByTestId('ask-progress').textContent(), /Question 2 of 2 · 1 right/);
  await page.locator('[data-testid=question] .option input').first().check();
  await page.getByTestId('quiz-check').click();
  await page.getByTestId('ask-summary').waitFor();
  assert.match(await page.getByTestId('ask-summary').textContent(), /Set finished: [12] of 2 right at the first try/);
  assert.deepEqual(problems, []);
});

test('a tampered or over-long question link shows the notices and the built-in quiz, never a blank page', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  const { link } = await buildQuestion(page, 'Whose data the store holds at the end', 'Who wins?');
  const cases = [
    [link.replace('Who', 'Why'), /was changed after it was made/],
    [`${lab.url}?ask=owner&prompt=${'x'.repeat(9000)}`, /longer than 8000 characters/],
    [`${lab.url}?preset=gc-pause&ask=write:E:9`, /does not have|not a question/],
    [`${lab.url}?set=!!!.%%%&embed=quiz`, /could not be read/],
  ];
  for (const [url, notice] of cases) {
    await page.goto(url);
    await page.getByTestId('ask-notice').waitFor();
    assert.match(await page.getByTestId('ask-notice').textContent(), notice, url.slice(0, 120));
    assert.equal(await page.getByTestId('question').getAttribute('data-question'), 'gc-pause', 'the built-in quiz stands in');
    await page.getByLabel(/A's write goes through/).check();
    await page.getByTestId('quiz-check').click();
    await page.getByTestId('quiz-result').waitFor();
  }
  await screenshot(page, 'asked-notice-1280');
  assert.deepEqual(problems, []);
});

test('answers go to the origin the link names, and to no other', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1000, height: 900 } });
  await page.goto(`${lab.url}lesson/index.html`); // a page of the lab's own origin, to frame the quiz in
  const origin = new URL(lab.url).origin;
  await page.evaluate(async ([base, names]) => {
    window.__got = [];
    window.addEventListener('message', (event) => {
      // Statements, and the test's own markers (see messagesFlushed).
      if (event.data?.type === 'fencing-lab:statement' || String(event.data?.type).startsWith('fencing-lab-test:')) window.__got.push({ from: event.origin, data: event.data });
    });
    for (const named of names) {
      const frame = document.createElement('iframe');
      frame.title = `quiz reporting to ${named}`;
      frame.src = `${base}?quiz=crash&embed=quiz&origin=${encodeURIComponent(named)}`;
      document.body.append(frame);
      await new Promise((resolve) => frame.addEventListener('load', resolve));
    }
  }, [lab.url, [origin, 'https://courses.example.edu']]);
  for (const index of [0, 1]) {
    const frame = page.frameLocator(`iframe >> nth=${index}`);
    await frame.getByTestId('quiz-number').fill('9');
    await frame.getByTestId('quiz-check').click();
    await frame.getByTestId('quiz-result').waitFor();
  }
  // Whatever either frame posted has arrived once a marker each posts after it has.
  for (const frame of page.frames().filter((frame) => frame.url().includes('origin='))) await messagesFlushed(page, frame, '__got');
  const got = await page.evaluate(() => window.__got);
  assert.equal(got.length, 1, 'only the frame that names this origin reports');
  const [{ from, data }] = got;
  assert.equal(from, origin);
  assert.equal(data.version, '1.0');
  const { verb, object, result, timestamp } = data.statement;
  assert.equal(verb.id, 'http://adlnet.gov/expapi/verbs/answered');
  assert.match(object.id, /\?view=quiz&quiz=crash$/);
  assert.equal(object.definition.extensions['urn:fencing-lab:question-id'], 'crash');
  assert.equal(object.definition.interactionType, 'numeric');
  assert.deepEqual(object.definition.correctResponsesPattern, ['9']);
  assert.deepEqual([result.success, result.response], [true, '9']);
  assert.match(result.duration, /^PT\d+\.\d{2}S$/);
  assert.ok(!Number.isNaN(Date.parse(timestamp)));
  assert.equal(data.statement.actor, undefined, 'the actor is the host page\'s to add');
  assert.deepEqual(problems, []);
});
