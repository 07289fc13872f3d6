// Every lock service the model describes reaches the page from its
// description (engine/src/services): the picker offers it, the diagram titles
// its lanes with its name and labels its messages in its own protocol's
// words, and its story ends as the model says, to the token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { useLab, watchedPage, framesDrawn, ARTIFACTS } from './harness.mjs';

const lab = useLab();

async function atTheEnd(query) {
  const watched = await watchedPage(lab.browser, { viewport: { width: 1280, height: 800 } });
  await watched.page.goto(`${lab.url}?${query}`);
  await watched.page.getByTestId('race-end').click();
  await watched.page.waitForFunction(() => {
    const scrubber = document.querySelector('[data-testid=race-scrubber]');
    return scrubber && scrubber.value === scrubber.max;
  });
  await framesDrawn(watched.page);
  return watched;
}

test("ZooKeeper: lanes titled zookeeper, znodes and pings on the arrows, A's czxid refused after B's", async () => {
  const { page, problems } = await atTheEnd('preset=zookeeper-gc-pause&fencing=on');
  // The lane titles are in the diagram's header, which stays in view as it scrolls.
  const roles = await page.locator('.lane-role').allTextContents();
  assert.ok(roles.includes('zookeeper'), `lane titles: ${roles}`);
  const text = await page.getByTestId('race-diagram').textContent();
  // The token is the znode's czxid (epoch in its high 32 bits), not its sequence number.
  assert.match(text, /\(czxid 0x1[0-9a-f]{8}\)/, 'the arrows speak ZooKeeper');
  // Every token the picture names is a czxid in hex, never its decimal value.
  assert.doesNotMatch(text, /\b4294967\d{3}\b/, 'a czxid in decimal');
  assert.match(text, /delete my znode, close session/);
  assert.match(await page.getByTestId('race-verdict').textContent(), /token 0x100000002 < 0x100000004/);
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'services-zookeeper-fenced.png') });
  assert.deepEqual(problems, []);
});

test('ZooKeeper without fencing: A\'s zombie write with the older czxid overwrites B\'s', async () => {
  const { page, problems } = await atTheEnd('preset=zookeeper-gc-pause');
  assert.match(await page.getByTestId('race-verdict').textContent(), /A's stale write \(token 0x100000002\) overwrote B's newer data \(token 0x100000004\)/);
  assert.equal(await page.getByTestId('race-store-holds').textContent().then((holds) => /A/.test(holds)), true);
  assert.deepEqual(problems, []);
});

test('Consul: the lock-delay keeps B out past A\'s 15 s pause, and a 30 s pause still lands', async () => {
  const survived = await atTheEnd('preset=consul-lock-delay');
  const roles = await survived.page.locator('.lane-role').allTextContents();
  assert.ok(roles.includes('consul'), `lane titles: ${roles}`);
  assert.match(await survived.page.getByTestId('race-verdict').textContent(), /One holder at a time/);
  await survived.page.screenshot({ path: path.join(ARTIFACTS, 'services-consul-lock-delay.png') });
  assert.deepEqual(survived.problems, []);
  const landed = await atTheEnd('preset=consul-long-pause');
  assert.match(await landed.page.getByTestId('race-verdict').textContent(), /token 33\) overwrote B's newer data \(token 34\)/);
  assert.deepEqual(landed.problems, []);
});
