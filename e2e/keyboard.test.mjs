// End-to-end: every control of every lab is reachable with the Tab key (no control only a mouse
// can reach, no trap), focus is visible, and the optimizer map moves its start with arrow keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, screenshot, ROUTES } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

// Every lab (the registry's routes) and the list of labs.
const LABS = [...ROUTES, 'labs'];
const CONTROLS = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';

test('Tab reaches every control of every lab', async () => {
  const { browser, page } = await launch({ webgpu: false });
  try {
    for (const lab of LABS) {
      await page.goto(`${server.url}${lab}`);
      await page.waitForTimeout(1500);
      // Settings folded under "Advanced" count once opened (their summary is a control too).
      await page.$$eval('details', (ds) => ds.forEach((d) => { d.open = true; }));
      // Every visible, enabled control gets a mark; Tab must visit them all.
      const total = await page.$$eval(CONTROLS, (els) => {
        let n = 0;
        for (const el of els) {
          const shown = el.offsetParent !== null || el.getClientRects().length > 0;
          const inLabel = el.type === 'file' && el.closest('label');
          if ((shown || inLabel) && !el.disabled) el.dataset.kb = String(n++);
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
