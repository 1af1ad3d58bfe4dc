// End-to-end: the memory and parallelism lab's page on the CPU path, on short runs. With the
// defaults a 12-layer MLP needs more memory than one simulated 6 MB device has; checkpointing,
// ZeRO-3 on four workers and a 4-stage pipeline each fit, and each, trained on the same MNIST
// batches, reaches the plain run's accuracy with weights that agree to rounding (checkpointing:
// bit for bit). That the plain run learns (above 85 % over the lab's 500 steps) and the lesson's
// accuracies are asserted natively (state/tests/parallelism_lab.rs); the memory figures do not
// depend on the steps. Then its files, a reload, a bad input, and the best layout of a budget.
import fs from 'node:fs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

const metric = (page, name, attr = 'data-metric-value') => page.getAttribute(`[data-metric="${name}"]`, attr);

test('parallelism lab: a model that does not fit one device fits three ways, each training to the same accuracy', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}parallelism?steps=40`);
    const t0 = Date.now();
    await page.click(byId('par-run'));
    await until(async () => /^(done|failed)/.test(await text(page, 'par-status')), 600_000, 'the four layouts');
    console.log(`four layouts in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    assert.equal(await text(page, 'par-status'), 'done');
    console.log((await text(page, 'par-verdict')).replace(/\s+/g, ' '));
    console.log((await text(page, 'par-table')).replace(/\s+/g, ' '));
    assert.equal(await page.locator(`${byId('par-table')} tr`).count(), 1 + 4);

    assert.equal(await metric(page, 'peak-plain', 'data-fits'), 'false', 'plain does not fit one device');
    const plain = Number(await metric(page, 'acc-plain'));
    assert.ok(plain > 0.3, `the network learns in 40 steps: ${plain}`);
    for (const way of ['checkpoint', 'zero', 'pipeline']) {
      assert.equal(await metric(page, `peak-${way}`, 'data-fits'), 'true', `${way} fits`);
      const a = Number(await metric(page, `acc-${way}`));
      assert.ok(Math.abs(a - plain) < 0.01, `${way}: ${a} within a point of plain ${plain}`);
      const gap = Number(await metric(page, `gap1-${way}`));
      assert.ok(gap < 1e-5, `${way}: its first update within ${gap} of plain's`);
    }
    assert.equal(await metric(page, 'gap-checkpoint'), '0', 'checkpointing is bit-identical');
    // The trade: checkpointing costs time, ZeRO-3 costs traffic.
    assert.ok(Number(await metric(page, 'time-checkpoint')) > Number(await metric(page, 'time-plain')));
    assert.ok(Number(await metric(page, 'wire-zero')) > 0);
    // Tensor parallelism on the trained first block: columns bit-identical, rows and Megatron's
    // block to rounding.
    assert.equal(await metric(page, 'tensor-gap-0'), '0');
    for (const i of [1, 2]) assert.ok(Number(await metric(page, `tensor-gap-${i}`)) < 1e-4, `split ${i}`);
    // ZeRO's stages: each keeps less per device; stage 3 sends 1.5× data parallelism.
    const zp = await Promise.all([0, 1, 2, 3].map(async (k) => Number(await metric(page, `zero-peak-${k}`))));
    assert.ok(zp[0] > zp[1] && zp[1] > zp[2] && zp[2] > zp[3], `peaks ${zp}`);
    const w0 = Number(await metric(page, 'zero-wire-0'));
    assert.ok(Math.abs(Number(await metric(page, 'zero-wire-3')) / w0 - 1.5) < 1e-6);
    assert.equal(Number(await metric(page, 'zero-wire-1')), w0);
    const [remat] = await Promise.all([page.waitForEvent('download'), page.click(byId('par-remat-csv'))]);
    assert.equal(fs.readFileSync(await downloaded(remat), 'utf8').trim().split('\n').length, 1 + 25, 'one row per segment length');
    // The pipeline chart steps back and forward piece by piece, and plays.
    await page.click(byId('par-pipe-back'));
    await page.click(byId('par-pipe-step'));
    await page.click(byId('par-pipe-play'));
    await until(async () => (await text(page, 'par-pipe-play')) === 'play the step', 20_000, 'the animation to end');
    await screenshot(page, 'parallelism-runs.png');

    const [csv] = await Promise.all([page.waitForEvent('download'), page.click(byId('par-export-csv'))]);
    const rows = fs.readFileSync(await downloaded(csv), 'utf8').trim().split('\n');
    assert.match(rows[0], /^layout,devices,peak_bytes_per_device,fits/);
    assert.equal(rows.length, 5);
    const [mem] = await Promise.all([page.waitForEvent('download'), page.click(byId('par-memory-csv'))]);
    assert.match(fs.readFileSync(await downloaded(mem), 'utf8'), /^layout,stage,weights_bytes/);
    const [rec] = await Promise.all([page.waitForEvent('download'), page.click(byId('par-export-record'))]);
    const record = fs.readFileSync(await downloaded(rec), 'utf8');
    assert.equal(JSON.parse(record).runs.length, 4);

    // A fresh page shows the finished layouts from their JSON, without training; a bad file keeps them.
    await page.goto(`${server.url}parallelism`);
    const load = (name, body) => page.locator(byId('par-load')).setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(body) });
    await load('parallelism-results.json', record);
    await until(async () => /loaded parallelism-results.json: 4 runs/.test(await text(page, 'par-status')), 10_000, 'the reload');
    assert.equal(await page.locator(`${byId('par-table')} tr`).count(), 5);
    await load('other.json', '{"runs": 3}');
    await until(async () => /other.json: .*kept/.test(await text(page, 'par-error')), 10_000, 'the refusal');
    assert.equal(await page.locator(`${byId('par-table')} tr`).count(), 5, 'the shown layouts are kept');
    // The lab's own file with an empty profile (it panicked the page) or a timeline of 10⁹
    // stages (it took 2 GB) is refused with its reason, the layouts shown kept.
    const own = JSON.parse(record);
    const emptied = { ...own, profile: { ...own.profile, layers: [] } };
    await load('empty.json', JSON.stringify(emptied));
    await until(async () => /empty.json: .*a profile of 1 to 65 layers, not 0.*kept/.test(await text(page, 'par-error')), 10_000, 'the empty profile refused');
    const piped = own.estimates.findIndex((e) => e.timeline);
    const huge = structuredClone(own);
    huge.estimates[piped].timeline.stages = 1e9;
    await load('huge.json', JSON.stringify(huge));
    await until(async () => /huge.json: .*a timeline of 1 to 64 stages.*kept/.test(await text(page, 'par-error')), 10_000, 'the huge timeline refused');
    assert.equal(await page.locator(`${byId('par-table')} tr`).count(), 5, 'the shown layouts are kept');

    // A bad layout name is refused with a message, the last good value kept.
    await page.fill(byId('par-runs'), 'plain, fastest');
    await page.dispatchEvent(byId('par-runs'), 'change');
    await until(async () => /fastest.*kept/.test(await text(page, 'par-error')), 10_000, 'the refusal of fastest');

    // The best layout of 8 devices with 2 MB each: found, fits, trains.
    await page.goto(`${server.url}parallelism?runs=best&memory=2&steps=60`);
    await page.click(byId('par-run'));
    await until(async () => /^(done|failed)/.test(await text(page, 'par-status')), 300_000, 'the best layout');
    console.log((await text(page, 'par-table')).replace(/\s+/g, ' '));
    assert.equal(await metric(page, 'peak-best', 'data-fits'), 'true');
    assert.ok(Number(await metric(page, "acc-best")) > 0.3);

    // No layout fits a microbyte: the reason stays on screen, not a passing status.
    await page.goto(`${server.url}parallelism?runs=best&memory=0.000001`);
    await page.click(byId('par-run'));
    await until(async () => /^failed/.test(await text(page, 'par-status')), 60_000, 'the end of the run');
    assert.match(await text(page, 'par-error'), /no layout of at most 8 devices fits .*nothing to train/, 'the reason stays');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
