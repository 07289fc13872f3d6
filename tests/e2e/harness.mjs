// Shared pieces of the browser tests and benchmarks: a static server for the
// release build on loopback, and Debian's Chromium driven by playwright-core
// with every console error and every off-machine request recorded.
import http from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = path.join(ROOT, 'dist');
export const ARTIFACTS = path.join(ROOT, 'test-results');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The Content-Security-Policy the site is documented to work under. */
export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors *";

/**
 * Serves folders on 127.0.0.1 at a free port: `routes` maps a URL prefix
 * ("/" or "/lab/") to a folder; `headers` go on every response.
 */
export async function serve(routes = { '/': DIST }, headers = {}) {
  if (typeof routes === 'string') routes = { '/': routes };
  const prefixes = Object.keys(routes).sort((a, b) => b.length - a.length);
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    const prefix = prefixes.find((candidate) => url.pathname.startsWith(candidate));
    if (!prefix) {
      response.writeHead(404).end('not found');
      return;
    }
    const dir = routes[prefix];
    let file = path.join(dir, decodeURIComponent(url.pathname.slice(prefix.length)));
    if (!file.startsWith(dir)) {
      response.writeHead(403).end();
      return;
    }
    if (url.pathname.endsWith('/')) file = path.join(file, 'index.html');
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', ...headers });
      response.end(body);
    } catch {
      response.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Debian's Chromium, headless, with the flags that work on this kind of machine. */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A new page that records problems: console errors, uncaught exceptions and
 * any request that would leave 127.0.0.1 (which is also blocked). With
 * `guide: true`, as a first visit: the guided tour greets the front page.
 */
export async function watchedPage(browser, { guide = false, ...options } = {}) {
  const context = await browser.newContext(options);
  // The guided tour greets a first visit to the front page (src/race/guide.rs);
  // a test sees the race as a returning learner does unless it asks for it.
  if (!guide) {
    await context.addInitScript(() => {
      try {
        window.localStorage.setItem('fencing-lab.guide', 'done');
      } catch (error) {
        // a frame without storage (about:blank, a sandbox): nothing to skip
      }
    });
  }
  const page = await context.newPage();
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.hostname === '127.0.0.1') return route.continue();
    problems.push(`request left the machine: ${url.href}`);
    return route.abort();
  });
  return { page, problems, context };
}

/**
 * Waits until `count` animation frames have been drawn: progress of the
 * page itself, not of the wall clock, so a slow machine only takes longer.
 * Work the page schedules per frame or per slice (playback, the explorer's
 * search, effects after a render) has had its turn by then.
 */
export async function framesDrawn(page, count = 2) {
  await page.evaluate((left) => new Promise((resolve) => {
    const next = () => (left-- > 0 ? requestAnimationFrame(next) : resolve());
    next();
  }), count);
}

/**
 * Waits until the page has settled: its document loaded and, where it runs
 * the lab (its loader `boot.js` is on the page), the app mounted (the
 * `fencing-lab-mounted` mark), then two frames drawn so the effects that run
 * after mounting have run.
 */
export async function settled(page) {
  await page.waitForFunction(() => document.readyState === 'complete'
    && (!document.querySelector('script[src$="boot.js"]') || performance.getEntriesByName('fencing-lab-mounted').length > 0));
  await framesDrawn(page);
}

/**
 * Resolves once `frame` has posted a marker to its parent and the parent
 * has heard it. Messages from one window to another arrive in the order they
 * were sent, so everything `frame` posted before (a statement, say) has
 * arrived by then: a test can then count what arrived without a sleep.
 * The parent page must record messages in `window[store]`.
 */
export async function messagesFlushed(page, frame, store) {
  const marker = `fencing-lab-test:flushed:${Math.random()}`;
  await frame.evaluate((text) => window.parent.postMessage({ type: text }, '*'), marker);
  await page.waitForFunction(([name, text]) => (window[name] ?? []).some((heard) => (heard.data ?? heard)?.type === text), [store, marker]);
  await page.evaluate(([name, text]) => {
    window[name] = window[name].filter((heard) => (heard.data ?? heard)?.type !== text);
  }, [store, marker]);
}

export async function screenshot(page, name) {
  await mkdir(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * For a test file: a server (same arguments as `serve`) and a browser,
 * started before its tests and stopped after them. Read `lab.url` and
 * `lab.browser` inside tests.
 */
export function useLab(routes, headers) {
  const lab = {};
  before(async () => {
    lab.server = await serve(routes, headers);
    lab.url = lab.server.url;
    lab.browser = await launch();
  });
  after(async () => {
    await lab.browser?.close();
    await lab.server?.close();
  });
  return lab;
}

const AXE_SOURCE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * What axe-core finds on the page against WCAG 2.2 AA (or only the named
 * `rules`), one line per rule broken.
 */
export async function axeViolations(page, rules = null) {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async ([tags, rules]) => {
    const runOnly = rules ? { type: 'rule', values: rules } : { type: 'tag', values: tags };
    const result = await window.axe.run(document, { runOnly });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.length} node(s), e.g. ${v.nodes[0]?.target?.join(' ')} — ${v.nodes[0]?.failureSummary?.split('\n')[1] ?? ''}`);
  }, [AXE_TAGS, rules]);
}
