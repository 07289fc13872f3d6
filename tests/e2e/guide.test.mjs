// A newcomer's first two minutes (issue 42): the front page greets a first
// visit with a guided tour of the classic run, walked here with the keyboard
// alone from the first screen to the fencing rejection and on to the fleet,
// at a laptop's and a phone's width, with a screenshot of every step. The
// first screen holds at most eight controls besides the site's tabs; Skip
// is remembered; a shared link lands on the race directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { useLab, watchedPage, framesDrawn, axeViolations, ARTIFACTS } from './harness.mjs';

const lab = useLab();

async function front(viewport, colorScheme = 'light') {
  const watched = await watchedPage(lab.browser, { viewport, colorScheme, guide: true });
  await watched.page.goto(lab.url);
  await watched.page.getByTestId('race-play').waitFor();
  await watched.page.getByTestId('guide').waitFor();
  await framesDrawn(watched.page);
  return watched;
}

/** The controls a learner can see without scrolling, less the site's tabs. */
async function controlsInView(page) {
  return page.evaluate(() => {
    const selector = 'button, a[href], input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';
    return [...document.querySelectorAll(selector)]
      // A defined term takes focus to show its definition; it is words, not a control.
      .filter((element) => !element.closest('nav.tabs, .tabs') && !element.classList.contains('term'))
      .filter((element) => {
        const box = element.getBoundingClientRect();
        const style = getComputedStyle(element);
        return box.width > 0 && box.height > 0 && style.visibility !== 'hidden'
          && box.bottom > 0 && box.top < window.innerHeight && box.right > 0 && box.left < window.innerWidth;
      })
      .map((element) => element.getAttribute('aria-label') || element.textContent.trim().slice(0, 30) || element.tagName);
  });
}

/** What the learner sees at this step: the screen, not the whole page. */
async function screenshot(page, name) {
  await mkdir(ARTIFACTS, { recursive: true });
  await framesDrawn(page);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

const step = async (page) => (await page.getByTestId('guide-count').textContent()).trim();
const words = async (page) => (await page.getByTestId('guide-words').textContent()).trim();

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`at ${width}×${height} the guided tour walks, by keyboard, from the first screen to the fencing rejection and on to the fleet`, async () => {
    const { page, problems } = await front({ width, height });
    assert.equal(await step(page), 'Step 1 of 9');
    assert.match(await words(page), /lock server/);
    if (width === 1280) {
      const controls = await controlsInView(page);
      assert.ok(controls.length <= 8, `${controls.length} controls in view: ${controls.join(' | ')}`);
    }
    await screenshot(page, `guide-${width}-step-1`);
    const next = page.getByTestId('guide-next');
    await next.focus();
    const seen = [];
    const expected = [
      ['Step 2 of 9', /fencing token 33: a number that grows/],
      ['Step 3 of 9', /freezes for 15 s: a stop-the-world pause/],
      ['Step 4 of 9', /gave it to B, with the next token: 34/],
      ['Step 5 of 9', /B writes its data with token 34/],
      ['Step 6 of 9', /zombie write/],
      ['Step 7 of 9', /turn Fencing on/],
    ];
    for (const [count, said] of expected) {
      await page.keyboard.press('Enter');
      await page.waitForFunction((want) => document.querySelector('[data-testid=guide-count]')?.textContent.trim() === want, count);
      assert.match(await words(page), said, count);
      seen.push(count);
      await screenshot(page, `guide-${width}-step-${seen.length + 1}`);
    }
    // Step 6: the picture shows the zombie write the words name.
    assert.match(await page.getByTestId('race-verdict').textContent(), /overwrote|zombie/i);
    // Step 7: the learner turns fencing on (the guide's button is the switch's twin).
    assert.equal((await next.textContent()).trim(), 'Turn fencing on');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid=guide-count]')?.textContent.trim() === 'Step 8 of 9');
    assert.match(await words(page), /already accepted token 34, so it refuses token 33/);
    assert.ok(await page.getByTestId('race-fencing').isChecked(), 'the fencing switch is on');
    assert.match(await page.getByTestId('race-diagram').innerHTML(), /data-kind="rejected-write"/);
    await screenshot(page, `guide-${width}-step-8`);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid=guide-count]')?.textContent.trim() === 'Step 9 of 9');
    assert.match(await words(page), /longer lease/);
    await screenshot(page, `guide-${width}-step-9`);
    // On to the fleet, by keyboard.
    await page.getByTestId('guide-fleet').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/view=fleet/);
    await page.getByTestId('fleet-trade-draw').waitFor({ timeout: 60_000 });
    assert.deepEqual(problems, []);
  });
}

test('Skip hides the tour and shows the race\'s tools; the browser remembers; a shared link never shows it', async () => {
  const { page, problems } = await front({ width: 1280, height: 800 });
  assert.equal(await page.getByTestId('race-scenario-summary').isVisible(), false, 'tools wait while the tour greets');
  await page.getByTestId('guide-skip').click();
  await page.getByTestId('guide').waitFor({ state: 'hidden' });
  assert.ok(await page.getByTestId('race-scenario-summary').isVisible(), 'Skip shows the tools');
  await page.reload();
  await page.getByTestId('race-play').waitFor();
  await framesDrawn(page);
  assert.equal(await page.getByTestId('guide').isVisible(), false, 'remembered');
  const shared = await watchedPage(lab.browser, { viewport: { width: 1280, height: 800 }, guide: true });
  await shared.page.goto(`${lab.url}?preset=gc-pause&seed=1`);
  await shared.page.getByTestId('race-play').waitFor();
  await framesDrawn(shared.page);
  assert.equal(await shared.page.getByTestId('guide').isVisible(), false, 'a shared link lands on the race');
  assert.deepEqual([...problems, ...shared.problems], []);
});

for (const [width, height, scheme] of [[1280, 800, 'light'], [390, 844, 'dark']]) {
  test(`axe finds nothing on the tour's first screen at ${width} px, ${scheme}`, async () => {
    const { page } = await front({ width, height }, scheme);
    assert.deepEqual(await axeViolations(page), []);
  });
}

test('between 768 and 1100 px the scenario line never wraps into a narrow column and the page never scrolls sideways', async () => {
  const problems = [];
  for (const width of [768, 900, 960, 1024, 1100]) {
    const watched = await watchedPage(lab.browser, { viewport: { width, height: 800 } });
    await watched.page.goto(`${lab.url}?preset=gc-pause`);
    await watched.page.getByTestId('race-play').waitFor();
    await framesDrawn(watched.page);
    const { box, lines, sideways } = await watched.page.evaluate(() => {
      const summary = document.querySelector('[data-testid=race-scenario-summary]');
      const rect = summary.getBoundingClientRect();
      const line = parseFloat(getComputedStyle(summary).lineHeight) || 24;
      return { box: rect.width, lines: Math.round(rect.height / line), sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth };
    });
    assert.ok(box >= 300, `${width} px: the scenario line has ${box} px`);
    assert.ok(lines <= 2, `${width} px: the scenario line takes ${lines} lines`);
    assert.equal(sideways, 0, `${width} px: the page scrolls sideways by ${sideways} px`);
    problems.push(...watched.problems);
    await watched.context.close();
  }
  assert.deepEqual(problems, []);
});
