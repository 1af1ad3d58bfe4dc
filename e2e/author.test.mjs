// End-to-end: writing a lesson without a toolchain (/author). Started from a course lesson, it has
// no problem; edited into a lesson with a misspelled metric, a setting the lab does not take,
// overlapping choices and a placeholder why, the page lists all four at once (the checker of
// `lab lesson check`, compiled into the page) and will not preview; fixed, Preview runs it below as
// a student sees it, and Download saves what is on the page. A file far larger than any lesson is
// refused unread, the text kept.
import fs from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, until, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

test('/author lists every problem at once, previews a good lesson and downloads it', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}author`);
    await until(async () => (await page.locator(`${byId('author-start')} option`).count()) > 30, 15_000, 'the course listed');
    await page.selectOption(byId('author-start'), 'optimizers-momentum');
    await page.locator(byId('author-ok')).waitFor({ timeout: 15_000 });
    const good = await page.locator(byId('author-text')).inputValue();
    const lesson = JSON.parse(good);
    lesson.sections[0].measure.expr = lesson.sections[0].measure.expr.replace('rate-momentum', 'rate-momentm');
    lesson.sections[0].state += '&kappa_typo=3';
    lesson.sections[1].why = '...';
    const c = lesson.sections[1].predict.choices;
    if (c[0].max !== undefined) c[0].max = (c[1].min ?? 0) + 5;
    await page.fill(byId('author-text'), JSON.stringify(lesson, null, 2));
    const problems = await page.locator(`${byId('author-problems')} li`).allTextContents();
    const all = problems.join('\n');
    assert.match(all, /publishes no metric "rate-momentm"/);
    assert.match(all, /kappa_typo/);
    assert.match(all, /no why/);
    assert.ok(problems.length >= 3, all);
    assert.equal(await page.locator(byId('author-preview')).isDisabled(), true, 'no preview with problems');
    // Fixed: the preview runs it below, as a student sees it.
    await page.fill(byId('author-text'), good);
    await page.locator(byId('author-ok')).waitFor();
    await page.click(byId('author-preview'));
    const frame = page.frameLocator(byId('author-preview-frame'));
    await frame.locator(byId('lesson-section-0')).waitFor({ timeout: 30_000 });
    await page.fill(byId('author-name'), 'my-momentum.json');
    const [file] = await Promise.all([page.waitForEvent('download'), page.click(byId('author-download'))]);
    assert.equal(file.suggestedFilename(), 'my-momentum.json');
    assert.equal(fs.readFileSync(await downloaded(file), 'utf8'), good);
    // A file far larger than a lesson: refused unread, the page keeps its text.
    const huge = path.join(path.dirname(await downloaded(file)), 'huge.json');
    fs.writeFileSync(huge, `{"title": "${'x'.repeat(2 << 20)}"}`);
    await page.setInputFiles(byId('author-file'), huge);
    await until(async () => /larger than any lesson/.test(await page.locator(byId('author-note')).textContent()), 10_000, 'refused');
    assert.equal(await page.locator(byId('author-text')).inputValue(), good);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
