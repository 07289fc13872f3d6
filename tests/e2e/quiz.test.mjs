// The quiz as a learner meets it: predict first; a wrong first try says why
// that answer is wrong and asks for another, keeping the key back; the
// second try (or "Show the answer") reveals the run; finish with the
// keyboard only; the score survives a reload; each question has its own
// link; the options come in an order no one can learn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { useLab, watchedPage, screenshot } from './harness.mjs';

const lab = useLab();

async function open(query, context) {
  const watched = context ?? (await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } }));
  await watched.page.goto(`${lab.url}?${query}`);
  await watched.page.getByTestId('question').waitFor();
  return watched;
}

/** The options of the question on screen, as shown. */
async function optionTexts(page) {
  return (await page.locator('[data-testid=question] .option').allTextContents()).map((text) => text.trim());
}

test('wrong, then wrong again: the first try says why without the key, the second reveals it', async () => {
  const { page, problems } = await open('quiz=gc-pause');
  assert.equal(await page.getByTestId('race-play').count(), 0, 'nothing is revealed before answering');
  assert.ok(await page.getByTestId('quiz-check').isDisabled(), 'no check before a choice');
  const key = "A's write goes through and replaces B's newer data.";
  await page.getByLabel(/checks the clock on waking/).check();
  await page.getByTestId('quiz-check').click();
  const result = page.getByTestId('quiz-result');
  // Why that answer is wrong, from its own explanation; the key kept back.
  assert.match(await result.textContent(), /Not quite\. A could notice the pause afterwards/);
  assert.doesNotMatch(await result.textContent(), /goes through|The run says/);
  assert.equal(await page.locator('.whys').count(), 0, 'no option explained yet');
  assert.equal(await page.getByTestId('quiz-reveal').count(), 0, 'no run revealed yet');
  assert.equal(await page.getByText(key).count(), 1, 'the key is only an option');
  await screenshot(page, 'quiz-first-try-wrong-1280');
  await page.getByTestId('quiz-retry').click();
  await page.getByLabel(/Redis sees the lease expire/).check();
  await page.getByTestId('quiz-check').click();
  assert.match(await result.textContent(), new RegExp(`Not quite\\. The run says: ${key.replace(/[.']/g, '.')}`));
  assert.match(await page.locator('.whys').textContent(), /nothing in its code looks between waking and writing/);
  // A compact reveal: the run's verdict, the store before and after, a link to the whole run.
  const reveal = page.getByTestId('quiz-reveal');
  assert.match(await reveal.textContent(), /overwrote B's newer data/);
  assert.match(await reveal.textContent(), /held B's data \(token 34\); the stale write left it holding A's data \(token 33\)/);
  assert.match(await page.getByTestId('quiz-run-link').getAttribute('href'), /preset=gc-pause/);
  assert.equal(await page.getByTestId('race-play').count(), 0, 'no whole race widget under the question');
  assert.equal(await page.getByTestId('quiz-retry').count(), 0, 'no retry of a question whose answer is on screen');
  await screenshot(page, 'quiz-reveal-1280');
  // The score counts first tries, and says so; the ✗ stays.
  assert.match(await page.getByTestId('quiz-first-try').textContent(), /first try was wrong, and it is the one the score counts/);
  assert.match(await page.getByTestId('quiz-score').textContent(), /0 right of 1 answered \(first tries\)/);
  assert.match(await page.getByRole('link', { name: /Question 1: .*, answered wrong/ }).textContent(), /^1 ✗$/);
  assert.deepEqual(problems, []);
});

test('wrong, then right; or wrong, then "Show the answer"', async () => {
  const { page, problems } = await open('quiz=nfs');
  await page.getByLabel(/Neither: NFS/).check();
  await page.getByTestId('quiz-check').click();
  await page.getByTestId('quiz-retry').click();
  await page.getByLabel(/A's: the later write wins/).check();
  await page.getByTestId('quiz-check').click();
  assert.match(await page.getByTestId('quiz-result').textContent(), /^✓ Right this time\. The run says: A's/);
  await page.goto(`${lab.url}?quiz=idempotent`);
  await page.getByLabel(/recognises A's write as a duplicate/).check();
  await page.getByTestId('quiz-check').click();
  await page.getByTestId('quiz-show-answer').click();
  assert.match(await page.getByTestId('quiz-result').textContent(), /Not quite\. The run says: No: A's older value still replaces B's newer one\./);
  assert.match(await page.locator('.whys').textContent(), /keeps no list of writes it has seen/);
  assert.deepEqual(problems, []);
});

test('the options come in an order no one can learn: it differs between questions and after starting over', async () => {
  const { page, problems } = await open('quiz=gc-pause');
  const first = await optionTexts(page);
  const key = first.indexOf("A's write goes through and replaces B's newer data.");
  assert.ok(key >= 0, first.join(' | '));
  // Every answer once, right at the first try; then start over.
  await page.evaluate(() => localStorage.setItem('fencing-lab.quiz', [...document.querySelectorAll('.quiz-dots a')].map((a) => `${new URL(a.href).searchParams.get('quiz')}=1`).join(';')));
  await page.reload();
  await page.getByTestId('quiz-start-over').click();
  await page.reload();
  await page.getByTestId('question').waitFor();
  const again = await optionTexts(page);
  assert.deepEqual([...again].sort(), [...first].sort(), 'the same options');
  assert.notDeepEqual(again, first, 'in another order');
  assert.deepEqual(problems, []);
});

test('a question link opens that question, and the score survives a reload', async () => {
  const watched = await open('quiz=crash');
  const { page, problems } = watched;
  assert.equal(await page.getByTestId('question').getAttribute('data-question'), 'crash');
  await page.getByTestId('quiz-number').fill('9');
  await page.getByTestId('quiz-check').click();
  assert.match(await page.getByTestId('quiz-result').textContent(), /Right\. The run says: 9 seconds/);
  await page.reload();
  await page.getByTestId('question').waitFor();
  assert.match(await page.getByTestId('quiz-score').textContent(), /1 right of 1 answered/);
  // Answered questions keep their numbers, with a mark beside them.
  assert.match(await page.getByRole('link', { name: /Question 11: A holder crashes, answered right/ }).textContent(), /^11 ✓$/);
  assert.deepEqual(problems, []);
});

/** Presses Tab until the focused element satisfies `wanted` (bounded). */
async function tabTo(page, wanted, most = 40) {
  for (let presses = 0; presses < most; presses += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(wanted)) return;
  }
  throw new Error(`Tab never reached the element (${wanted})`);
}

test('the whole quiz can be finished with the keyboard alone', async () => {
  const { page, problems } = await open('quiz=gc-pause');
  const total = await page.locator('.quiz-dots li').count();
  for (let question = 0; question < total; question += 1) {
    const form = await page.getByTestId('question').getAttribute('data-question');
    await page.locator('[data-testid=question] h3').focus();
    if (await page.getByTestId('quiz-number').count()) {
      await tabTo(page, () => document.activeElement?.dataset.testid === 'quiz-number');
      await page.keyboard.type('1');
    } else if (await page.locator('[data-testid=question] input[type=radio]').count()) {
      await tabTo(page, () => document.activeElement?.type === 'radio');
      await page.keyboard.press('Space');
    }
    // Check is ready as soon as an answer is (a rate question's figures ship with it).
    await page.getByTestId('quiz-check').waitFor({ state: 'attached', timeout: 10_000 }).catch(async () => {
      const seen = await page.evaluate(() => [...document.querySelectorAll('[data-testid]')].map((node) => node.dataset.testid).filter((id) => id.startsWith('quiz') || id === 'question'));
      throw new Error(`question ${question + 1} of ${total} (${form}) at ${page.url()}: no Check; on the page: ${seen.join(' ')}`);
    });
    assert.equal(await page.getByTestId('quiz-check').isDisabled(), false, `${form}: Check waits for nothing`);
    await tabTo(page, () => document.activeElement?.dataset.testid === 'quiz-check');
    await page.keyboard.press('Enter');
    await page.getByTestId('quiz-result').waitFor();
    // Focus moves on the next frame, once the verdict is on the page.
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'quiz-result', null, { timeout: 2_000 }).catch(() => {});
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'quiz-result', `${form}: focus lands on the verdict`);
    if (await page.getByTestId('quiz-show-answer').count()) {
      // A wrong first try: the answer, with the keyboard.
      await tabTo(page, () => document.activeElement?.dataset.testid === 'quiz-show-answer');
      await page.keyboard.press('Enter');
      // The answer's verdict takes focus on the next frame: wait for it, or a
      // slow frame would pull focus back from Next after the Tab reached it.
      await page.waitForFunction(() => document.activeElement?.dataset.testid === 'quiz-result' && !document.querySelector('[data-testid=quiz-show-answer]'));
    }
    await tabTo(page, () => document.activeElement?.dataset.testid === 'quiz-next');
    await page.keyboard.press('Enter');
    // The next question (or, after the last, the summary) replaces this one.
    await page.waitForFunction(
      (was) => document.querySelector('[data-testid=quiz-summary]') || document.querySelector('[data-testid=question]')?.dataset.question !== was,
      form,
    );
  }
  await page.getByTestId('quiz-summary').waitFor();
  assert.match(await page.getByTestId('quiz-summary').textContent(), new RegExp(`of ${total} right at the first try`));
  await screenshot(page, 'quiz-summary-1280');
  await page.getByTestId('quiz-start-over').click();
  assert.match(await page.getByTestId('quiz-score').textContent(), /0 right of 0 answered/);
  assert.deepEqual(problems, []);
});

test('with reduced motion the reveal shows the outcome at once, with nothing moving', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  await page.goto(`${lab.url}?quiz=gc-pause`);
  await page.getByLabel(/A's write goes through/).check();
  await page.getByTestId('quiz-check').click();
  assert.match(await page.getByTestId('quiz-reveal').textContent(), /overwrote B's newer data/);
  const transition = await page.evaluate(() => getComputedStyle(document.querySelector('button, a.button')).transitionDuration);
  assert.match(transition, /^0s/);
  assert.deepEqual(problems, []);
});

test('the quiz speaks plainly: plurals, and "Right." only for a right answer', async () => {
  const { page, problems } = await open('quiz=check-then-write');
  assert.match(await page.locator('.option.number').textContent(), /How many zombie writes\?/);
  await page.getByTestId('quiz-number').fill('7');
  await page.getByTestId('quiz-check').click();
  assert.doesNotMatch(await page.getByTestId('quiz-result').textContent(), /zombie write/, 'a wrong number gives no hint of the key');
  await page.getByTestId('quiz-retry').click();
  await page.getByTestId('quiz-number').fill('8');
  await page.getByTestId('quiz-check').click();
  assert.match(await page.getByTestId('quiz-result').textContent(), /Not quite\. The run says: 1 zombie write/);
  for (const id of ['lease-x4', 'renewal', 'idempotent', 'set-nx-token', 'nfs', 'no-lock']) {
    await page.goto(`${lab.url}?quiz=${id}`);
    await page.getByTestId('question').waitFor();
    // Pick a wrong option: the right one's explanation must not say "Right."
    const options = page.locator('[data-testid=question] input[type=radio]');
    const count = await options.count();
    let wrong = false;
    for (let index = 0; index < count && !wrong; index += 1) {
      await page.goto(`${lab.url}?quiz=${id}`);
      await options.nth(index).check();
      await page.getByTestId('quiz-check').click();
      wrong = /Not quite/.test(await page.getByTestId('quiz-result').textContent());
      if (wrong) await page.getByTestId('quiz-show-answer').click();
    }
    assert.ok(wrong, `${id}: no wrong option`);
    assert.doesNotMatch(await page.locator('.whys').textContent(), /Right\./, `${id}: "Right." beside a wrong answer`);
  }
  assert.deepEqual(problems, []);
});

test('an embedded question shows that question alone, and stays short', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 832, height: 700 } });
  await page.goto(`${lab.url}?quiz=naive-del&embed=quiz`);
  await page.getByTestId('question').waitFor();
  assert.equal(await page.locator('.quiz-dots').count(), 0, 'no list of questions');
  assert.equal(await page.getByTestId('quiz-next').count(), 0, 'no next question');
  await page.getByTestId('quiz-check').click();
  await page.getByTestId('quiz-result').waitFor();
  if (await page.getByTestId('quiz-show-answer').count()) await page.getByTestId('quiz-show-answer').click();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(height < 1600, `the embed grew to ${height} px`);
  assert.equal(await page.getByTestId('quiz-run-link').getAttribute('target'), '_top', 'the whole run opens outside the frame');
  assert.deepEqual(problems, []);
});

test("the rate question can be checked at once, and its figures are the command line's trade", async () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const args = ['run', '-q', '--release', '-p', 'fencing-lab', '--', 'fleet', '--workers', '8', '--trade', '10000,40000', '--json'];
  const [short, long, fenced] = JSON.parse(execFileSync('cargo', args, { cwd: root }));
  assert.ok(long.zombie_rate.per_10k > 0 && long.zombie_rate.per_10k < short.zombie_rate.per_10k, 'rarer, not impossible');
  const { page, problems } = await open('quiz=lease-rate');
  await page.getByLabel(/They stop/).check();
  // No fleet runs before Check: the figures ship with the question.
  assert.equal(await page.getByTestId('quiz-check').isDisabled(), false);
  await page.getByTestId('quiz-check').click();
  await page.getByTestId('quiz-show-answer').click();
  assert.match(await page.getByTestId('quiz-result').textContent(), /Not quite\. The run says: They fall, but not to zero\./);
  const reveal = await page.getByTestId('quiz-reveal').textContent();
  const rate = (row) => row.zombie_rate.per_10k.toFixed(2);
  assert.match(reveal, new RegExp(`cut zombie writes from ${rate(short)} to ${rate(long)} per 10,000 jobs`));
  assert.match(reveal, new RegExp(`With fencing, ${fenced.stale_rate.per_10k.toFixed(2)} stale overwrites`));
  assert.equal(await page.getByTestId('quiz-fleet-link').getAttribute('href'), '?view=fleet&seed=1&workers=8');
  assert.match(await page.getByTestId('quiz-run-link').getAttribute('href'), /preset=lease-x4/);
  await screenshot(page, 'quiz-rate-1280');
  assert.deepEqual(problems, []);
});

test('moving a step keeps the focus on the step moved', async () => {
  const { page, problems } = await open('quiz=naive-del');
  const second = page.locator('[data-testid=quiz-order] li').nth(1);
  const text = await second.locator('.order-text').textContent();
  await second.locator('button[data-move=up]').focus();
  await page.keyboard.press('Enter');
  // Now first in the list, it can only move down: focus is on that button, for the same step.
  await page.waitForFunction(() => document.activeElement?.dataset.move === 'down');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), `Move "${text}" down`);
  assert.equal(await page.locator('[data-testid=quiz-order] li .order-text').first().textContent(), text);
  assert.deepEqual(problems, []);
});
