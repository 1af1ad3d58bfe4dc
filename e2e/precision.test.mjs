// End-to-end: the precision lab's lessons on the CPU path. With the defaults, five runs on the
// same MNIST batches: naive fp16 diverges, mixed fp16 and bf16 land within a point of fp32, bf16
// without loss scaling, the dynamic scaler moves; its files, a reload, a bad input; then with SGD
// at η = 0.001 an fp16 master loses updates and falls behind while mixed fp16 keeps up.
import fs from 'node:fs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

const metric = (page, name, attr = 'data-metric-value') => page.getAttribute(`[data-metric="${name}"]`, attr);

test('precision lab: with the defaults naive fp16 fails where mixed precision and bf16 match fp32; with SGD an fp16 master loses updates', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}precision`);
    const t0 = Date.now();
    await page.click(byId('prec-run'));
    await until(async () => /^(done|failed)/.test(await text(page, 'prec-status')), 600_000, 'the five runs');
    console.log(`five runs in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    assert.equal(await text(page, 'prec-status'), 'done');
    console.log((await text(page, 'prec-verdict')).replace(/\s+/g, ' '));
    console.log((await text(page, 'prec-table')).replace(/\s+/g, ' '));
    assert.equal(await page.locator(`${byId('prec-table')} tr`).count(), 1 + 5);

    const diverged = await metric(page, 'acc-fp16', 'data-diverged');
    assert.ok(Number(diverged) > 0, `naive fp16 diverges (at step ${diverged})`);
    const fp32 = Number(await metric(page, 'acc-fp32'));
    assert.ok(fp32 > 0.85, `fp32 learns: ${fp32}`);
    for (const run of ['mixed-fp16', 'mixed-bf16', 'fp8']) {
      const a = Number(await metric(page, `acc-${run}`));
      assert.ok(Math.abs(a - fp32) < 0.01, `${run}: ${a} within a point of fp32 ${fp32}`);
    }
    assert.equal(await metric(page, 'scale-mixed-bf16'), '1', 'bf16 runs without loss scaling');
    assert.notEqual(await metric(page, 'scale-mixed-fp16'), '65536', 'the dynamic scale moved from 2^16');
    assert.match(await text(page, 'prec-verdict'), /fp16: diverged at step \d+ \(its optimizer state is fp16/);
    await screenshot(page, 'precision-runs.png');

    const [csv] = await Promise.all([page.waitForEvent('download'), page.click(byId('prec-export-csv'))]);
    const rows = fs.readFileSync(await csv.path(), 'utf8').trim().split('\n');
    assert.match(rows[0], /^run,weights,activations,gradients/);
    assert.equal(rows.length, 6);
    const [hist] = await Promise.all([page.waitForEvent('download'), page.click(byId('prec-histogram-csv'))]);
    assert.match(fs.readFileSync(await hist.path(), 'utf8'), /^step,loss_scale,layer,exponent_stored,count/);
    const [rec] = await Promise.all([page.waitForEvent('download'), page.click(byId('prec-export-record'))]);
    const record = fs.readFileSync(await rec.path(), 'utf8');
    assert.equal(JSON.parse(record).runs.length, 5);

    // A fresh page shows the finished runs from their JSON, without training; a bad file keeps them.
    await page.goto(`${server.url}precision`);
    const load = (name, body) => page.locator(byId('prec-load')).setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(body) });
    await load('precision-results.json', record);
    await until(async () => /loaded precision-results.json: 5 runs/.test(await text(page, 'prec-status')), 10_000, 'the reload');
    assert.equal(await page.locator(`${byId('prec-table')} tr`).count(), 6);
    await load('other.json', '{"runs": 3}');
    await until(async () => /other.json: .*kept/.test(await text(page, 'prec-error')), 10_000, 'the refusal');
    assert.equal(await page.locator(`${byId('prec-table')} tr`).count(), 6, 'the shown runs are kept');

    // A bad run name is refused with a message, the last good value kept.
    await page.fill(byId('prec-runs'), 'fp32, fp17');
    await page.dispatchEvent(byId('prec-runs'), 'change');
    await until(async () => /fp17.*kept/.test(await text(page, 'prec-error')), 10_000, 'the refusal of fp17');

    // SGD at η = 0.001: naive fp16 trains but loses updates to its fp16 master and falls behind;
    // mixed fp16's fp32 master keeps them.
    await page.selectOption(byId('prec-optimizer'), '0');
    for (const [id, v] of [['prec-lr', '0.001'], ['prec-runs', 'fp32, fp16, mixed-fp16']]) {
      await page.fill(byId(id), v);
      await page.dispatchEvent(byId(id), 'change');
    }
    await page.click(byId('prec-run'));
    await until(async () => /^(done|failed)/.test(await text(page, 'prec-status')), 600_000, 'the SGD runs');
    console.log((await text(page, 'prec-table')).replace(/\s+/g, ' '));
    const sgd32 = Number(await metric(page, 'acc-fp32'));
    const sgd16 = Number(await metric(page, 'acc-fp16'));
    const lost16 = Number(await metric(page, 'lost-fp16'));
    assert.ok(sgd16 < sgd32 - 0.05, `an fp16 master falls behind: ${sgd16} against ${sgd32}`);
    assert.ok(lost16 > 0.3, `an fp16 master loses updates: ${lost16}`);
    assert.ok(Number(await metric(page, 'lost-mixed-fp16')) < 0.01, 'an fp32 master keeps them');
    assert.ok(Math.abs(Number(await metric(page, 'acc-mixed-fp16')) - sgd32) < 0.01);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
