// The first screens: every link the site draws at build time shows, before
// the simulator arrives, the markup the app then draws at the same cursor
// (text and structure, compared for every link), readable with WebAssembly
// missing altogether; and the app takes the page over in place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { useLab, watchedPage, settled, screenshot, DIST, CSP } from './harness.mjs';

const lab = useLab({ '/': DIST }, { 'content-security-policy': CSP });
const LINKS = JSON.parse(await readFile(path.join(DIST, 'first', 'links.json'), 'utf8'));

/**
 * The page's story as text and structure: each element's tag, its naming
 * attributes and its text, in document order. Left out: what the first
 * screen changes on purpose (its controls disabled until the app runs) and
 * what the app measures on the page (the diagram's geometry, to the width
 * it is shown in; the page's own address in its links).
 */
function outline(root) {
  const KEPT = ['id', 'class', 'data-testid', 'role', 'name', 'for', 'type', 'selected', 'checked', 'hidden', 'href', 'value'];
  const lines = [];
  const walk = (node, depth) => {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) {
        const text = child.textContent.replace(/\s+/g, ' ').trim();
        if (text) lines.push(`${' '.repeat(depth)}"${text}"`);
      } else if (child.nodeType === Node.ELEMENT_NODE) {
        if (['NOSCRIPT', 'TEMPLATE', 'SCRIPT'].includes(child.tagName) || child.id === 'first-screen' || child.id === 'panic-box') continue;
        const svg = child.closest('svg');
        const attributes = [...child.attributes]
          .filter((attribute) => KEPT.includes(attribute.name) || (attribute.name.startsWith('aria-') && !svg))
          .map((attribute) => `${attribute.name}=${attribute.name === 'href' ? attribute.value.replace(/^[^?#]*/, '') : attribute.value}`)
          .sort();
        lines.push(`${' '.repeat(depth)}<${child.tagName.toLowerCase()} ${attributes.join(' ')}>`);
        walk(child, depth + 1);
      }
    }
  };
  walk(root, 0);
  return lines.join('\n');
}

/** The outline of the app's page, and of the link's first screen as the site wrote it. */
async function bothOutlines(page, key) {
  return page.evaluate(async ({ key, source }) => {
    const outlineOf = new Function(`return ${source}`)();
    const html = await (await fetch(`./first/${key}.html`)).text();
    const drawn = document.createElement('div');
    drawn.innerHTML = html;
    return { app: outlineOf(document.body), first: outlineOf(drawn) };
  }, { key, source: outline.toString() });
}

test('every link drawn at build time shows the story the app then draws at its cursor', async () => {
  const returning = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  // The front page is drawn for a first visit, its guided tour showing (a
  // returning learner's browser hides the tour before the paint: theme.js).
  const firstVisit = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 }, guide: true });
  const problems = [returning.problems, firstVisit.problems];
  const keys = Object.keys(LINKS);
  assert.ok(keys.length >= 60, `${keys.length} links drawn`);
  const differences = [];
  for (const key of keys) {
    const { page } = LINKS[key] === '' ? firstVisit : returning;
    await page.goto(`${lab.url}?${LINKS[key]}`);
    await settled(page);
    assert.equal(await page.locator('#first-screen').count(), 0, `${LINKS[key]}: the first screen outlived the app's start`);
    const { app, first } = await bothOutlines(page, key);
    assert.ok(first.split('\n').length > 20, `${LINKS[key]}: a first screen of ${first.split('\n').length} lines`);
    if (app !== first) {
      const appLines = app.split('\n');
      const firstLines = first.split('\n');
      const at = appLines.findIndex((line, index) => line !== firstLines[index]);
      differences.push(`?${LINKS[key]} (first/${key}.html), line ${at}:\n  app:   ${appLines[at]}\n  first: ${firstLines[at]}`);
    }
  }
  assert.deepEqual(differences, []);
  assert.deepEqual(problems.flat(), []);
});

/** Views whose first screens are looked at, and what each must say without WebAssembly. */
const VIEWS = [
  { name: 'race', link: '', says: [/A holds a 10 s lease with token 33/, /B got token 34/, /Zombie writes\s*0/, /Highest token accepted:\s*none/] },
  { name: 'embed-race', link: 'preset=gc-pause&embed=race', says: [/Open in Fencing Lab/, /token 33/, /Stale overwrites\s*0/] },
  // As the course page writes it, with the run's fingerprint: the same screen.
  { name: 'embed-race-fp', link: 'preset=gc-pause&embed=race&fp=8a16a605_A-33.B-34_1.1.0.2_A-33_120.20872', says: [/Open in Fencing Lab/, /token 33/, /Stale overwrites\s*0/] },
  { name: 'fencing-on', link: 'preset=consul-long-pause&fencing=on', says: [/fencing on/, /Rejected writes/] },
  { name: 'compare', link: 'view=compare', says: [/Side by side/, /one difference: fencing/i, /Zombie writes/] },
  { name: 'quiz', link: 'quiz=gc-pause&embed=quiz', says: [/A GC pause outlives the lease/, /Check my prediction/] },
  { name: 'explore', link: 'view=explore', says: [/Can this go wrong\?/] },
];

for (const view of VIEWS) {
  test(`with WebAssembly missing, ${view.name}'s first screen tells its story, its controls waiting`, async () => {
    const { page, context } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
    await context.addInitScript(() => {
      delete globalThis.WebAssembly;
    });
    await page.goto(`${lab.url}?${view.link}`);
    await page.locator('#first-screen').waitFor();
    await page.getByRole('alert').filter({ hasText: 'could not start' }).waitFor();
    const text = await page.locator('#first-screen').innerText();
    for (const said of view.says) assert.match(text, said, `${view.name}: ${said}`);
    const controls = page.locator('#first-screen :is(button, input, select, textarea)');
    assert.ok(await controls.count() > 0);
    assert.equal(await page.locator('#first-screen :is(button, input, select, textarea):not([disabled])').count(), 0);
    await screenshot(page, `first-screen-${view.name}-before`);
    // Printed, the story is there too (the app's handout is never written).
    await page.emulateMedia({ media: 'print' });
    const printed = await page.locator('#first-screen').innerText();
    for (const said of view.says.filter((said) => !/Open in/.test(said.source))) assert.match(printed, said, `${view.name}, printed: ${said}`);
    await context.close();

    // The same link once the app runs: the pair is there to be looked at.
    const running = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
    await running.page.goto(`${lab.url}?${view.link}`);
    await settled(running.page);
    await screenshot(running.page, `first-screen-${view.name}-app`);
    await running.context.close();
  });
}

test('a link the site did not draw names its scenario while it loads, never another story', async () => {
  const { page, context } = await watchedPage(lab.browser);
  await context.addInitScript(() => {
    delete globalThis.WebAssembly;
  });
  await page.goto(`${lab.url}?preset=redis-failover&seed=7`);
  await page.getByRole('alert').filter({ hasText: 'could not start' }).waitFor();
  assert.equal(await page.locator('#first-screen').count(), 0);
  assert.match(await page.locator('#loading').innerText(), /Loading the simulator for this link \(Redis failover\)/);
  await context.close();
});

test('the app takes over in place: the page keeps its scroll position and the focused link', async () => {
  const { page, problems, context } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 700 } });
  // The simulator held back until the reader has scrolled and tabbed.
  let release;
  const held = new Promise((resolve) => {
    release = resolve;
  });
  await page.route('**/fencing-lab-race_bg.wasm*', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${lab.url}`);
  await page.locator('#first-screen').waitFor();
  await page.evaluate(() => window.scrollTo(0, 300));
  await page.getByTestId('tab-quiz').focus();
  const before = await page.evaluate(() => ({ y: window.scrollY, shift: 0 }));
  await page.evaluate(() => {
    window.shifts = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.shifts += entry.value;
    }).observe({ type: 'layout-shift' });
  });
  release();
  await settled(page);
  // The first screen goes once the app has drawn in its place, a frame or
  // so after it mounts: on a loaded machine that can follow \`settled\`.
  await page.locator('#first-screen').waitFor({ state: 'detached', timeout: 10_000 });
  assert.equal(await page.locator('#first-screen').count(), 0);
  assert.equal(await page.evaluate(() => window.scrollY), before.y);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'tab-quiz');
  assert.ok(await page.evaluate(() => window.shifts) <= 0.01, `layout shift ${await page.evaluate(() => window.shifts)}`);
  assert.deepEqual(problems, []);
  await context.close();
});
