// Shared by the end-to-end tests: serves dist/ on 127.0.0.1 and starts Debian's chromium headless
// through playwright-core, with or without WebGPU (SwiftShader).
import { after } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..');
const require = createRequire(path.join(root, 'tools', 'package.json'));
export const { chromium } = require('playwright-core');

/** Every lab, from the one registry (`state/labs.json`): `{ id, route, nav, title, summary,
 *  prefix }`, the playground's route "". Lists of labs in the tests come from here. */
export const LABS = JSON.parse(fs.readFileSync(path.join(root, 'state', 'labs.json'), 'utf8')).labs;
/** Every lab's route, the playground's "" first. */
export const ROUTES = LABS.map((l) => l.route);

export { serve } from '../scripts/serve.mjs';

// Under `node --test` each file is its own process: it connects to the browsers that
// e2e/browsers.mjs serves for the whole run (scripts/test.sh starts it and names its file in
// E2E_BROWSERS), or else starts one Chromium per set of flags, and gives every test a fresh
// context (its own storage, service workers and downloads), which costs a fraction of a browser
// start. Scripts run directly (widths.mjs, the figures) get their own browser, closed by their
// `browser.close()`.
const underTestRunner = Boolean(process.env.NODE_TEST_CONTEXT);
const served = process.env.E2E_BROWSERS ? JSON.parse(fs.readFileSync(process.env.E2E_BROWSERS, 'utf8')) : {};
const browsers = new Map();
if (underTestRunner) {
  after(async () => {
    for (const b of browsers.values()) await (await b).close();
    browsers.clear();
  });
}

/** The flags Chromium runs the tests with; `webgpu` adds WebGPU (SwiftShader). */
export function browserArgs({ webgpu, extraArgs = [] }) {
  const args = [
    '--headless=new', '--no-sandbox', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-quic', ...extraArgs,
  ];
  if (webgpu) args.push('--enable-unsafe-webgpu');
  return args;
}

/** Headless chromium; `webgpu: false` leaves WebGPU off (navigator.gpu gives no adapter).
 *  `browser.close()` ends what this call opened. */
export async function launch({ webgpu, extraArgs = [], blockServiceWorkers = false }) {
  const args = browserArgs({ webgpu, extraArgs });
  const key = JSON.stringify(args);
  const start = () => (served[key]
    ? chromium.connect(served[key])
    : chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args }));
  const options = { viewport: { width: 1280, height: 800 }, serviceWorkers: blockServiceWorkers ? 'block' : 'allow' };
  let browser;
  let context;
  if (underTestRunner) {
    if (!browsers.has(key)) browsers.set(key, start());
    context = await (await browsers.get(key)).newContext(options);
    browser = { close: () => context.close() };
  } else {
    browser = await start();
    context = await browser.newContext(options);
  }
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return { browser, page, errors };
}

export const byId = (id) => `[data-testid="${id}"]`;

export async function text(page, id) {
  return (await page.locator(byId(id)).textContent())?.trim() ?? '';
}

export async function screenshot(page, name) {
  const dir = path.join(root, 'target', 'e2e');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Waits until the page has laid out and painted what it has: two animation frames (resize
 *  observers and the first paint run in between), instead of a fixed sleep. */
export async function settle(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** Whether the lab's run button lies inside the viewport of `target` (a page or a frame): true,
 *  or where it is instead. */
export const runInView = (target) => target.evaluate(() => {
  const b = document.querySelector('[data-lab-start="true"]');
  if (!b) return 'no run button';
  const r = b.getBoundingClientRect();
  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
    ? true : `at ${Math.round(r.left)},${Math.round(r.top)} in ${innerWidth}×${innerHeight}`;
});

/** Polls `fn` until it returns a truthy value or `ms` pass. */
export async function until(fn, ms, what) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/// Opens every folded "Advanced" group, as a student clicking its summary would.
export async function openAdvanced(page) {
  for (const summary of await page.locator('details:not([open]) > summary').all()) {
    if (await summary.isVisible()) await summary.click();
  }
}

/// Ticks a chart's "log scale" box (`toggle`) and checks that the chart `canvas` was redrawn.
export async function logScaleRedraws(page, canvas, toggle) {
  const pixels = () => page.$eval(byId(canvas), (c) => c.toDataURL());
  const before = await pixels();
  await page.locator(byId(toggle)).check();
  await until(async () => (await pixels()) !== before, 5_000, `${canvas} redrawn on a log scale`);
}

let downloads = 0;
/** A download saved to a file of its own, and that file's path: a browser the test connected to
 *  (e2e/browsers.mjs) keeps its downloads to itself, so `download.path()` is not there. */
export async function downloaded(download) {
  const dir = path.join(root, 'target', 'e2e', 'downloads');
  fs.mkdirSync(dir, { recursive: true });
  downloads += 1;
  const file = path.join(dir, `${process.pid}-${downloads}-${download.suggestedFilename()}`);
  await download.saveAs(file);
  return file;
}
