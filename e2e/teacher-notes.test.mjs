// End-to-end: the course page's instructor view and its phone layout. "Show teacher notes" shows
// each lesson's goal, the misconceptions it meets and questions for discussion (its file's
// `teacher`), for every lesson of the course; `?teacher=1` opens the page with them; the view
// passes axe-core. On a 390 px phone the units fold: the first unfinished one open, the page a
// few screens long, a unit's heading (a button) opening another from the keyboard.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, root, until } from './harness.mjs';

const require = createRequire(path.join(root, 'tools', 'package.json'));
const AXE = require.resolve('axe-core/axe.min.js');
let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

test('the course page shows every lesson\'s teacher notes on request, and opens with them by link', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    const course = JSON.parse(fs.readFileSync(path.join(root, 'public', 'lessons', 'course.json'), 'utf8'));
    const ids = course.units.flatMap((u) => u.lessons);
    await page.goto(`${server.url}course.html`);
    await until(async () => (await page.locator(`${byId('course-lessons')} ol.lessons > li`).count()) > 0, 10_000, 'the course');
    const first = page.locator(byId(`teacher-${ids[0]}`));
    assert.equal(await first.isVisible(), false, 'hidden until asked');
    await page.click(byId('course-teacher'));
    assert.equal(await page.locator(byId('course-teacher')).getAttribute('aria-pressed'), 'true');
    for (const id of ids) {
      const notes = page.locator(byId(`teacher-${id}`));
      assert.equal(await notes.isVisible(), true, id);
      const text = await notes.textContent();
      const { teacher } = JSON.parse(fs.readFileSync(path.join(root, 'public', 'lessons', `${id}.json`), 'utf8'));
      assert.ok(text.includes('Misconceptions it meets') && text.includes('For discussion'), id);
      assert.ok(text.includes(teacher.discussion[0].replace(/[*`]/g, '').slice(0, 30)), `${id}: ${text}`);
    }
    await page.addScriptTag({ path: AXE });
    const found = await page.evaluate(async () => (await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })).violations.map((v) => v.id));
    assert.deepEqual(found, []);
    await page.goto(`${server.url}course.html?teacher=1`);
    await until(async () => page.locator(byId(`teacher-${ids[0]}`)).isVisible(), 10_000, 'opened with the notes');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('on a phone the course folds its units: only the first unfinished one is open, and a heading opens another', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    const course = JSON.parse(fs.readFileSync(path.join(root, 'public', 'lessons', 'course.json'), 'utf8'));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}course.html`);
    await until(async () => (await page.locator(`${byId('course-lessons')} ol.lessons > li`).count()) > 0, 10_000, 'the course');
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(height < 6 * 844, `${height} px: a few screens`);
    assert.equal(await page.locator(byId('course-unit-toggle-1')).getAttribute('aria-expanded'), 'true');
    for (let u = 2; u <= course.units.length; u++) {
      assert.equal(await page.locator(byId(`course-unit-toggle-${u}`)).getAttribute('aria-expanded'), 'false', `unit ${u}`);
    }
    const second = course.units[1].lessons[0];
    assert.equal(await page.locator(byId(`course-${second}`)).isVisible(), false);
    await page.locator(byId('course-unit-toggle-2')).focus();
    await page.keyboard.press('Enter');
    assert.equal(await page.locator(byId(`course-${second}`)).isVisible(), true, 'opened from the keyboard');
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true);
    // A wide screen shows them all.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.reload();
    await until(async () => (await page.locator(`${byId('course-lessons')} ol.lessons > li`).count()) > 0, 10_000, 'the course');
    assert.equal(await page.locator(byId(`course-${course.units.at(-1).lessons[0]}`)).isVisible(), true);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
