// End-to-end: the course page's instructor view. "Show teacher notes" shows each lesson's goal,
// the misconceptions it meets and questions for discussion (its file's `teacher`), for every
// lesson of the course; `?teacher=1` opens the page with them; the view passes axe-core.
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
    await until(async () => (await page.locator(`${byId('course-lessons')} li`).count()) > 0, 10_000, 'the course');
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
