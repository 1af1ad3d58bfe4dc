// End-to-end: every control of every lab, the course, a lesson, the lesson preview and the class
// dashboard is reachable with the Tab key (no control only a mouse can reach, no trap), focus is
// visible, the optimizer map moves its start with arrow keys, and a lesson's prediction is made
// and locked in from the keyboard.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, screenshot, ROUTES } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

// Every lab (the registry's routes), the list of labs, the course and a lesson.
const LESSON = 'lesson.html?id=optimizers-momentum';
const LABS = [...ROUTES, 'labs', 'course.html', LESSON, 'lesson.html?preview', 'class.html'];
const CONTROLS = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';

test('Tab reaches every control of every lab', async () => {
  const { browser, page } = await launch({ webgpu: false });
  try {
    for (const lab of LABS) {
      await page.goto(`${server.url}${lab}`);
      if (lab === LESSON) await page.locator(byId('lock-0')).waitFor();
      else if (lab === 'course.html') await page.locator(`${byId('course-lessons')} ol.lessons > li a`).first().waitFor();
      else if (lab === 'lesson.html?preview') await page.locator(byId('preview-run')).waitFor();
      else if (lab === 'class.html') await page.locator(byId('class-create')).waitFor();
      await page.waitForTimeout(1500);
      // Settings folded under "Advanced" count once opened (their summary is a control too).
      await page.$$eval('details', (ds) => ds.forEach((d) => { d.open = true; }));
      // Every visible, enabled control gets a mark; Tab must visit them all.
      const total = await page.$$eval(CONTROLS, (els) => {
        let n = 0;
        for (const el of els) {
          const shown = el.offsetParent !== null || el.getClientRects().length > 0;
          const inLabel = el.type === 'file' && el.closest('label');
          // Tab enters a group of radios once; the arrow keys move within it.
          const laterRadio = el.type === 'radio' && el !== document.querySelector(`input[type=radio][name="${el.name}"]`);
          if ((shown || inLabel) && !el.disabled && !laterRadio) el.dataset.kb = String(n++);
        }
        return n;
      });
      const seen = new Set();
      for (let i = 0; i < total * 2 + 10 && seen.size < total; i++) {
        await page.keyboard.press('Tab');
        const mark = await page.evaluate(() => document.activeElement?.dataset?.kb);
        if (mark !== undefined) seen.add(mark);
      }
      const missed = await page.$$eval('[data-kb]', (els, seenList) => els.filter((e) => !seenList.includes(e.dataset.kb))
        .map((e) => e.dataset.testid || e.getAttribute('aria-label') || e.textContent.trim().slice(0, 30) || e.tagName), [...seen]);
      console.log(`${lab || 'playground'}: ${seen.size}/${total} controls reached by Tab`);
      assert.deepEqual(missed, [], `${lab || 'playground'}: not reachable by Tab`);
    }
  } finally {
    await browser.close();
  }
});

test('the optimizer map takes the arrow keys', async () => {
  const { browser, page } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}optimizers`);
    await page.waitForTimeout(1000);
    await page.focus(byId('opt-contour'));
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowUp');
    await page.waitForTimeout(300);
    const start = new URL(page.url()).searchParams.get('start');
    assert.ok(start, 'the start moved into the link');
    const [x, y] = start.split(',').map(Number);
    // The quadratic's start is (−1.8, 1.2) on a map 4 wide and 4 tall: steps of 0.1.
    assert.ok(Math.abs(x - -1.4) < 1e-3 && Math.abs(y - 1.3) < 1e-3, `start ${start}`);
    await screenshot(page, 'keyboard-optimizers.png');
  } finally {
    await browser.close();
  }
});

test('a lesson\'s prediction is chosen and locked in from the keyboard', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}${LESSON}`);
    await page.locator(byId('choice-0-0')).waitFor();
    await page.focus(byId('choice-0-0'));
    // Space picks the focused choice; the arrows move the pick within the named group.
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.locator(byId('choice-0-1')).isChecked(), true, 'ArrowDown picks the next choice');
    const group = await page.$eval(byId('choice-0-1'), (el) => el.closest('fieldset')?.querySelector('legend')?.textContent ?? '');
    assert.match(group, /Your prediction/, 'the choices are a group named by its legend');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset?.testid), 'lock-0', 'Tab leaves the group for the lock button');
    await page.keyboard.press('Enter');
    await page.locator(byId('lesson-status-0')).filter({ hasText: /starting|Running|Measured/ }).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator(byId('choice-0-1')).isDisabled(), true, 'the prediction is locked');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
