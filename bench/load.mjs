// First load, measured as a learner meets it: each page served with gzip (as
// any host would), a fresh browser context with the cache off, and the time
// from navigation to "ready" (the app's "fencing-lab-mounted" mark; for a
// peer page without one, its load event), on loopback and on a phone on a
// slow network (DevTools protocol: 150 ms round trip, 1.6 Mbit/s down,
// 750 kbit/s up, CPU 4× slower), with when the story was first painted
// and the layout shift after it. Prints a table, then what the example
// course page downloads before and after its reader scrolls; asserts nothing.
//
// node bench/load.mjs [--peer DIR] [--runs N]
import http from 'node:http';
import zlib from 'node:zlib';
import path from 'node:path';
import { readFile, stat } from 'node:fs/promises';
import { launch, DIST, ROOT } from '../tests/e2e/harness.mjs';

const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const RUNS = Number(option('--runs') ?? 5);
const PEER = option('--peer');
const COUNTER = path.join(ROOT, 'bench/counter/dist');
const FLOOR = path.join(ROOT, 'bench/floor/dist');

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png' };

/** A static server with gzip for every response, caching nothing. */
async function serveGzip(routes) {
  const cache = new Map();
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    const prefix = Object.keys(routes).sort((a, b) => b.length - a.length).find((candidate) => url.pathname.startsWith(candidate));
    if (!prefix) return response.writeHead(404).end();
    let file = path.join(routes[prefix], decodeURIComponent(url.pathname.slice(prefix.length)));
    try {
      if ((await stat(file)).isDirectory()) file = path.join(file, 'index.html');
      if (!cache.has(file)) cache.set(file, zlib.gzipSync(await readFile(file), { level: 9 }));
      response.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'content-encoding': 'gzip',
        'cache-control': 'no-store',
      });
      response.end(cache.get(file));
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

const SLOW = { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8), uploadThroughput: (750e3 / 8) };

/** One load: bytes on the wire until ready, and the time to ready. */
async function loadOnce(browser, url, throttled) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (throttled) {
    await cdp.send('Network.emulateNetworkConditions', SLOW);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  }
  await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
  const readyMs = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const check = () => {
          const mark = performance.getEntriesByName('fencing-lab-mounted')[0];
          if (mark) return resolve(mark.startTime);
          if (!document.querySelector('script[type=module]') && !document.querySelector('link[data-trunk]')) {
            // A page without the mark: ready when loaded.
            const [navigation] = performance.getEntriesByType('navigation');
            if (navigation?.loadEventEnd) return resolve(navigation.loadEventEnd);
          }
          setTimeout(check, 10);
        };
        check();
      }),
  );
  const bytes = await bytesRequestedBefore(page, readyMs);
  const { storyMs, cls } = await storyAndShifts(page);
  await context.close();
  return { bytes, readyMs, storyMs, cls };
}

/**
 * When the story was first painted (the verdict or the question, marked
 * `elementtiming="story"`, from the first screen drawn at build time or the
 * app; a page without the mark: its first contentful paint), and the sum of
 * its layout shifts after that paint (cumulative layout shift), read once
 * the page is ready and two frames later.
 */
async function storyAndShifts(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) => {
        const entries = (type) =>
          new Promise((done) => {
            new PerformanceObserver((list, observer) => {
              observer.disconnect();
              done(list.getEntries());
            }).observe({ type, buffered: true });
            // None buffered: the observer never calls back.
            setTimeout(() => done([]), 200);
          });
        requestAnimationFrame(() =>
          requestAnimationFrame(async () => {
            const story = (await entries('element')).filter((entry) => entry.identifier === 'story');
            const paint = performance.getEntriesByName('first-contentful-paint')[0];
            const storyMs = story.length ? Math.min(...story.map((entry) => entry.renderTime || entry.loadTime)) : paint?.startTime ?? NaN;
            const shifts = (await entries('layout-shift')).filter((entry) => !entry.hadRecentInput && entry.startTime >= storyMs);
            resolve({ storyMs, cls: shifts.reduce((sum, entry) => sum + entry.value, 0) });
          }),
        );
      }),
  );
}

/**
 * What the page asked for before it was ready, in bytes on the wire
 * (headers and gzip body), as its own Resource Timing reports it once each
 * has arrived. (Counting DevTools' loadingFinished events up to the moment
 * the ready mark is read undercounts: an event can be delivered after that
 * moment for a download that finished before it, and the race's wasm was
 * sometimes missed.)
 */
async function bytesRequestedBefore(page, readyMs) {
  // The page has loaded (page.goto waited for it) and was then ready, so
  // whatever it asked for before ready has arrived and has its entry.
  return page.evaluate((readyMs) => {
    const [navigation] = performance.getEntriesByType('navigation');
    const requested = performance.getEntriesByType('resource').filter((entry) => entry.startTime <= readyMs);
    return requested.reduce((sum, entry) => sum + entry.transferSize, navigation?.transferSize ?? 0);
  }, readyMs);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function measure(browser, name, url) {
  const fast = [];
  const slow = [];
  for (let run = 0; run < RUNS; run += 1) fast.push(await loadOnce(browser, url, false));
  for (let run = 0; run < Math.max(3, Math.ceil(RUNS / 2)); run += 1) slow.push(await loadOnce(browser, url, true));
  return {
    name,
    kb: median(fast.map((load) => load.bytes)) / 1000,
    fastMs: median(fast.map((load) => load.readyMs)),
    slowMs: median(slow.map((load) => load.readyMs)),
    storyMs: median(slow.map((load) => load.storyMs)),
    cls: Math.max(...slow.map((load) => load.cls)),
  };
}

/** Settles for this long with nothing new on the wire before a course page's bytes are read. */
const QUIET_MS = 1500;

/**
 * The example course page (four embeds, three of them far below the first
 * screen): bytes on the wire, every frame included, before the reader
 * scrolls, and after scrolling to its end. Unthrottled, one load each.
 */
async function measureCourse(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  let bytes = 0;
  let lastMs = Date.now();
  cdp.on('Network.loadingFinished', (event) => {
    bytes += event.encodedDataLength;
    lastMs = Date.now();
  });
  const quiet = async () => {
    for (let waited = 0; waited < 60_000 && Date.now() - lastMs < QUIET_MS; waited += 100) await page.waitForTimeout(100);
    return bytes;
  };
  await page.goto(url, { waitUntil: 'load' });
  const before = await quiet();
  await page.locator('iframe').last().scrollIntoViewIfNeeded();
  await page.waitForTimeout(200);
  const after = await quiet();
  await context.close();
  return { before: before / 1000, after: after / 1000 };
}

const routes = { '/lab/': DIST, '/counter/': COUNTER, '/floor/': FLOOR, '/course/': path.join(ROOT, 'examples') };
if (PEER) routes['/peer/'] = path.resolve(PEER);
const server = await serveGzip(routes);
const browser = await launch();
const rows = [await measure(browser, 'bare Leptos 0.8 counter, same profile', `${server.url}/counter/`)];
rows.push(await measure(browser, 'floor: Leptos + the model, nothing drawn (bench/floor)', `${server.url}/floor/?preset=gc-pause`));
if (PEER) rows.push(await measure(browser, `peer (${path.basename(path.resolve(PEER))})`, `${server.url}/peer/`));
rows.push(await measure(browser, 'Fencing Lab: the race (first page)', `${server.url}/lab/`));
rows.push(await measure(browser, 'Fencing Lab: embed=race', `${server.url}/lab/?preset=gc-pause&embed=race`));
rows.push(await measure(browser, 'Fencing Lab: side by side', `${server.url}/lab/?view=compare&preset=gc-pause&seed=1&compare=fencing`));
rows.push(await measure(browser, 'Fencing Lab: the quiz', `${server.url}/lab/?view=quiz`));
rows.push(await measure(browser, 'Fencing Lab: the lesson (static)', `${server.url}/lab/lesson/index.html`));
const course = await measureCourse(browser, `${server.url}/course/course.html`);
await browser.close();
await server.close();

const counter = rows[0];
// The reference a first load is held to: the peer's ready, where there is one.
const peer = PEER ? rows[2] : undefined;
console.log(`first loads, gzip; ready = navigation to mounted (Play works); median of ${RUNS} loads (throttled: ${Math.max(3, Math.ceil(RUNS / 2))})`);
console.log('story = the verdict or question first painted (element timing; a page without it: first contentful paint), on the slow phone; CLS = the most any throttled load shifted after it');
const peerColumns = peer ? ' story / peer ready | ready / peer ready |' : '';
console.log(`| page | first load (KB, gzip) | ready, loopback (ms) | story, slow phone (ms) | ready, slow phone (ms) | CLS | ready / counter |${peerColumns}`);
console.log(`|---|---:|---:|---:|---:|---:|---:|${peer ? '---:|---:|' : ''}`);
for (const row of rows) {
  const versus = peer ? ` ${(row.storyMs / peer.slowMs).toFixed(2)} | ${(row.slowMs / peer.slowMs).toFixed(2)} |` : '';
  console.log(
    `| ${row.name} | ${row.kb.toFixed(1)} | ${row.fastMs.toFixed(0)} | ${row.storyMs.toFixed(0)} | ${row.slowMs.toFixed(0)} | ${row.cls.toFixed(3)} | ${(row.slowMs / counter.slowMs).toFixed(2)} |${versus}`,
  );
}
console.log(`\nthe example course page (examples/course.html, four embeds), gzip, every frame's downloads included: ${course.before.toFixed(1)} KB before the reader scrolls, ${course.after.toFixed(1)} KB once scrolled to its end`);
