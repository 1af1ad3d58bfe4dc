// End-to-end: the optimizer lab races optimizers on a surface, draws their paths and losses,
// shows Goh's theory on the quadratic, and moves the start on a click. Screenshots in target/e2e/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

// { optimizer: [final loss, measured rate] } from the results table.
const rates = async (page) => {
  const rows = await page.locator(`${byId('opt-rates')} tr`).all();
  const out = {};
  for (const row of rows.slice(1)) {
    const name = (await row.locator('th').textContent()).trim();
    out[name] = (await row.locator('td').allTextContents()).map((t) => t.trim());
  }
  return out;
};

test('optimizer lab: a race on the quadratic, Goh\'s optimum, other surfaces', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}optimizers`);
    await page.locator(byId('opt-theory')).waitFor({ timeout: 30_000 });
    await until(async () => Object.keys(await rates(page)).length === 3, 10_000, 'three racers');
    assert.match(await text(page, 'opt-theory'), /0\.5195/, 'momentum rate for κ = 10');
    await page.click(byId('opt-goh'));
    await page.waitForTimeout(2500);
    const r = await rates(page);
    console.log('κ = 10 with Goh\'s η, μ:', JSON.stringify(r));
    assert.ok(Math.abs(Number(r.Momentum[1]) - 0.5195) < 0.05, `momentum measured ${r.Momentum}`);
    assert.ok(Math.abs(Number(r.SGD[1]) - 0.8182) < 0.01, `GD measured ${r.SGD}`);
    await screenshot(page, 'optimizers-quadratic.png');

    // Each surface has its own rates: after Goh's optimum on the quadratic, no racer diverges
    // on the curved valleys with their defaults (the lesson: SGD crawls, momentum and Adam move).
    for (const surface of ['1', '2', '3', '5']) {
      await page.selectOption(byId('opt-surface'), surface);
      await page.waitForTimeout(1500);
      const r = await rates(page);
      console.log(`surface ${surface}:`, JSON.stringify(r));
      assert.ok(Object.values(r).every((v) => v[0] !== 'diverged'), `surface ${surface}: ${JSON.stringify(r)}`);
    }
    await page.selectOption(byId('opt-surface'), '1'); // Rosenbrock
    await page.check(byId('opt-racer-nesterov'));
    await page.selectOption(byId('opt-noise'), '0.5');
    await page.locator(byId('opt-contour')).click({ position: { x: 60, y: 60 } });
    await page.waitForTimeout(2500);
    assert.equal(Object.keys(await rates(page)).length, 4, 'four racers');
    assert.equal(await page.locator(byId('opt-theory')).count(), 0, 'theory only for the quadratic');
    await screenshot(page, 'optimizers-rosenbrock.png');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});
