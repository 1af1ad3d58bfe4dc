// End-to-end: what leaves the lab for a course page works where it lands. The book's embed
// examples (docs/book/src/instructor/link-lock-embed.md), pasted as they are (their host replaced
// by this test's), in a page of another origin: each shows the state it describes. "Copy embed
// code" on a lab and on a lesson gives code that does the same. A lesson in a frame of another
// site whose browser keeps no storage for it (localStorage throws there, as with third-party
// storage blocked) still locks, runs and reveals, and says where its predictions are kept.
import fs from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, root, until } from './harness.mjs';

let server;
before(async () => { server = await serve(undefined, { isolated: false }); });
after(async () => { await server.close(); });

const BOOK = path.join(root, 'docs', 'book', 'src', 'instructor', 'link-lock-embed.md');
/** The book's html examples, pointed at this test's server. */
const examples = () => [...fs.readFileSync(BOOK, 'utf8').matchAll(/```html\n([\s\S]*?)```/g)]
  .map((m) => m[1].replaceAll('https://your.host/lab/', server.url));
/** A course page of another origin (about:blank, written by the test) holding `html`. */
const coursePage = (page, html) => page.setContent(`<!doctype html><html lang="en"><title>Course page</title><body>${html}</body></html>`);

/** The optimizer lab in `frame`: every racer's final loss, or "diverged". */
async function finals(frame) {
  const cells = frame.locator('[data-metric^="final-"]');
  await cells.first().waitFor({ timeout: 30_000 });
  return cells.allTextContents();
}

test('the book\'s iframe example: Rosenbrock\'s valley, the surface locked, every racer descending', async () => {
  const { browser, page } = await launch({ webgpu: false });
  try {
    const [iframe] = examples().filter((e) => e.includes('<iframe'));
    assert.match(iframe, /surface=rosenbrock/);
    await coursePage(page, iframe);
    const frame = page.frameLocator('iframe');
    const losses = await finals(frame);
    assert.ok(losses.length >= 3, `${losses}`);
    for (const l of losses) assert.match(l, /^\d/, `a racer diverged: ${losses}`);
    assert.equal(await frame.locator(byId('opt-surface')).isVisible(), false, 'surface_hide=true');
    assert.equal(await frame.locator('body').evaluate((b) => b.classList.contains('embed')), true);
  } finally {
    await browser.close();
  }
});

test('the book\'s script example: two labs sized to their content, the playground on XOR with its data set locked', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    const [script] = examples().filter((e) => e.includes('embed.js'));
    await coursePage(page, script);
    await until(async () => (await page.locator('iframe').count()) === 2, 15_000, 'two frames');
    const [playground, optimizers] = [page.frameLocator('iframe').nth(0), page.frameLocator('iframe').nth(1)];
    await playground.locator('[data-lab-start="true"]').waitFor({ timeout: 30_000 });
    const src = await page.locator('iframe').nth(0).getAttribute('src');
    assert.match(src, /dataset=xor/);
    assert.match(src, /hidden=4(,|%2C)4/);
    assert.equal(await playground.locator('label', { hasText: 'Data set' }).isVisible(), false, 'dataset_hide=true');
    await finals(optimizers);
    // Sized to its content by embed.js, not the browser's 150 px default.
    await until(async () => (await page.locator('iframe').nth(0).evaluate((f) => f.getBoundingClientRect().height)) > 300, 15_000, 'resized');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('"Copy embed code" on a lab and on a lesson gives code that shows the same state from another page', async () => {
  const { browser, page } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}optimizers?surface=beale&steps=200&surface_hide=true`);
    await page.click(byId('opt-copy-embed'));
    const iframe = await page.locator(byId('opt-embed-iframe')).inputValue();
    const script = await page.locator(byId('opt-embed-script')).inputValue();
    assert.match(iframe, /^<iframe src="[^"]*optimizers\?embed=1&amp;surface=beale&amp;steps=200&amp;surface_hide=true" /);
    assert.match(script, /<div data-lab="optimizers" data-state="surface=beale&amp;steps=200&amp;surface_hide=true"><\/div>$/);
    await coursePage(page, iframe);
    const frame = page.frameLocator('iframe');
    for (const l of await finals(frame)) assert.match(l, /^\d/);
    assert.equal(await frame.locator(byId('opt-surface')).isVisible(), false);
    await coursePage(page, script);
    await finals(page.frameLocator('iframe'));

    await page.goto(`${server.url}lesson.html?id=optimizers-momentum`);
    await page.click(byId('lesson-copy-embed'));
    const lesson = await page.locator(byId('lesson-embed-iframe')).inputValue();
    assert.match(lesson, /^<iframe src="[^"]*lesson\.html\?id=optimizers-momentum" /);
    await coursePage(page, lesson);
    await page.frameLocator('iframe').locator(byId('lesson-section-0')).waitFor({ timeout: 30_000 });
  } finally {
    await browser.close();
  }
});

test('a lesson in a frame of another site with no storage: it locks, runs and reveals, and says where it keeps the predictions', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    // As a browser that blocks third-party storage: localStorage throws in the lesson's frame.
    await page.context().addInitScript(() => {
      if (window !== window.top) {
        Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('The operation is insecure.', 'SecurityError'); } });
      }
    });
    await coursePage(page, `<iframe src="${server.url}lesson.html?id=optimizers-momentum" width="900" height="1400" title="lesson"></iframe>`);
    const frame = page.frameLocator('iframe');
    await frame.locator(byId('keep-note')).waitFor({ timeout: 30_000 });
    assert.match(await frame.locator(byId('keep-note')).textContent(), /kept on this page only/);
    await frame.locator(byId('choice-0-1')).check();
    await frame.locator(byId('lock-0')).click();
    await until(async () => frame.locator(byId('reveal-0')).isVisible(), 60_000, 'the reveal in the frame');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
