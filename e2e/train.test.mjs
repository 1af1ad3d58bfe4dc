// End-to-end: the built app in headless chromium trains on WebGPU, and falls back to the CPU
// (saying so) where WebGPU is unavailable. Screenshots land in target/e2e/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until, openAdvanced } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

const num = async (page, id) => Number.parseFloat(await text(page, id));

/** Picks the circle data set, trains until the shown loss is well below where it started. */
async function trainUntilLossFalls(page) {
  await page.selectOption(byId('dataset'), 'circle');
  await page.click(byId('train'));
  const first = await until(async () => ((await num(page, 'step')) > 0 ? num(page, 'loss-start') : null), 60_000, 'a first step');
  assert.ok(first > 0.4, `a fresh 2-class model starts near ln 2, got ${first}`);
  const { l: last } = await until(async () => {
    const l = await num(page, 'loss');
    // Wrapped: a loss shown as 0.0000 is falsy, and `until` waits for a truthy value.
    return l < 0.3 * first ? { l } : null;
  }, 120_000, `the loss to fall below 30% of ${first}`);
  return { first, last, step: await num(page, 'step') };
}

test('trains on WebGPU: loss falls, pause holds, reset clears', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(server.url);
    const backend = await until(async () => {
      const t = await text(page, 'backend');
      return t.startsWith('Looking') ? null : t;
    }, 60_000, 'WebGPU detection');
    assert.match(backend, /WebGPU/, `WebGPU found: ${backend}`);
    assert.equal(await page.locator(byId('backend-notice')).count(), 0);
    // "auto" would pick the CPU for this small model (it is faster there): ask for WebGPU.
    await openAdvanced(page);
    await page.selectOption(byId('backend-choice'), 'webgpu');
    const { first, last, step } = await trainUntilLossFalls(page);
    // The first steps run on the CPU while WebGPU compiles; then the run moves over, carrying on
    // from where it is (the step counter never goes back).
    await until(async () => /WebGPU/.test(await text(page, 'device')), 60_000, 'the run to move to WebGPU');
    const moved = await num(page, 'step');
    await until(async () => (await num(page, 'step')) > moved, 60_000, 'steps on WebGPU');
    console.log(`WebGPU: loss ${first} -> ${last} by step ${step}, on WebGPU from step ≤ ${moved}; device: ${await text(page, 'device')}`);
    assert.ok(moved >= step, `the run carried on (${step} → ${moved})`);
    assert.match(await text(page, 'device'), /WebGPU/);
    // The header badge says where training runs now, as the readout does.
    assert.equal(await text(page, 'backend'), await text(page, 'device'));

    await page.click(byId('pause'));
    await page.waitForTimeout(500);
    const paused = await num(page, 'step');
    await page.waitForTimeout(1000);
    assert.equal(await num(page, 'step'), paused, 'steps stop while paused');
    await screenshot(page, 'webgpu-trained.png');

    await page.click(byId('reset'));
    await until(async () => (await text(page, 'step')) === '0', 10_000, 'reset');
    assert.equal(await text(page, 'loss'), '–');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});

test('without WebGPU: says so plainly and trains on the CPU', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(server.url);
    await page.locator(byId('backend-notice')).waitFor({ timeout: 60_000 });
    assert.match(await text(page, 'backend-notice'), /WebGPU is not available/);
    assert.equal(await text(page, 'backend'), 'CPU');
    const { first, last, step } = await trainUntilLossFalls(page);
    console.log(`CPU fallback: loss ${first} -> ${last} by step ${step}`);
    assert.equal(await text(page, 'device'), 'CPU');
    await screenshot(page, 'cpu-fallback.png');
    // Only the expected WebGPU warning, no errors.
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});
