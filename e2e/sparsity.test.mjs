// End-to-end: the sparsity lab's page on the CPU path, on a short experiment. The lesson's
// science with the defaults (at 87.5 % pruned the ticket matches the dense network, its two
// controls end several points lower) is asserted natively through the lab's own settings and run
// loop (state/tests/sparsity_lab.rs). Here, two rounds of 30 steps on 500 images: the table and
// its metrics, the verdict, the charts, the files, a reload, a bad input.
import fs from 'node:fs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

const metric = (page, name) => page.getAttribute(`[data-metric="${name}"]`, 'data-metric-value');

test('sparsity lab: a short lottery experiment, its table, verdict, charts and files', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}sparsity?steps=30&images=500&rounds=2`);
    const t0 = Date.now();
    await page.click(byId('sparse-run'));
    await until(async () => /^(done|failed)/.test(await text(page, 'sparse-status')), 600_000, 'the runs');
    console.log(`eleven runs in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    assert.equal(await text(page, 'sparse-status'), 'done');
    console.log((await text(page, 'sparse-verdict')).replace(/\s+/g, ' '));
    console.log((await text(page, 'sparse-table')).replace(/\s+/g, ' '));
    // A header, the dense row, two rounds.
    assert.equal(await page.locator(`${byId('sparse-table')} tr`).count(), 4);
    assert.equal(Number(await metric(page, 'sparsity-1')), 50);
    assert.equal(Number(await metric(page, 'sparsity-2')), 75);
    for (const name of ['acc-dense-0', 'acc-ticket-2', 'acc-reinit-2', 'acc-random-2', 'acc-finetune-2', 'acc-structured-2', 'oneshot-global-90', 'oneshot-per_layer-50', 'layer-pruned-1']) {
      const v = Number(await metric(page, name));
      assert.ok(v >= 0 && v <= 100, `${name}: a percentage (${v})`);
    }
    assert.ok(Number(await metric(page, 'acc-dense-0')) > 50, 'the dense network learns in 30 steps');
    // Structured against unstructured at 75 %: a hand count of the bytes (784-100-10: 79,400
    // weights, 4 bytes each dense; 19,850 kept at 6 bytes in CSR plus 112 row pointers; 784-25-10).
    assert.equal(Number(await metric(page, 'dense-bytes')), 317_600);
    assert.equal(Number(await metric(page, 'csr-bytes-75')), 19_850 * 6 + 4 * 112);
    assert.equal(Number(await metric(page, 'smaller-bytes-75')), 4 * (784 * 25 + 25 * 10));
    for (const name of ['structured-75', 'unstructured-75']) {
      const v = Number(await metric(page, name));
      assert.ok(v >= 0 && v <= 100, `${name}: a percentage (${v})`);
    }
    // Dense, CSR (the sparse kernel on the unstructured network) and the smaller network, timed.
    assert.match(await text(page, 'sparse-structured'), /\d+\.\d \/ \d+\.\d \/ \d+\.\d ms/, 'the forward passes timed');
    assert.match(await text(page, 'sparse-verdict'), /^At 75\.0 % of the weights pruned, the ticket reaches/);
    assert.match(await text(page, 'sparse-layer-text'), /layer 1 \(784 → 100\): [\d.]+ % pruned/);
    await screenshot(page, 'sparsity-runs.png');

    const [csv] = await Promise.all([page.waitForEvent('download'), page.click(byId('sparse-export-csv'))]);
    const rows = fs.readFileSync(await downloaded(csv), 'utf8').trim().split('\n');
    assert.match(rows[0], /^condition,round,sparsity_percent,test_accuracy/);
    assert.equal(rows.length, 1 + 11 + 18 + 4, 'eleven runs, eighteen one-shot points, two structured rows of two');
    const [rec] = await Promise.all([page.waitForEvent('download'), page.click(byId('sparse-export-record'))]);
    const record = fs.readFileSync(await downloaded(rec), 'utf8');
    assert.equal(JSON.parse(record).runs.length, 11);

    // A fresh page shows the finished runs from their JSON, without training; a bad file keeps them.
    await page.goto(`${server.url}sparsity?steps=30&images=500&rounds=2`);
    const load = (name, body) => page.locator(byId('sparse-load')).setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(body) });
    await load('sparsity-results.json', record);
    await until(async () => /loaded sparsity-results.json: 11 runs/.test(await text(page, 'sparse-status')), 10_000, 'the reload');
    assert.equal(await page.locator(`${byId('sparse-table')} tr`).count(), 4);
    await load('other.json', '{"runs": 3}');
    await until(async () => /other.json: .*kept/.test(await text(page, 'sparse-error')), 10_000, 'the refusal');

    // Conditions without the ticket are refused with a message, the last good value kept.
    await page.fill(byId('sparse-conditions'), 'reinit, random');
    await page.dispatchEvent(byId('sparse-conditions'), 'change');
    await until(async () => /ticket.*kept/.test(await text(page, 'sparse-error')), 10_000, 'the refusal of a list without the ticket');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
