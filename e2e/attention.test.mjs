// End-to-end: the attention lab's page. The lesson's science with the defaults (the copy learned
// on unseen sequences, a last-block head looking the answer up) is asserted natively through the
// lab's own settings and run loop (state/tests/attention_lab.rs). Here: the defaults on the CPU
// path, the table and its metrics, the verdict, the charts and their files, a reload, a preset,
// bad input; then a short run on WebGPU (SwiftShader), whose numbers must be as sound.
import fs from 'node:fs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

const metric = (page, name) => page.getAttribute(`[data-metric="${name}"]`, 'data-metric-value');

test('attention lab: the defaults copy unseen sequences, shown, exported and reloaded', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}attention`);
    const t0 = Date.now();
    await page.click(byId('attn-run'));
    await until(async () => /^(done|failed)/.test(await text(page, 'attn-status')), 300_000, 'the run');
    console.log(`the defaults in ${((Date.now() - t0) / 1000).toFixed(0)} s on the CPU path`);
    assert.equal(await text(page, 'attn-status'), 'done');
    console.log((await text(page, 'attn-verdict')).replace(/\s+/g, ' '));
    // The page shows the numbers the native test asserts: every copy right, the lookup formed.
    assert.ok(Number(await metric(page, 'test-acc-0')) >= 95, 'copies unseen sequences');
    assert.ok(Number(await metric(page, 'answer-attention')) > 90, 'a head looks the answer up');
    assert.ok(Number(await metric(page, 'fit-step-0')) <= 300);
    assert.match(await text(page, 'attn-verdict'), /^After 300 steps the model predicts (9\d|100)\.\d % of unseen copies; its last block's heads put (9\d|100) % of their attention/);
    // The example: test sequence 3 (3 mod 4 tokens of the copy shown), four tokens, the
    // separator, the first three again; the answer is the fourth.
    const example = (await text(page, 'attn-example-tokens')).match(/^Example \(test sequence 3\): ((?:\d ){4})# ((?:\d ){3})→ answer (\d)$/);
    assert.ok(example, 'the example in words');
    assert.equal(example[2], example[1].slice(0, 6));
    assert.equal(example[3], example[1][6]);
    await screenshot(page, 'attention-copy.png');
    // The memory view, counted by hand for the defaults (s 8, b 64, d 32, 2 heads, MLP 64, f32):
    // 6 tensors of s·b·d, 2 of s·b·f and a·b·s² probabilities; over 2 devices, the block's and
    // the MLP's inputs whole and the rest halved; the paper's layer at this width and heads (2
    // bytes, dropout, layer norms, an MLP 4d wide, whatever the model's) sbd·(34 + 5as/d) bytes,
    // Korthikanti et al. 2022's eq. 1.
    const [sbd, sbf, abss] = [8 * 64 * 32, 8 * 64 * 64, 2 * 64 * 8 * 8];
    assert.equal(Number(await metric(page, 'kept-bytes')), 4 * (6 * sbd + 2 * sbf + abss));
    assert.equal(Number(await metric(page, 'formula-bytes')), 4 * (6 * sbd + 2 * sbf + abss));
    assert.equal(Number(await metric(page, 'tp-bytes-2')), 4 * (2 * sbd + (4 * sbd + 2 * sbf + abss) / 2));
    assert.equal(Number(await metric(page, 'paper-bytes')), 34 * sbd + 5 * abss);
    // Two ring allreduces of the block's output (s·b·d floats) a forward pass, each sending
    // 2(t − 1)/t of it: over 2 devices, the whole output twice, 4 bytes a value.
    assert.equal(Number(await metric(page, 'tp-sent-2')), 2 * sbd * 4);
    // Trained split over 2 devices beside one device, 20 steps: the same losses and weights to
    // rounding (held natively to 1e-5: sims/tests/transformer_split.rs); a step sends each
    // device's forward and backward allreduces, 4 a block, over 2 blocks: 8 · s·b·d values.
    await page.selectOption(byId('attn-split-devices'), '2');
    await page.click(byId('attn-split-run'));
    await until(async () => (await page.locator(byId('attn-split-result')).count()) > 0, 60_000, 'the split check');
    assert.ok(Number(await metric(page, 'tp-loss-gap')) <= 1e-5, 'split losses');
    assert.ok(Number(await metric(page, 'tp-weight-gap')) <= 1e-5, 'split weights');
    const split = await text(page, 'attn-split-result');
    console.log(split);
    assert.match(split, new RegExp(`heads over 2 devices: .* Each device sent ${(8 * sbd * 4 / 1e3).toFixed(1)} kB a step`));

    const [csv] = await Promise.all([page.waitForEvent('download'), page.click(byId('attn-export-csv'))]);
    const rows = fs.readFileSync(await downloaded(csv), 'utf8').trim().split('\n');
    assert.match(rows[0], /^weight_decay,step,train_loss,train_accuracy,test_accuracy/);
    assert.equal(rows.length, 1 + 13, 'a row per measurement: step 0 and every 25 steps to 300');
    const [rec] = await Promise.all([page.waitForEvent('download'), page.click(byId('attn-export-record'))]);
    const record = fs.readFileSync(await downloaded(rec), 'utf8');
    assert.equal(JSON.parse(record).runs[0].patterns.length, 4, 'two blocks of two heads');

    // A fresh page shows the finished run from its JSON, without training; a bad file keeps it.
    await page.goto(`${server.url}attention`);
    const load = (name, body) => page.locator(byId('attn-load')).setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(body) });
    await load('attention-results.json', record);
    await until(async () => /loaded attention-results.json: 1 run/.test(await text(page, 'attn-status')), 10_000, 'the reload');
    assert.ok(Number(await metric(page, 'test-acc-0')) >= 95);
    await load('other.json', '{"runs": 3}');
    await until(async () => /other.json: .*kept/.test(await text(page, 'attn-error')), 10_000, 'the refusal');

    // Weight decays out of range are refused with a message, the last good value kept.
    await page.fill(byId('attn-decays'), '1, 2, 3, 4');
    await page.dispatchEvent(byId('attn-decays'), 'change');
    await until(async () => /1 to 3 weight decays.*kept/.test(await text(page, 'attn-error')), 10_000, 'the refusal of four decays');
    // A preset sets every setting.
    await page.selectOption(byId('attn-preset'), 'grokking');
    assert.equal(await page.inputValue(byId('attn-p')), '23');
    assert.equal(await page.inputValue(byId('attn-decays')), '1,0');
    assert.equal(await page.inputValue(byId('attn-task')), 'modular');
    assert.equal(await page.inputValue(byId('attn-backend')), 'cpu', 'the grokking preset runs where it is fast on every machine');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('attention lab: on WebGPU, two weight decays on a + b mod 7 train and are measured', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}attention?task=modular&p=7&train_fraction=0.6&width=16&heads=2&hidden=32&blocks=1&batch=32&steps=40&every=20&decays=1,0&backend=webgpu`);
    await page.click(byId('attn-run'));
    const seen = new Set();
    await until(async () => {
      const status = await text(page, 'attn-status');
      seen.add(status);
      return /^(done|failed)/.test(status);
    }, 300_000, 'the runs');
    assert.equal(await text(page, 'attn-status'), 'done');
    assert.ok([...seen].some((s) => /on WebGPU/.test(s)), `trained on WebGPU: ${[...seen].join(' | ')}`);
    console.log((await text(page, 'attn-table')).replace(/\s+/g, ' '));
    // A header and a row per weight decay, every accuracy a percentage.
    assert.equal(await page.locator(`${byId('attn-table')} tr:not([hidden])`).count(), 3);
    for (const name of ['train-acc-1', 'test-acc-1', 'train-acc-0', 'test-acc-0']) {
      const v = Number(await metric(page, name));
      assert.ok(v >= 0 && v <= 100, `${name}: a percentage (${v})`);
    }
    assert.ok(Number(await metric(page, 'norm-1')) > 0);
    // Weight decay keeps the weights smaller than Adam alone does, from the same start.
    assert.ok(Number(await metric(page, 'norm-1')) < Number(await metric(page, 'norm-0')));
    assert.match(await text(page, 'attn-verdict'), /^weight decay 1: .*; weight decay 0: /);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
