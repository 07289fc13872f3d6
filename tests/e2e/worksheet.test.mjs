// The race as a worksheet: the fencing switch is beside Play on the first
// screen, the story line says what the run is (and follows every edit), the
// next experiment is one click once a run is over, and what a link or an
// edit names that the page cannot use gets a notice. Each case failed on the
// page before these were built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useLab, watchedPage, screenshot, settled } from './harness.mjs';

const lab = useLab();

async function open(query, viewport = { width: 1280, height: 800 }) {
  const watched = await watchedPage(lab.browser, { viewport });
  await watched.page.goto(`${lab.url}?${query}`);
  await watched.page.getByTestId('race-play').waitFor();
  await settled(watched.page);
  return watched;
}

/** Whether the element is wholly inside the viewport without scrolling. */
async function onFirstScreen(page, testid) {
  return page.getByTestId(testid).evaluate((element) => {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth && box.width > 0;
  });
}

for (const [name, viewport, query] of [
  ['laptop', { width: 1280, height: 800 }, 'preset=gc-pause'],
  ['phone', { width: 390, height: 844 }, 'preset=gc-pause'],
  ['embed', { width: 600, height: 450 }, 'preset=gc-pause&embed=race'],
]) {
  test(`the fencing switch is on the first screen (${name})`, async () => {
    const { page, problems } = await open(query, viewport);
    assert.ok(await onFirstScreen(page, 'race-fencing'), 'the switch is visible without scrolling');
    assert.equal(await page.getByRole('switch', { name: 'Fencing' }).count(), 1, 'a switch named Fencing');
    assert.deepEqual(problems, []);
  });
}

/** Whether the element is at least partly inside the viewport now. */
async function inView(locator) {
  return locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    return box.height > 0 && box.bottom > 0 && box.top < innerHeight;
  });
}

test('in a 600×450 frame without the resize helper the race is compact: verdict, controls, the picture and store, the verdict pinned', async () => {
  const { page, problems } = await open('preset=gc-pause&embed=race', { width: 600, height: 450 });
  for (const testid of ['race-verdict', 'race-play', 'race-fencing']) assert.ok(await onFirstScreen(page, testid), `${testid} on the first screen`);
  assert.ok(await inView(page.getByTestId('race-picture')), 'the picture starts on the first screen');
  assert.ok(!(await page.locator('.race-main .diagram-scroll').isVisible()), 'the detailed diagram is in the details');
  await page.getByTestId('race-end').click();
  // Scroll to the end of the run's story: the overwrite, the store and the verdict are all in view.
  const overwrite = page.locator('[data-testid=race-picture] text.pic-label', { hasText: "takes A's old write (33)" });
  await overwrite.scrollIntoViewIfNeeded();
  assert.ok(await inView(overwrite));
  assert.ok(await inView(page.getByTestId('race-store-holds')), "the store's content beside it");
  assert.ok(await onFirstScreen(page, 'race-verdict'), 'the verdict stays in view after the scroll');
  assert.match(await page.getByTestId('race-verdict').textContent(), /overwrote B's newer data/);
  await screenshot(page, 'embed-compact-600x450');
  assert.deepEqual(problems, []);
});

for (const [name, viewport] of [['laptop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
  test(`the picture is to scale: A's 10 s lease is two thirds of the 15 s run, the zombie window the last third, its seconds on the axis (${name})`, async () => {
    const { page, problems } = await open('preset=gc-pause', viewport);
    await page.getByTestId('race-end').click();
    const drawn = await page.getByTestId('race-picture').evaluate((box) => {
      const svg = box.querySelector('svg');
      const ticks = [...svg.querySelectorAll('text.pic-tick')];
      const x = (text) => { const at = text.getBoundingClientRect(); return (at.left + at.right) / 2; };
      // The axis from 0 s to 15 s, by the ticks' lines (the texts may be nudged inside the picture).
      const lines = [...svg.querySelectorAll('line.pic-axis')].slice(1).map((line) => line.getBoundingClientRect().left);
      const [zero, end] = [lines[0], lines[lines.length - 1]];
      const share = (element) => {
        const at = element.getBoundingClientRect();
        return [(at.left - zero) / (end - zero), at.width / (end - zero)];
      };
      const texts = [...svg.querySelectorAll('text')].map((text) => text.getBoundingClientRect());
      const frame = svg.getBoundingClientRect();
      return {
        lease: share(svg.querySelector('.bar-lease')),
        zombie: share(svg.querySelector('.bar-zombie')),
        ticks: ticks.map((text) => text.textContent),
        outside: texts.filter((at) => at.left < frame.left - 1 || at.right > frame.right + 1).length,
        named: [...svg.querySelectorAll('text.pic-label')].some((text) => text.textContent === '⚠ zombie window, 5 s'),
        spread: x(ticks[0]),
      };
    });
    // To scale, but for the few pixels that keep the moments at 0 s and at 10.872 s apart.
    // (a glyph's width of the axis per moment spread: more of a phone's narrow axis)
    const slack = name === 'phone' ? 0.1 : 0.06;
    const near = (actual, expected, what) => assert.ok(Math.abs(actual - expected) < slack, `${what}: ${actual} of the width, not ${expected}`);
    near(drawn.lease[0], 0, "A's lease starts");
    near(drawn.lease[1], 10 / 15, "A's lease spans");
    near(drawn.zombie[0], 10 / 15, 'the zombie window starts');
    near(drawn.zombie[1], 5 / 15, 'the zombie window spans');
    assert.deepEqual(drawn.ticks, ['0 s', '5 s', '10 s', '15 s']);
    assert.equal(drawn.outside, 0, 'every label inside the picture');
    assert.ok(drawn.named, 'the zombie window is named, with its length');
    assert.deepEqual(problems, []);
  });
}

test('opening the scenario panel leaves the heading, Present and the explorer link where they were', async () => {
  const { page, problems } = await open('preset=gc-pause');
  const where = () => Promise.all(['#race-title', '[data-testid=race-present]', '[data-testid=race-explore]'].map(async (selector) => (await page.locator(selector).boundingBox()).y));
  const before = await where();
  await page.getByTestId('race-scenario-summary').click();
  await page.getByTestId('race-ttl').waitFor();
  const after = await where();
  before.forEach((y, index) => assert.ok(Math.abs(after[index] - y) <= 2, `item ${index} moved from ${y} to ${after[index]}`));
  assert.deepEqual(problems, []);
});

for (const [name, viewport, query, view, scrollers] of [
  ['the race on a phone', { width: 390, height: 844 }, 'preset=gc-pause', 'race', ['race-diagram-scroll']],
  ['side by side on a laptop', { width: 1280, height: 800 }, 'view=compare&compare=fencing', 'compare', ['left-diagram-scroll', 'right-diagram-scroll']],
]) {
  test(`the detailed diagram narrows its lanes to its box: every lane, and every label at the run's end, in view (${name})`, async () => {
    const { page, problems } = await watchedPage(lab.browser, { viewport });
    await page.goto(`${lab.url}?${query}`);
    // The detailed diagrams are in each run's details.
    for (const summary of await page.locator('details:is(.race-details, .pane-details) > summary').all()) await summary.click();
    await page.getByTestId(`${view}-end`).click();
    await settled(page);
    for (const testid of scrollers) {
      // The lane names, and every text of the rows in view (the end of the run).
      const seen = await page.getByTestId(testid).evaluate((scroller) => {
        const box = scroller.getBoundingClientRect();
        const shown = (text) => { const at = text.getBoundingClientRect(); return at.width > 0 && at.bottom > box.top && at.top < box.bottom; };
        const out = (text) => { const at = text.getBoundingClientRect(); return at.left < box.left - 1 || at.right > box.right + 1; };
        const names = [...scroller.querySelectorAll('.diagram-head text')];
        return {
          lanes: names.filter((text) => !out(text)).map((text) => text.textContent),
          outside: [...scroller.querySelectorAll('svg.diagram text')].filter(shown).filter(out).map((text) => text.textContent),
        };
      });
      for (const lane of ['A', 'B', 'L1', 'store']) assert.ok(seen.lanes.includes(lane), `${testid}: lane ${lane} is not in view (${seen.lanes})`);
      assert.deepEqual(seen.outside, [], `${testid}: texts cut at the view's edge`);
    }
    assert.deepEqual(problems, []);
  });
}

test('the switch reruns the story with fencing, says so, and the link follows', async () => {
  const { page, problems } = await open('preset=gc-pause');
  await page.getByTestId('race-end').click();
  assert.match(await page.getByTestId('race-verdict').textContent(), /overwrote B's newer data/);
  await page.getByTestId('race-fencing').check();
  await page.waitForURL(/fencing=on/);
  assert.match(await page.getByTestId('race-verdict').textContent(), /rejected: token 33 < 34/);
  assert.match(await page.getByTestId('race-fencing-said').textContent(), /Fencing on/);
  assert.match(await page.getByTestId('race-scenario-summary').textContent(), /fencing on/);
  // The learner edited nothing of the story: it stays, with the change in words.
  assert.match(await page.getByTestId('race-story').textContent(), /^A holds a 10 s lease with token 33, .* and now the store checks tokens\.$/);
  assert.deepEqual(problems, []);
});

test('the story line is the preset\'s until an edit, then names the edit', async () => {
  const { page, problems } = await open('preset=gc-pause');
  assert.match(await page.getByTestId('race-story').textContent(), /^A holds a 10 s lease with token 33, freezes for 15 s/);
  await page.getByTestId('race-scenario-summary').click();
  await page.getByTestId('race-ttl').fill('40000');
  await page.getByTestId('race-ttl').press('Enter');
  await page.waitForURL(/ttl_ms=40000/);
  assert.equal(
    await page.getByTestId('race-story').textContent(),
    'Edited from “GC pause”: Single Redis (SET NX PX); a 40 s lease; A pauses 15000 ms before write 1; fencing off.',
  );
  // The form's own line follows the edit too (it said "a 10 s lease" here once).
  assert.equal(await page.getByTestId('race-form-story').textContent(), await page.getByTestId('race-story').textContent());
  // A bad edit gets the reason a bad link gets.
  await page.getByTestId('race-ttl').fill('-5');
  await page.getByTestId('race-ttl').press('Enter');
  assert.match(await page.getByTestId('race-problem').textContent(), /Not applied: the lease cannot be negative/);
  assert.deepEqual(problems, []);
});

test('after each verdict the next experiment is one click: fencing, then the explorer', async () => {
  const { page, problems } = await open('preset=gc-pause');
  assert.equal(await page.getByTestId('race-next').count(), 0, 'nothing to suggest before the run is over');
  await page.getByTestId('race-end').click();
  const next = page.getByTestId('race-next');
  assert.equal(await next.textContent(), 'Now turn fencing on →');
  await next.click();
  await page.waitForURL(/fencing=on/);
  assert.match(await page.getByTestId('race-story').textContent(), /^A holds a 10 s lease with token 33, .* and now the store checks tokens\.$/);
  await page.getByTestId('race-end').click();
  assert.match(await page.getByTestId('race-verdict').textContent(), /rejected: token 33 < 34/);
  assert.match(await next.textContent(), /Can this still go wrong\? Let the explorer search this design/);
  assert.match(await next.getAttribute('href'), /view=explore.*fencing=on/);
  await screenshot(page, 'race-next-step-1280');
  assert.deepEqual(problems, []);
});

test('a survived pause suggests one past the lease, and that one loses', async () => {
  const { page, problems } = await open('preset=lease-x4');
  await page.getByTestId('race-end').click();
  assert.match(await page.getByTestId('race-verdict').textContent(), /no write was damaged|one holder at a time/i);
  await page.getByTestId('race-next').click();
  await page.waitForURL(/pause_ms=45000/);
  assert.match(await page.getByTestId('race-story').textContent(), /and now the pause lasts 45 s\.$/);
  await page.getByTestId('race-end').click();
  assert.match(await page.getByTestId('race-verdict').textContent(), /overwrote B's newer data/);
  assert.deepEqual(problems, []);
});

for (const [query, said] of [
  ['view=nope', /ignored view=nope: there is no such view/],
  ['embed=nope', /ignored embed=nope: there is no such view/],
  ['theme=pink', /ignored theme=pink: the themes are light, dark and auto/],
  ['ttl_ms=-5', /ignored ttl_ms=-5: the lease cannot be negative/],
]) {
  test(`a link the page cannot use says so: ${query}`, async () => {
    const { page, problems } = await open(query);
    assert.match(await page.locator('.notice').first().textContent(), said);
    assert.deepEqual(problems, []);
  });
}

test('an unknown question says so and opens the first', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 800 } });
  await page.goto(`${lab.url}?quiz=zzz`);
  await page.getByTestId('question').waitFor();
  assert.match(await page.locator('.notice').first().textContent(), /ignored quiz=zzz: there is no such question/);
  assert.equal(await page.getByTestId('question').getAttribute('data-question'), 'gc-pause');
  assert.deepEqual(problems, []);
});

test('an edited lease survives a look at the quiz and the way back', async () => {
  const { page, problems } = await open('preset=gc-pause&ttl_ms=7000');
  await page.getByTestId('tab-quiz').click();
  await page.getByTestId('question').waitFor();
  await page.getByTestId('tab-race').click();
  await page.getByTestId('race-play').waitFor();
  await page.waitForURL(/ttl_ms=7000/);
  assert.match(await page.getByTestId('race-scenario-summary').textContent(), /lease 7\ss/);
  assert.deepEqual(problems, []);
});

test('side by side opens both panes alike', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 800 } });
  await page.goto(`${lab.url}?view=compare&preset=gc-pause&compare=fencing`);
  await page.getByTestId('compare-named').waitFor();
  const left = await page.getByTestId('left-verdict').textContent();
  assert.equal(await page.getByTestId('right-verdict').textContent(), left);
  assert.doesNotMatch(left, /Nothing has happened yet/);
  assert.deepEqual(problems, []);
});

test('a print preview built from print media shows the handout, not a blank page', async () => {
  const { page, problems } = await open('preset=gc-pause');
  assert.equal(await page.locator('.handout .overview').count(), 0, 'on screen the page holds no second copy of the run');
  await page.emulateMedia({ media: 'print' });
  await page.locator('.handout .overview').waitFor({ state: 'attached' });
  assert.match(await page.locator('.handout').textContent(), /overwrote B's newer data/);
  await page.emulateMedia({ media: 'screen' });
  await page.waitForFunction(() => !document.querySelector('.handout .overview'));
  assert.deepEqual(problems, []);
});

for (const [name, viewport] of [['laptop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
  test(`the whole classic run is one picture at its end, every lane in it (${name})`, async () => {
    const { page, problems } = await open('preset=gc-pause', viewport);
    const picture = page.getByTestId('race-picture');
    const before = (await picture.boundingBox()).height;
    // The lanes are there from the first frame, before anything happened.
    for (const lane of ['Worker A', 'Worker B', 'Lock server (Redis)', 'Store']) {
      assert.equal(await picture.locator('text.lane-name', { hasText: lane }).count(), 1, `lane ${lane}`);
    }
    assert.equal(await picture.locator('.pic-mark').count(), 0, 'nothing of the run before it starts');
    await page.getByTestId('race-end').click();
    const words = ["A's lease runs out", 'gets the lock, token 34', "takes A's old write (33)", '⚠ zombie window, 5 s'];
    if (name === 'phone') await picture.scrollIntoViewIfNeeded();
    for (const caption of words) {
      const label = picture.locator('text.pic-label', { hasText: caption });
      assert.equal(await label.count(), 1, caption);
      const inView = await label.evaluate((element) => {
        const rect = element.getBoundingClientRect();
        return rect.top >= 0 && rect.bottom <= innerHeight && rect.right <= innerWidth;
      });
      assert.ok(inView, `${caption}: in view with the rest of the story`);
    }
    assert.equal(await picture.locator('.pic-mark.current.zombie').count(), 1, 'the overwrite is the current mark');
    assert.ok(await picture.evaluate((box) => box.scrollWidth <= box.clientWidth + 1), 'nothing clipped sideways');
    assert.ok(Math.abs((await picture.boundingBox()).height - before) < 2, 'the picture keeps its height: nothing below moves');
    if (name === 'laptop') assert.ok(await onFirstScreen(page, 'race-verdict'), 'the verdict stays in view');
    await screenshot(page, `race-picture-${name}`);
    assert.deepEqual(problems, []);
  });
}

for (const [name, viewport] of [['laptop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
  test(`side by side, each pane shows its whole run with every lane (${name})`, async () => {
    const { page, problems } = await watchedPage(lab.browser, { viewport });
    await page.goto(`${lab.url}?view=compare&preset=gc-pause&compare=fencing`);
    await page.getByTestId('compare-named').waitFor();
    await page.getByTestId('compare-end').click();
    for (const [side, words] of [['left', "takes A's old write (33)"], ['right', "refuses A's write (33)"]]) {
      const picture = page.getByTestId(`${side}-picture`);
      assert.equal(await picture.locator('text.pic-label', { hasText: words }).count(), 1, `${side}: ${words}`);
      assert.equal(await picture.locator('text.lane-name').count(), 4, `${side}: every lane`);
      assert.ok(await picture.evaluate((box) => box.scrollWidth <= box.clientWidth + 1), `${side}: nothing clipped sideways`);
    }
    if (name === 'laptop') {
      const label = page.getByTestId('left-picture').locator('text.pic-label', { hasText: "takes A's old write (33)" });
      assert.ok(await label.evaluate((element) => element.getBoundingClientRect().bottom <= innerHeight), 'the end of the story is on the first screen');
    }
    await screenshot(page, `compare-picture-${name}`);
    assert.deepEqual(problems, []);
  });
}
