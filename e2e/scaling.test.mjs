// End-to-end: the scaling lab runs a small sweep on the CPU path to completion (a sweep on WebGPU is
// gpu-loss.test.mjs's, up to its device loss), draws its plots, exports
// the results as CSV and the sweep as JSON, reloads the finished sweep without retraining, and
// refuses bad input with a message while keeping what it shows.
import fs from 'node:fs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until, logScaleRedraws, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

async function fill(page, id, value) {
  await page.fill(byId(id), value);
  await page.dispatchEvent(byId(id), 'change');
}

test('scaling lab: a small sweep, plots, CSV/JSON export, reload, bad input (CPU path)', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}scaling`);
    await page.selectOption(byId('scale-data'), 'gaussians');
    await page.selectOption(byId('scale-backend'), 'cpu');
    await fill(page, 'scale-batches', '8, 32, 128');
    await fill(page, 'scale-factors', '0.5, 1');
    await fill(page, 'scale-warmup', '0.5');
    await fill(page, 'scale-target', '0.3');
    await fill(page, 'scale-max-steps', '400');
    await fill(page, 'scale-noise-every', '20');
    await page.click(byId('scale-run'));
    await until(async () => /^(done|failed)/.test(await text(page, 'scale-status')), 300_000, 'the sweep');
    assert.equal(await text(page, 'scale-status'), 'done');
    const rows = await page.locator(`${byId('scale-table')} tr`).count();
    assert.equal(rows, 1 + 6, 'a row per (batch, rate)');
    console.log((await text(page, 'scale-table')).replace(/\s+/g, ' '));
    await screenshot(page, 'scaling-sweep.png');
    await logScaleRedraws(page, 'scale-curves', 'scale-log');

    const [csv] = await Promise.all([page.waitForEvent('download'), page.click(byId('scale-export-csv'))]);
    const body = fs.readFileSync(await downloaded(csv), 'utf8').trim().split('\n');
    assert.match(body[0], /^batch,learning_rate,steps,steps_to_target/);
    assert.equal(body.length, 7);
    const [rec] = await Promise.all([page.waitForEvent('download'), page.click(byId('scale-export-record'))]);
    const record = fs.readFileSync(await downloaded(rec), 'utf8');
    assert.equal(JSON.parse(record).runs.length, 6);
    const [cfg] = await Promise.all([page.waitForEvent('download'), page.click(byId('scale-export-config'))]);
    assert.deepEqual(JSON.parse(fs.readFileSync(await downloaded(cfg), 'utf8')).batches, [8, 32, 128]);

    // A fresh page redraws the finished sweep from its JSON, without training.
    await page.goto(`${server.url}scaling`);
    const load = (name, body) => page.locator(byId('scale-load')).setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(body) });
    await load('sweep-results.json', record);
    await until(async () => /loaded sweep-results.json: 6 runs/.test(await text(page, 'scale-status')), 10_000, 'the reload');
    assert.equal(await page.locator(`${byId('scale-table')} tr`).count(), 7);
    await load('other.json', '{"format":"something else"}');
    await until(async () => /other.json: .*kept/.test(await text(page, 'scale-error')), 10_000, 'the refusal');
    assert.equal(await page.locator(`${byId('scale-table')} tr`).count(), 7, 'the shown sweep is kept');

    // The field asks the settings table, which refuses the text at once and keeps the last list.
    await fill(page, 'scale-batches', '8, banana');
    assert.match(await text(page, 'scale-error'), /'banana' is not a number.*kept the last value/);
    await fill(page, 'scale-lr', '-1');
    assert.match(await text(page, 'scale-error'), /not valid/);
    await screenshot(page, 'scaling-reloaded.png');

    // A long sweep on the CPU path keeps the page responsive: Cancel stops it. (Eight runs to an
    // unreachable target: each stops only when it stalls, so the sweep is still going.)
    await fill(page, 'scale-batches', '8, 16');
    await fill(page, 'scale-factors', '0.5, 1, 2, 4');
    await fill(page, 'scale-lr', '0.1');
    await fill(page, 'scale-max-steps', '100000');
    await fill(page, 'scale-target', '0.0001');
    await page.selectOption(byId('scale-backend'), 'cpu');
    await page.click(byId('scale-run'));
    const progress = () => page.evaluate(() => document.querySelector('[data-testid="scale-progress"]').value);
    await until(async () => (await progress()) > 0, 30_000, 'progress while the run goes');
    await page.click(byId('scale-cancel'));
    await until(async () => /^cancelled/.test(await text(page, 'scale-status')), 30_000, 'the cancel');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});

test('scaling lab: the defaults show steps to target falling, then flattening, on the CPU path', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}scaling`);
    await page.selectOption(byId('scale-backend'), 'cpu');
    const started = Date.now();
    await page.click(byId('scale-run'));
    await until(async () => /^(done|failed)/.test(await text(page, 'scale-status')), 120_000, 'the default sweep');
    assert.equal(await text(page, 'scale-status'), 'done');
    console.log(`default sweep in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const rows = await page.locator(`${byId('scale-table')} tr`).all();
    const steps = [];
    for (const row of rows.slice(1)) steps.push(Number((await row.locator('td').nth(2).textContent()).trim()));
    console.log('steps to target:', steps);
    assert.equal(steps.length, 6);
    assert.ok(steps.every((s) => Number.isFinite(s) && s > 0), `every batch reaches the target: ${steps}`);
    assert.ok(steps.every((s, i) => i === 0 || s < steps[i - 1]), `fewer steps at every larger batch: ${steps}`);
    const early = steps[0] / steps[2];
    const late = steps[3] / steps[5];
    assert.ok(early > late + 0.5, `a 4× batch saves more at the small end (${early}) than at the large (${late})`);
    await screenshot(page, 'scaling-defaults.png');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});

test('scaling lab: batch norm misses the target at batch 2, layer norm reaches it (CPU path)', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    const reached = {};
    for (const net of ['mlp-bn', 'mlp-ln']) {
      await page.goto(`${server.url}scaling?network=${net}&data=mnist&batches=2,32&target_accuracy=true&target=0.85&max_steps=3000&noise_every=0`);
      await page.click(byId('scale-run'));
      await until(async () => /^(done|failed)/.test(await text(page, 'scale-status')), 180_000, `the ${net} sweep`);
      assert.equal(await text(page, 'scale-status'), 'done');
      const metric = (name) => page.locator(`[data-metric="${name}"]`).getAttribute('data-metric-value');
      reached[net] = [await metric('steps-2'), await metric('steps-32')].map((v) => v !== '');
      console.log(net, (await text(page, 'scale-table')).replace(/\s+/g, ' '));
    }
    assert.deepEqual(reached, { 'mlp-bn': [false, true], 'mlp-ln': [true, true] });
    await screenshot(page, 'scaling-norms.png');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});
