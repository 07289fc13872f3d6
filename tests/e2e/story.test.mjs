// The race tells its story on the first screen (issue 15): every panel is a
// function of the current trace and cursor, the diagram's labels never
// overlap or leave the picture and are never below 12 px, the first
// viewport holds the diagram, Play and the caption, faults are listed one
// per line, side by side lines up, and touch screens get 44 px targets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { useLab, watchedPage, framesDrawn, ARTIFACTS } from './harness.mjs';

const lab = useLab();

/** Clicks End on the view (`race` or `compare`) and waits until its scrubber is there. */
async function toTheEnd(page, view = 'race') {
  await page.getByTestId(`${view}-end`).click();
  await page.waitForFunction((id) => {
    const scrubber = document.querySelector(`[data-testid=${id}-scrubber]`);
    return scrubber && scrubber.value === scrubber.max;
  }, view);
  await framesDrawn(page);
}

async function open(query, options = {}) {
  const watched = await watchedPage(lab.browser, { viewport: { width: 1280, height: 800 }, ...options });
  await watched.page.goto(`${lab.url}?${query}`);
  await watched.page.getByTestId('race-play').waitFor();
  return watched;
}

/** Everything the race shows about the run at the cursor, as text. */
async function panels(page) {
  const read = (testid) => page.getByTestId(testid).textContent();
  const kinds = await page.locator('[data-testid=race-diagram] [data-kind]').evaluateAll((marks) => marks.map((mark) => mark.dataset.kind).join(','));
  return {
    verdict: await read('race-verdict'),
    counters: await page.locator('.counters').textContent(),
    notes: await read('race-notes'),
    holds: await read('race-store-holds'),
    highest: await read('race-store-highest'),
    beforeAfter: await page.getByTestId('race-before-after').count(),
    writeLog: await read('race-write-log'),
    events: await read('race-events'),
    caption: await read('race-caption'),
    diagram: kinds,
    position: await page.getByTestId('race-scrubber').inputValue(),
  };
}

test('toggling fencing at the end of every preset leaves no panel on the other run', async () => {
  const { page, problems } = await open('preset=gc-pause');
  const ids = await page.locator('#race-preset option').evaluateAll((options) => options.map((option) => option.value));
  assert.ok(ids.length >= 13, `${ids.length} presets`);
  for (const id of ids) {
    await page.goto(`${lab.url}?preset=${id}`);
    await toTheEnd(page);
    await page.getByTestId('race-scenario-summary').click();
    const before = page.url();
    await page.getByLabel('Fencing (the store checks tokens)').click();
    // The link is written once the new run is drawn; the fresh load reads it.
    await page.waitForURL((url) => url.href !== before);
    await framesDrawn(page);
    const toggled = await panels(page);
    const fresh = await watchedPage(lab.browser, { viewport: { width: 1280, height: 800 } });
    await fresh.page.goto(page.url());
    await fresh.page.getByTestId('race-play').waitFor();
    assert.deepEqual(await panels(fresh.page), toggled, `${id}: a fresh load of ${page.url()} differs`);
    problems.push(...fresh.problems);
    await fresh.context.close();
  }
  assert.deepEqual(problems, []);
});

/** Text boxes of the diagram (labels, words, times, breaks, glyphs), in page pixels. */
async function diagramTexts(page) {
  return page.locator('[data-testid=race-diagram]').evaluate((svg) => {
    const frame = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text')].map((text) => {
      const box = text.getBoundingClientRect();
      return {
        text: text.textContent,
        glyph: text.classList.contains('glyph'),
        size: parseFloat(getComputedStyle(text).fontSize),
        left: box.left - frame.left,
        top: box.top - frame.top,
        right: box.right - frame.left,
        bottom: box.bottom - frame.top,
        width: frame.width,
        height: frame.height,
      };
    });
  });
}

const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`at ${width}×${height} the first screen holds the picture of the run, Play and the caption, and every preset's labels stand apart at 12 px or more`, async () => {
    const { page, problems } = await open('preset=gc-pause', { viewport: { width, height }, hasTouch: width < 500, isMobile: width < 500 });
    for (const [name, testid] of [['Play', 'race-play'], ['caption', 'race-caption'], ['picture', 'race-overview']]) {
      const box = await page.getByTestId(testid).boundingBox();
      const visible = name === 'picture' ? box.y + 120 <= height : box.y + box.height <= height;
      assert.ok(box && visible, `${name} is not on the first screen at ${width}×${height}: ${JSON.stringify(box)}`);
    }
    // At the start, the first row sits below the lane names, not under them.
    await page.getByTestId('race-forward').click();
    const head = await page.locator('[data-testid=race-diagram-scroll] .diagram-head').boundingBox();
    const first = await page.locator('[data-testid=race-diagram] text.time').first().boundingBox();
    assert.ok(first.y >= head.y + head.height, `the first row hides under the lane names: ${first.y} < ${head.y + head.height}`);
    const ids = await page.locator('#race-preset option').evaluateAll((options) => options.map((option) => option.value));
    for (const id of ids) {
      await page.goto(`${lab.url}?preset=${id}`);
      await toTheEnd(page);
      const texts = await diagramTexts(page);
      assert.ok(texts.length > 10, `${id}: ${texts.length} texts`);
      for (const text of texts) {
        assert.ok(text.size >= 12, `${id}: "${text.text}" is ${text.size} px`);
        assert.ok(text.left >= 0 && text.top >= 0 && text.right <= text.width + 0.5 && text.bottom <= text.height + 0.5, `${id}: "${text.text}" crosses the edge: ${JSON.stringify(text)}`);
      }
      // A quiet stretch's words ("⋯ 4.127 s later") never lie over a worker's bars.
      const crossed = await page.locator('[data-testid=race-diagram]').evaluate((svg) => {
        const bars = [...svg.querySelectorAll('rect[class^="span-"]')].map((bar) => bar.getBoundingClientRect());
        const over = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        return [...svg.querySelectorAll('text.break-text')]
          .filter((words) => bars.some((bar) => over(words.getBoundingClientRect(), bar)))
          .map((words) => words.textContent);
      });
      assert.deepEqual(crossed, [], `${id}: a quiet stretch's words lie over a worker's bars`);
      const labels = texts.filter((text) => !text.glyph);
      for (let i = 0; i < labels.length; i += 1) {
        for (let j = i + 1; j < labels.length; j += 1) {
          assert.ok(!overlap(labels[i], labels[j]), `${id}: "${labels[i].text}" overlaps "${labels[j].text}"`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });
}

test('one step back from the end, the banner still says what the counters say', async () => {
  const { page, problems } = await open('preset=gc-pause');
  await page.getByTestId('race-end').click();
  await page.getByTestId('race-back').click();
  assert.equal(await page.getByTestId('race-zombie-writes').textContent(), '1');
  assert.match(await page.getByTestId('race-verdict').textContent(), /overwrote B's newer data/);
  assert.deepEqual(problems, []);
});

test('with fencing on, the red mutual exclusion counter gets its reason', async () => {
  const { page, problems } = await open('preset=gc-pause&fencing=on');
  await page.getByTestId('race-end').click();
  assert.equal(await page.getByTestId('race-violations').textContent(), '1');
  assert.match(await page.getByTestId('race-verdict').textContent(), /rejected/);
  assert.match(await page.getByTestId('race-notes').textContent(), /\S/, 'a one-line reason for the red counter');
  assert.deepEqual(problems, []);
});

test('faults are listed one per line, each removable, the preset\'s own marked', async () => {
  const { page, problems } = await open('preset=gc-pause');
  const list = page.getByTestId('race-faults');
  assert.equal(await list.locator('li').count(), 1);
  assert.match(await list.textContent(), /A pauses 15000 ms before write 1\s*the preset's/);
  await page.getByTestId('race-forward').click();
  await page.getByTestId('race-crash-B').click();
  assert.equal(await list.locator('li').count(), 2);
  assert.doesNotMatch(await list.locator('li').nth(1).textContent(), /the preset's/);
  await page.getByTestId('race-remove-added').click();
  assert.equal(await list.locator('li').count(), 1, 'removing the added faults keeps the preset\'s story');
  await list.getByRole('button', { name: /Remove: A pauses/ }).click();
  assert.match(await list.textContent(), /No faults/);
  await page.getByTestId('race-end').click();
  assert.equal(await page.getByTestId('race-zombie-writes').textContent(), '0');
  assert.deepEqual(problems, []);
});

test('side by side lines up row for row in two columns, in a course column too, and stacks its runs on a phone', async () => {
  for (const [width, height] of [[1280, 800], [832, 900], [390, 844]]) {
    const { page, problems, context } = await watchedPage(lab.browser, { viewport: { width, height } });
    await page.goto(`${lab.url}?view=compare&preset=gc-pause&compare=fencing`);
    await page.getByTestId('compare-play').waitFor();
    await page.getByTestId('compare-end').click();
    const left = await page.getByTestId('left-diagram-scroll').boundingBox();
    const right = await page.getByTestId('right-diagram-scroll').boundingBox();
    if (width < 704) {
      // A phone: each run at the full width, the right one under the left.
      assert.ok(right.y > left.y + left.height - 1, `${width}: the runs stack`);
      assert.ok(Math.abs(right.width - left.width) < 1 && left.width > width * 0.8, `${width}: each run gets the width (${left.width} px)`);
      const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(sideways, 0, `${width}: the page does not scroll sideways`);
      await context.close();
      continue;
    }
    assert.equal(Math.round(left.y), Math.round(right.y), `${width}: the diagrams start level`);
    assert.ok(right.x > left.x + left.width - 1, `${width}: the panes sit side by side`);
    // Each diagram writes the rows near its own cursor (a retried job makes
    // one run longer than the other): where both wrote a row, it is the same moment.
    const rows = (await page.evaluate(() => ['left', 'right'].map((id) => [...document.querySelectorAll(`[data-testid=${id}-diagram] .time`)].map((time) => [time.getAttribute('y'), time.textContent]))))
      .map((entries) => new Map(entries));
    const shared = [...rows[0].keys()].filter((y) => rows[1].has(y));
    assert.ok(shared.length >= 5, `${width}: the diagrams share ${shared.length} rows`);
    for (const y of shared) assert.equal(rows[0].get(y), rows[1].get(y), `${width}: the same moment at ${y} px`);
    const texts = await page.locator('[data-testid=left-diagram] text').evaluateAll((all) => all.map((text) => parseFloat(getComputedStyle(text).fontSize)));
    assert.ok(Math.min(...texts) >= 12, `${width}: text at ${Math.min(...texts)} px`);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('on a touch screen every control is at least 44 px and there are no keyboard hints', async () => {
  const { page, problems } = await open('preset=gc-pause', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  assert.equal(await page.locator('.shortcuts').isVisible(), false, 'no keyboard hints on a touch-only device');
  await page.getByTestId('race-scenario-summary').click();
  const small = await page.evaluate(() =>
    [...document.querySelectorAll('button, select, input, summary, a, .option, .check')]
      .filter((element) => element.checkVisibility() && !element.closest('.diagram-scroll, .events'))
      .map((element) => ({ element, box: element.getBoundingClientRect() }))
      .filter(({ element, box }) => {
        // A checkbox or radio counts through its label, which carries the 44 px.
        if (element.matches('input[type=checkbox], input[type=radio]')) return element.closest('label').getBoundingClientRect().height < 44;
        return box.height < 44 || (box.width < 44 && element.tagName !== 'A');
      })
      .map(({ element, box }) => `${element.tagName} "${element.textContent.trim().slice(0, 30)}" ${Math.round(box.width)}×${Math.round(box.height)}`),
  );
  assert.deepEqual(small, []);
  assert.deepEqual(problems, []);
});

test('playing at 1× reaches the zombie write well within ten seconds, and keeps the picture of the run in view', async () => {
  const { page, problems } = await open('preset=gc-pause', { viewport: { width: 390, height: 844 } });
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  const started = Date.now();
  await page.getByTestId('race-play').click();
  const box = await page.getByTestId('race-overview').boundingBox();
  assert.ok(box.y < 844 && box.y + box.height > 0, 'Play brings the picture of the run into view');
  await page.locator('[data-testid=race-diagram] [data-kind=stale-overwrite]').waitFor({ timeout: 10_000 });
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 8_000, `the zombie write came after ${elapsed} ms`);
  // The phone shows fewer lanes than there are: it has followed the action to the store.
  await page.waitForFunction(() => {
    const scroller = document.querySelector('[data-testid=race-diagram-scroll]');
    const store = scroller.querySelector('.diagram-head text:nth-last-of-type(2)');
    const s = scroller.getBoundingClientRect();
    const b = store.getBoundingClientRect();
    return b.left >= s.left && b.right <= s.right;
  }, null, { timeout: 3_000 });
  assert.deepEqual(problems, []);
});

for (const [width, height, name] of [[390, 844, 'phone'], [1280, 800, 'laptop'], [960, 540, 'projector']]) {
  for (const scheme of ['light', 'dark']) {
    test(`screenshots: ${name} (${width}×${height}), ${scheme}`, async () => {
      const { page, problems, context } = await watchedPage(lab.browser, { viewport: { width, height }, colorScheme: scheme });
      await page.goto(`${lab.url}?preset=gc-pause`);
      await page.getByTestId('race-play').waitFor();
      await toTheEnd(page);
      await page.screenshot({ path: await screenshotPath(`story-race-${name}-${scheme}`) });
      await page.goto(`${lab.url}?view=compare&preset=gc-pause&compare=fencing`);
      await toTheEnd(page, 'compare');
      await page.screenshot({ path: await screenshotPath(`story-compare-${name}-${scheme}`) });
      assert.deepEqual(problems, []);
      await context.close();
    });
  }
}

/** Where a first-screen (not full-page) screenshot goes. */
async function screenshotPath(name) {
  await mkdir(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, `${name}.png`);
}
