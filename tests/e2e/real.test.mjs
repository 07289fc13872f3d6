// What a real server did (issue 46): a committed recording beside the
// model's run of its story, a history file opened from the disk and judged,
// a bad file's notices, and the race's way there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { useLab, watchedPage, screenshot, axeViolations, ROOT } from './harness.mjs';

const lab = useLab();

const text = (page, testid) => page.getByTestId(testid).textContent();

async function open(query, options = {}) {
  const watched = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 }, ...options });
  await watched.page.goto(`${lab.url}?${query}`);
  await watched.page.getByTestId('real-end').waitFor();
  return watched;
}

/** What `fencing-lab check --json` says of a history file: the page must say the same. */
function checked(file) {
  try {
    return JSON.parse(execFileSync('cargo', ['run', '-q', '--release', '-p', 'fencing-lab', '--', 'check', '--json', file], { cwd: ROOT, encoding: 'utf8' })).summary;
  } catch (error) {
    // Exit 1: the history was damaged; its JSON is printed all the same.
    return JSON.parse(error.stdout).summary;
  }
}

const counters = (page, side) =>
  Promise.all(['zombie-writes', 'stale-overwrites', 'rejected-writes'].map((name) => text(page, `${side}-${name}`).then(Number)));

test('a recording opens beside the model: its provenance, its first damage, and the counters fencing-lab check gives', async () => {
  const { page, problems, context } = await open('view=real&preset=gc-pause');
  assert.match(await page.locator('.pane-name.pane-left').textContent(), /^The model: /);
  assert.equal(await page.locator('.pane-name.pane-right').textContent(), 'What a real server did');
  assert.notEqual((await text(page, 'real-provenance')).trim(), 'Recorded by:');
  await page.getByTestId('real-end').click();
  const summary = checked(path.join(ROOT, 'recordings/gc-pause.redis.jsonl'));
  assert.deepEqual(await counters(page, 'right'), [summary.zombie_writes, summary.stale_overwrites, summary.rejected_writes]);
  assert.match(await text(page, 'real-first-damage'), /^In the recording, the first damaging write: line \d+, at /);
  // The model runs at the real run's own settings (the recording's header names them): the two
  // agree on every fact, and the moments that moved are told.
  const differences = await page.getByTestId('real-differences').locator('li').allTextContents();
  assert.equal(differences.at(-1), "Every fact as the model tells it; every other moment within 10 ms of the model's.");
  assert.ok(differences.slice(0, -1).every((line) => / than in the model \(/.test(line)), differences.join('\n'));
  await screenshot(page, 'real-1280-light');
  assert.deepEqual(problems, []);
  await context.close();
});

test('every recording: the page counts what fencing-lab check counts, and names its first damage as check does', async () => {
  const { page, problems, context } = await open('view=real&preset=gc-pause');
  const files = await page.getByTestId('real-recording').locator('option').evaluateAll((options) => options.map((option) => option.value));
  assert.ok(files.length >= 7, `the recordings listed: ${files}`);
  for (const file of files) {
    await page.getByTestId('real-recording').selectOption(file);
    await page.getByTestId('real-end').click();
    const summary = checked(path.join(ROOT, 'recordings', file));
    assert.deepEqual(await counters(page, 'right'), [summary.zombie_writes, summary.stale_overwrites, summary.rejected_writes], file);
    const damaged = summary.zombie_writes + summary.stale_overwrites > 0;
    assert.equal(/first damaging write: line \d+/.test(await text(page, 'real-first-damage')), damaged, file);
    assert.match(await text(page, 'real-provenance'), /recorded 20\d\d-\d\d-\d\d/, file);
    // Held to the run its check staged, a recording differs from the model in moments, never in a fact.
    const lines = await page.getByTestId('real-differences').locator('li').allTextContents();
    assert.ok(lines.length > 0 && lines.every((line) => !line.includes('; the real run ')), `${file}: ${lines.join(' | ')}`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('embed=real shows the view alone, without its Embed button', async () => {
  const { page, problems, context } = await open('embed=real&preset=redis-failover');
  assert.equal(await page.getByTestId('real-recording').inputValue(), 'redis-failover.jsonl');
  assert.equal(await page.locator('.site-header nav').count(), 0);
  assert.equal(await page.getByTestId('embed-real').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

/** Opens examples/histories/`name` on the page, plays it to its end and holds the counters to
 * fencing-lab check's; check's summary. */
async function openedAsCheckCounts(page, name) {
  const file = path.join(ROOT, 'examples/histories', name);
  await page.getByTestId('real-file').setInputFiles(file);
  await page.locator('.pane-name.pane-right').filter({ hasText: `Your file: ${name}` }).waitFor();
  await page.getByTestId('real-end').click();
  const summary = checked(file);
  assert.deepEqual(await counters(page, 'right'), [summary.zombie_writes, summary.stale_overwrites, summary.rejected_writes], name);
  return summary;
}

test('a history file opened from the disk is judged and drawn; a bad one gets its notices and the recording stays', async () => {
  const { page, problems, context } = await open('view=real&preset=gc-pause');
  // The hand-made history with a zombie write: the page's verdict and first damage are check's.
  const damaged = await openedAsCheckCounts(page, 'zombie-write.jsonl');
  assert.ok((await text(page, 'right-verdict')).endsWith(damaged.verdict), `the page's verdict is check's: ${damaged.verdict}`);
  assert.equal(
    await text(page, 'real-first-damage'),
    "In your file, the first damaging write: line 7, at 15.000 s: Store accepted A's stale write (token 33): it overwrote B's newer data.",
  );
  await openedAsCheckCounts(page, 'zombie-write-fenced.jsonl');
  assert.equal(await text(page, 'real-first-damage'), 'In your file, no write damaged the data.');
  // Not UTF-8, and then a record out of time order: each named, nothing drawn from it.
  await page.getByTestId('real-file').setInputFiles({ name: 'binary.jsonl', mimeType: 'application/octet-stream', buffer: Buffer.from([0xff, 0xfe, 0x00]) });
  await page.getByTestId('real-problems').filter({ hasText: /binary\.jsonl is not a history.*line 1 is not UTF-8/s }).waitFor();
  assert.match(await page.locator('.pane-name.pane-right').textContent(), /zombie-write-fenced/, 'the last good file stays');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the race links to the recording of its story once the run is over', async () => {
  const { page, problems, context } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${lab.url}?preset=gc-pause`);
  await page.getByTestId('race-end').click();
  await page.getByTestId('race-real').click();
  await page.getByTestId('real-end').waitFor();
  assert.match(page.url(), /view=real/);
  assert.deepEqual(problems, []);
  await context.close();
});

for (const [width, scheme] of [[390, 'dark'], [1280, 'dark'], [390, 'light']]) {
  test(`what a real server did fits ${width} px in ${scheme}, and axe finds nothing`, async () => {
    const { page, problems, context } = await open('view=real&preset=gc-pause', { viewport: { width, height: 844 }, colorScheme: scheme });
    await page.keyboard.press('End');
    await page.locator('.verdict:not(.pending)').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at ${width}px`);
    assert.deepEqual(await axeViolations(page), [], `${scheme} ${width}`);
    await screenshot(page, `real-${width}-${scheme}`);
    assert.deepEqual(problems, []);
    await context.close();
  });
}
