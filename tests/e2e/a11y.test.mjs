// axe-core (from npm) on every view and embed, at 390 and 1280 px, light and
// dark: zero WCAG 2.2 A/AA violations is the bar. Also a keyboard-only run
// of the race.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useLab, watchedPage, axeViolations, settled } from './harness.mjs';

const lab = useLab();

const VIEWS = [
  ['race', ''],
  ['race at the end', 'preset=gc-pause', 'End'],
  ['race with its controls open', 'preset=token-inversion', 'End', 'race-scenario-summary'],
  ['side by side', 'view=compare&compare=fencing', 'End'],
  ['can this go wrong?', 'view=explore&preset=token-inversion'],
  ['quiz', 'quiz=gc-pause'],
  ['quiz answered', 'quiz=crash', null, 'quiz-check-after-number'],
  ['lesson', 'lesson/index.html'],
  ['lesson: failure modes', 'lesson/failures.html'],
  ['lesson: trade-offs', 'lesson/tradeoffs.html'],
  ['lesson: code', 'lesson/code.html'],
  ['lesson: misconceptions', 'lesson/myths.html'],
  ['embedded race', 'embed=race'],
  ['embedded quiz', 'quiz=naive-del&embed=quiz'],
  ['embedded side by side', 'compare=lease-x4&embed=compare', 'End'],
  ['embedded can this go wrong?', 'preset=renewal&embed=explore'],
  ['embedded lesson', 'lesson/index.html?embed=lesson'],
  ['embedded lease sweep', 'embed=sweep'],
  ['the lease sweep', 'lesson/sweep.html'],
  ['question builder', 'view=build&preset=gc-pause&fault=pause:A:write1:15000&fault=pause:B:at11000:15000'],
  ['question builder, embed panel open', 'view=build&preset=redlock-clock-jump', null, 'embed-quiz'],
  ["an instructor's question", 'preset=gc-pause&seed=1&ask=owner&sum=59879520'],
  ["an instructor's question answered", 'preset=gc-pause&seed=1&ask=owner&sum=59879520', null, 'answer-first-option'],
  ['an altered question link', 'preset=gc-pause&seed=1&ask=owner&sum=00000000'],
  ['embedded set of questions', 'set=cHJlc2V0PWdjLXBhdXNlJnNlZWQ9MSZhc2s9b3duZXImc3VtPTU5ODc5NTIw&embed=quiz'],
  ['race in projector mode', 'preset=gc-pause', 'End', 'key:p'],
  ['side by side in projector mode', 'view=compare&compare=fencing', 'End', 'key:p'],
];

/** Opens what a row of VIEWS names: a key to press, an answer to give, a control to click. */
async function act(page, open) {
  if (open === 'quiz-check-after-number') {
    await page.getByTestId('quiz-number').fill('9');
    await page.getByTestId('quiz-check').click();
  } else if (open === 'answer-first-option') {
    await page.locator('[data-testid=question] input[type=radio]').first().check();
    await page.getByTestId('quiz-check').click();
  } else if (open?.startsWith('key:')) {
    await page.keyboard.press(open.slice(4));
    await settled(page);
  } else if (open) {
    await page.getByTestId(open).click();
  }
}


for (const width of [390, 1280]) {
  for (const scheme of ['light', 'dark']) {
    test(`axe finds nothing on any view at ${width} px, ${scheme}`, async () => {
      const found = [];
      for (const [name, query, key, open] of VIEWS) {
        const { page, problems, context } = await watchedPage(lab.browser, { viewport: { width, height: 900 }, colorScheme: scheme });
        await page.goto(`${lab.url}${query.startsWith('lesson/') ? query : query ? `?${query}` : ''}`);
        await page.locator('main').waitFor();
        await settled(page);
        if (key) await page.keyboard.press(key);
        await act(page, open);
        for (const violation of await axeViolations(page)) found.push(`${name}: ${violation}`);
        found.push(...problems.map((problem) => `${name}: ${problem}`));
        await context.close();
      }
      assert.deepEqual(found, []);
    });
  }
}

// Beyond WCAG: one main heading on every page (projector mode and the embeds
// included) and landmarks a screen reader can tell apart (side by side's two
// runs), at both widths.
for (const width of [390, 1280]) {
  test(`axe's landmark and heading rules find nothing at ${width} px`, async () => {
    const found = [];
    for (const [name, query, key, open] of VIEWS.filter(([name]) => /side by side|projector|embedded|^race/.test(name))) {
      const { page, context } = await watchedPage(lab.browser, { viewport: { width, height: 900 } });
      await page.goto(`${lab.url}${query.startsWith('lesson/') ? query : query ? `?${query}` : ''}`);
      await page.locator('main').waitFor();
      await settled(page);
      if (key) await page.keyboard.press(key);
      await act(page, open);
      for (const violation of await axeViolations(page, ['page-has-heading-one', 'landmark-unique', 'landmark-one-main', 'heading-order'])) {
        found.push(`${name}: ${violation}`);
      }
      await context.close();
    }
    assert.deepEqual(found, []);
  });
}

test('the race can be played, stepped and reconfigured with the keyboard alone, with focus visible', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  await page.goto(lab.url);
  await page.locator('.playback').waitFor();
  // Tab to the scenario's summary, open it with Enter, then Tab to the
  // fencing switch and turn it on with Space.
  for (let presses = 0; presses < 40; presses += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.dataset.testid === 'race-scenario-summary')) break;
  }
  await page.keyboard.press('Enter');
  for (let presses = 0; presses < 40; presses += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.closest('label')?.textContent?.includes('Fencing (the store checks tokens)'))) break;
  }
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none', 'focus is visible');
  await page.keyboard.press('Space');
  // Play with the space bar from the page, then jump to the end.
  await page.locator('h2#race-title').click();
  await page.keyboard.press('End');
  assert.equal(await page.getByTestId('race-rejected-writes').textContent(), '1');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Home');
  assert.equal(await page.getByTestId('race-rejected-writes').textContent(), '0');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.querySelector('[data-testid=race-play]')?.textContent.includes('Pause'));
  await page.keyboard.press('Space');
  assert.match(await page.getByTestId('race-announcer').textContent(), /\S/, 'the live region narrates');
  assert.deepEqual(problems, []);
});
