// A person's path through the release build: open the page, run the race with
// fencing off, read the counters and the store, switch fencing on, run again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, watchedPage, screenshot } from './harness.mjs';

let server;
let browser;

before(async () => {
  server = await serve();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const counter = (page, testid) => page.getByTestId(testid).textContent();

test('the race shows a zombie write without fencing and a rejection with it', async () => {
  const { page, problems } = await watchedPage(browser, { viewport: { width: 1280, height: 900 } });
  await page.goto(server.url);
  await page.getByRole('heading', { name: 'Fencing Lab' }).waitFor();
  assert.equal(await page.getByTestId('zombie-writes').count(), 0, 'nothing is revealed before a run');

  const fencing = page.getByRole('switch', { name: 'Fencing' });
  assert.equal(await fencing.isChecked(), false);
  await page.getByRole('button', { name: 'Run' }).click();
  assert.equal(await counter(page, 'zombie-writes'), '1');
  assert.equal(await counter(page, 'rejected-writes'), '0');
  assert.match(await page.getByTestId('store-final').textContent(), /A's data \(token 33\)/);
  assert.match(await page.getByTestId('verdict').textContent(), /A's stale write \(token 33\) overwrote B's newer data \(token 34\)/);
  await screenshot(page, 'race-fencing-off-1280');

  // Keyboard: focus the switch, toggle it with Space, run with Enter.
  await fencing.focus();
  await page.keyboard.press('Space');
  assert.equal(await fencing.isChecked(), true);
  await page.getByRole('button', { name: 'Run' }).focus();
  await page.keyboard.press('Enter');
  assert.equal(await counter(page, 'zombie-writes'), '0');
  assert.equal(await counter(page, 'rejected-writes'), '1');
  assert.match(await page.getByTestId('store-final').textContent(), /B's data \(token 34\)/);
  assert.match(await page.getByTestId('events').textContent(), /Store rejected A's write: token 33 < 34 already accepted/);
  assert.match(await page.getByTestId('announcer').textContent(), /Rejected writes: 1/);
  await screenshot(page, 'race-fencing-on-1280');

  assert.deepEqual(problems, []);
});

test('the page fits a phone and follows a dark system theme', async () => {
  const { page, problems } = await watchedPage(browser, { viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  await page.goto(server.url);
  await page.getByRole('button', { name: 'Run' }).click();
  assert.equal(await counter(page, 'zombie-writes'), '1');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at 390px`);
  await screenshot(page, 'race-fencing-off-390-dark');
  assert.deepEqual(problems, []);
});
