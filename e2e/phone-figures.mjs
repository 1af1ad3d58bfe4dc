// Prints, for the first section of every lesson (or of those named), how far below the
// section's heading its prediction's button and the chart its question needs (`chart`) end on a
// 390 × 844 px phone, after locking in as a student does: `node e2e/phone-figures.mjs [ids…]`
// (the figures in the book's "Fits every screen"). Needs dist/ (scripts/build-app.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, byId, root } from './harness.mjs';

const LESSONS = path.join(root, 'public', 'lessons');
const server = await serve(undefined, { isolated: false });
const { browser, page } = await launch({ webgpu: false });
const ids = process.argv.slice(2);
const lessons = ids.length ? ids : fs.readdirSync(LESSONS).filter(f => !f.startsWith('course') && !f.startsWith('lesson.')).map(f => f.slice(0, -5));
await page.setViewportSize({ width: 390, height: 844 });
for (const id of lessons) {
  const lesson = JSON.parse(fs.readFileSync(path.join(LESSONS, `${id}.json`), 'utf8'));
  await page.goto(`${server.url}lesson.html?id=${id}`);
  await page.locator(byId('choice-0-0')).waitFor();
  await page.locator(byId('choice-0-0')).check();
  await page.locator(byId('lock-0')).click();
  const frame = page.locator(`${byId('lab-0')} iframe`);
  await frame.waitFor();
  await page.waitForTimeout(3000);
  const r = await page.evaluate(() => {
    const sec = document.querySelector('[data-testid="lesson-section-0"]').getBoundingClientRect();
    const lock = document.querySelector('[data-testid="lock-0"]').getBoundingClientRect();
    const f = document.querySelector('[data-testid="lab-0"] iframe').getBoundingClientRect();
    return { secTop: sec.top + scrollY, lockBottom: lock.bottom + scrollY, frameTop: f.top + scrollY, frameH: f.height };
  });
  const chart = lesson.sections[0].chart;
  const fig = await (await frame.elementHandle()).contentFrame().then(f => f.evaluate((c) => { const e = document.querySelector(`.views [data-testid="${c}"]`); if (!e) return null; const b = (e.closest('figure') || e).getBoundingClientRect(); const cb = e.getBoundingClientRect(); return [b.top, b.bottom, cb.bottom]; }, chart));
  const end = fig ? Math.round(r.frameTop + fig[2] - r.secTop) : null;
  console.log(`${id.padEnd(24)} ${chart.padEnd(16)} lock +${Math.round(r.lockBottom - r.secTop)}  chart ends +${end} (page ${Math.round(r.frameTop + (fig?.[2] ?? 0))}) ${end <= 1688 ? 'ok' : 'OVER'}`);
}
await browser.close(); await server.close();
