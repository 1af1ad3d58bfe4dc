// End-to-end: a lesson on a 390 px phone. A section names the chart its question needs (`chart`,
// one of the lab's `charts` in state/labs.json); the lesson's lab shows that figure first, so the
// question, the prediction, its button and that chart fit in two screens from the section's
// heading. Every lab brings each of its listed charts first (`?embed=1&focus=<chart>`), and a
// lesson whose chart was a figure far down its lab (the systolic array, 4,000 px into the frame
// before) is walked as a student on a phone would.
import fs from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, root, until, LABS } from './harness.mjs';

const PHONE = { width: 390, height: 844 };
let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

/** The chart's figure's place among the views: its top, bottom and whether it is the first one
 *  shown (the least CSS order, then the document's). */
function placeOf(chart) {
  const el = document.querySelector(`.views [data-testid="${chart}"]`);
  if (!el) return null;
  const figure = el.closest('figure') || el;
  const views = document.querySelector('main.lab > .views');
  const shown = [...views.children].filter((c) => c.getBoundingClientRect().height > 0);
  const topmost = shown.reduce((a, c) => (c.getBoundingClientRect().top < a.getBoundingClientRect().top ? c : a));
  const box = el.getBoundingClientRect();
  return { top: box.top, bottom: box.bottom, first: topmost.contains(figure) };
}

test('every lab shows each chart a lesson can name first', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.setViewportSize({ width: 370, height: PHONE.height });
    for (const lab of LABS) {
      // The last listed chart is the furthest down the page; each listed one must exist.
      const chart = lab.charts.at(-1);
      await page.goto(`${server.url}${lab.route}?embed=1&focus=${chart}`);
      await until(async () => (await page.evaluate(placeOf, chart))?.first === true, 15_000, `${lab.id}: ${chart} first`);
      for (const c of lab.charts) {
        assert.ok(await page.evaluate(placeOf, c), `${lab.id}: the registry's chart ${c} is among its views`);
      }
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('on a phone a lesson\'s question, prediction, button and chart fit in two screens', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.setViewportSize(PHONE);
    const id = 'hardware-systolic';
    const { sections } = JSON.parse(fs.readFileSync(path.join(root, 'public', 'lessons', `${id}.json`), 'utf8'));
    await page.goto(`${server.url}lesson.html?id=${id}`);
    await page.locator(byId('choice-0-0')).check();
    await page.click(byId('lock-0'));
    const frame = page.locator(`${byId('lab-0')} iframe`);
    await frame.waitFor();
    const inner = await (await frame.elementHandle()).contentFrame();
    await until(async () => (await inner.evaluate(placeOf, sections[0].chart))?.first === true, 20_000, 'the chart first in the lab');
    const place = await inner.evaluate(placeOf, sections[0].chart);
    const outer = await page.evaluate(() => {
      const at = (id) => document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
      return { section: at('lesson-section-0').top, lock: at('lock-0').bottom, frame: at('lab-0').top, width: document.documentElement.scrollWidth };
    });
    const chartEnd = outer.frame + place.bottom - outer.section;
    assert.ok(outer.lock - outer.section < PHONE.height, `the button within the first screen (${outer.lock - outer.section} px)`);
    assert.ok(chartEnd <= 2 * PHONE.height, `the chart ends ${Math.round(chartEnd)} px below the section's heading`);
    assert.ok(outer.width <= PHONE.width, 'no sideways scroll');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
