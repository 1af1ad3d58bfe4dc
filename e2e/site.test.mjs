// End-to-end: the static site `scripts/site.sh` writes, hosted under a sub-path as a course would
// host it. scripts/test.sh builds it for /course/lab/ into target/e2e/site/course/lab; here it is
// served as a plain static host serves files: no fallback to the app for unknown paths, a folder
// asked for without its slash redirected to it, and no cross-origin isolation headers. Every
// page loads from its own entry file with nothing missing, a lab trains (one on images, whose
// data sets travel under the sub-path too), and the course's lesson runs its lab and reveals.
import fs from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, until, settle, runInView, root, ROUTES } from './harness.mjs';

const SITE = path.join(root, 'target', 'e2e', 'site');
const BASE = 'course/lab/';

let server;
before(async () => {
  if (!fs.existsSync(path.join(SITE, BASE, 'index.html'))) {
    throw new Error(`no site in ${SITE}: scripts/test.sh builds it (bash scripts/site.sh --base /${BASE} --out ${path.join(SITE, BASE)})`);
  }
  server = await serve(SITE, { isolated: false, plain: true });
});
after(async () => { await server?.close(); });

/** A page that records every request the host could not answer. */
async function open() {
  const opened = await launch({ webgpu: false });
  const missing = [];
  opened.page.on('response', (r) => { if (r.status() >= 400) missing.push(`${r.status()} ${r.url()}`); });
  return { ...opened, missing };
}

test('the site under a sub-path: every page from its own entry file, nothing missing, no isolation needed', async () => {
  const { browser, page, errors, missing } = await open();
  try {
    for (const route of [...ROUTES, 'labs']) {
      // Asked for as a link names it (no slash): the host redirects to the route's folder.
      await page.goto(`${server.url}${BASE}${route}`);
      await until(async () => (await page.locator('h1').count()) > 0, 30_000, `the page at /${BASE}${route}`);
      assert.equal(new URL(page.url()).pathname, `/${BASE}${route ? `${route}/` : ''}`);
      assert.equal(await page.evaluate(() => crossOriginIsolated), false, 'served without isolation headers');
      // The guide link and the navigation resolve under the sub-path.
      const guide = page.locator(byId('guide-link'));
      if (await guide.count()) {
        const href = await guide.evaluate((a) => a.href);
        assert.equal((await page.request.get(href)).status(), 200, href);
      }
      for (const href of await page.locator('nav.labs a').evaluateAll((as) => as.map((a) => a.href))) {
        assert.ok(href.startsWith(`${server.url}${BASE}`), `${route}: a link leaves the site: ${href}`);
      }
    }
    assert.deepEqual(missing, []);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('the site under a sub-path: the playground and the vision lab train on the CPU path', async () => {
  const { browser, page, errors, missing } = await open();
  try {
    await page.goto(`${server.url}${BASE}`);
    await page.locator(`${byId('train')}:not([disabled])`).waitFor({ timeout: 30_000 });
    await page.click(byId('train'));
    await until(async () => Number(await text(page, 'step')) > 50, 60_000, '50 steps');
    await page.goto(`${server.url}${BASE}vision?train=500&epochs=1`);
    await page.locator(`${byId('vision-run')}:not([disabled])`).waitFor({ timeout: 60_000 });
    await page.click(byId('vision-run'));
    await until(async () => /^training on/.test(await text(page, 'vision-status')), 60_000, 'the vision lab training');
    assert.deepEqual(missing, []);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('the site under a sub-path: the course lists its lessons and a lesson runs its lab and reveals', async () => {
  const { browser, page, errors, missing } = await open();
  try {
    await page.goto(`${server.url}${BASE}course.html`);
    await until(async () => (await page.locator(`${byId('course-lessons')} ol.lessons > li`).count()) > 0, 10_000, 'the lessons');
    await page.goto(`${server.url}${BASE}lesson.html?id=optimizers-momentum`);
    await until(async () => (await text(page, 'lesson-title')) !== '', 10_000, 'the lesson');
    await page.locator(byId('choice-0-0')).check();
    await page.click(byId('lock-0'));
    await until(async () => page.locator(byId('reveal-0')).isVisible(), 120_000, 'the reveal');
    assert.match(await text(page, 'measured-0'), /×/);
    assert.deepEqual(missing, []);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('in a plain iframe (an LMS page, no script): every lab fits a fixed 700×600 and 390×700 box, run button in view', async () => {
  const { browser, page, errors, missing } = await open();
  try {
    const problems = [];
    for (const [width, height] of [[700, 600], [390, 700]]) {
      await page.setViewportSize({ width: width + 40, height: height + 40 });
      for (const route of ROUTES) {
        // What Canvas or Moodle keeps of a pasted embed: the iframe alone, on another origin.
        const src = `${server.url}${BASE}${route}?embed=1&seed=7&seed_hide=true`;
        await page.setContent(`<!doctype html><title>LMS</title><body style="margin:20px"><iframe src="${src}" width="${width}" height="${height}" style="border:0" title="lab"></iframe></body>`);
        const frame = page.frameLocator('iframe');
        await frame.locator('[data-lab-start="true"]').waitFor({ timeout: 30_000 });
        const inner = page.frames()[1];
        await settle(inner);
        const where = `/${route} in ${width}×${height}`;
        const overflow = await inner.evaluate(() => document.documentElement.scrollWidth - innerWidth);
        if (overflow > 0) problems.push(`${where}: scrolls sideways by ${overflow} px`);
        if (await inner.evaluate(() => !document.body.classList.contains('embed'))) problems.push(`${where}: not the compact embed`);
        const atTop = await runInView(inner);
        if (atTop !== true) problems.push(`${where}, top: run button ${atTop}`);
        // The frame scrolls inside itself; the run bar stays.
        await inner.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        await settle(inner);
        const atEnd = await runInView(inner);
        if (atEnd !== true) problems.push(`${where}, end: run button ${atEnd}`);
        // The lock in the frame's URL alone holds: the seed is hidden.
        const seed = frame.locator('[data-testid$="-seed"], [data-testid="seed"]');
        if (await seed.count() && await seed.first().isVisible()) problems.push(`${where}: seed_hide=true did not hide the seed`);
      }
      if (width === 700) await page.screenshot({ path: path.join(root, 'target', 'e2e', 'lms-iframe-700.png') });
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(missing, []);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
