// Every lab fits the four widths a lab must fit (1280, 1024, a 700 px embed, a 390 px phone):
// the page never scrolls sideways, and the run button is in view when the page opens and still
// in view (the sticky run bar) after scrolling to the bottom.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, settle, runInView, ROUTES as LABS } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(() => server.close());

const WIDTHS = [1280, 1024, 700, 390];

test('every lab fits every width, its run button always in view', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    const problems = [];
    for (const lab of LABS) {
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 });
        await page.goto(`${server.url}${lab}`);
        await page.locator('[data-lab-start="true"]').waitFor({ timeout: 30_000 });
        await settle(page);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
        if (overflow > 0) problems.push(`/${lab} at ${width}: scrolls sideways by ${overflow} px`);
        const atTop = await runInView(page);
        if (atTop !== true) problems.push(`/${lab} at ${width}, page top: run button ${atTop}`);
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        await settle(page);
        const atEnd = await runInView(page);
        if (atEnd !== true) problems.push(`/${lab} at ${width}, page end: run button ${atEnd}`);
      }
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});
