// End-to-end: the landscape lab trains a small network, draws the interpolation line and a slice
// with the trajectory on it, and reports sharpness and the PCA plane's explained variance.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

test('landscape lab: trajectory slice, interpolation, sharpness; random plane', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}landscape`);
    await page.click(byId('land-run'));
    await until(async () => (await text(page, 'land-status')) === 'done', 120_000, 'the map');
    const summary = await text(page, 'land-summary');
    console.log(summary);
    assert.match(summary, /PCA plane explains \d+ % \+ \d+ %/);
    assert.match(summary, /sharpness .* \d\.\d{4}/);
    await screenshot(page, 'landscape-trajectory.png');
    await page.selectOption(byId('land-plane'), 'random');
    await page.selectOption(byId('land-batch'), '256');
    await page.click(byId('land-run'));
    await until(async () => (await text(page, 'land-status')) === 'done', 120_000, 'the second map');
    assert.match(await text(page, 'land-summary'), /batch 256: .*random filter-normalized plane/);
    await screenshot(page, 'landscape-random.png');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});
