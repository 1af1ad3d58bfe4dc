// End-to-end: the vision lab trains the LeNet-like preset for one epoch on 2,000 MNIST images on
// the CPU path (its WebGPU training is the device-loss test's, and LeNet's kernels on WebGPU the
// benchmark page's W2: on an emulated GPU an epoch and the 10,000 test images take minutes), draws its curves, filters, feature maps, confusion matrix and misclassified images;
// a digit drawn with the mouse gets probabilities; the model saves and loads; a model trained by
// `lab train --save-model` loads and predicts what `lab predict` printed; bad input is refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until, root, logScaleRedraws, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

const probs = async (page) => {
  const out = [];
  for (let k = 0; k < 10; k++) out.push(parseFloat(await text(page, `vision-prob-${k}`)));
  return out;
};

async function drawSeven(page) {
  // In the middle of the screen, clear of the sticky run bar.
  await page.locator(byId('vision-pad')).evaluate((el) => el.scrollIntoView({ block: 'center' }));
  const box = await page.locator(byId('vision-pad')).boundingBox();
  const at = (x, y) => [box.x + x * box.width, box.y + y * box.height];
  await page.mouse.move(...at(0.25, 0.2));
  await page.mouse.down();
  for (const [x, y] of [[0.5, 0.2], [0.75, 0.2], [0.65, 0.45], [0.55, 0.65], [0.48, 0.85]]) {
    await page.mouse.move(...at(x, y), { steps: 6 });
  }
  await page.mouse.up();
}

test('vision lab: LeNet on MNIST for an epoch on the CPU path, views, drawing, save and load', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}vision?webgpu=cpu`);
    await page.selectOption(byId('vision-train'), '2000');
    await page.fill(byId('vision-epochs'), '1');
    await page.dispatchEvent(byId('vision-epochs'), 'change');
    await page.click(byId('vision-run'));
    // Save while training: the session answers between two chunks with the model so far.
    await until(async () => /^training on/.test(await text(page, 'vision-status')), 120_000, 'training to start');
    await until(async () => parseFloat(await text(page, 'vision-epoch')) > 0 || !(await page.locator(byId('vision-stop')).isEnabled()), 120_000, 'a first chunk');
    if (await page.locator(byId('vision-stop')).isEnabled()) {
      const [early] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click(byId('vision-save'))]);
      const model = JSON.parse(fs.readFileSync(await downloaded(early), 'utf8'));
      assert.equal(model.format, 'training-lab model v1');
      console.log(`saved during training at step ${model.step}`);
    }
    await until(async () => /^(done|stopped)|failed/.test(await text(page, 'vision-status')) || (await text(page, 'vision-error')) !== '', 600_000, 'an epoch');
    assert.equal(await text(page, 'vision-error'), '');
    const status = await text(page, 'vision-status');
    console.log(status, await page.evaluate(() => window.__labVision));
    assert.match(status, /^done: 1 epoch in [\d.]+ s, test accuracy [\d.]+ %/);
    const acc = parseFloat(await text(page, 'vision-test-accuracy'));
    assert.ok(acc > 50, `31 steps of LeNet on 2,000 images learn: ${acc} %`);
    await logScaleRedraws(page, 'vision-loss', 'vision-log');
    // After training the first test image is shown and classified.
    // Scoring all 10,000 test images comes first.
    await until(async () => /^test image 0/.test(await text(page, 'vision-pad-note')), 180_000, 'the first test image');
    await until(async () => Math.abs((await probs(page)).reduce((a, b) => a + b, 0) - 100) < 1, 30_000, 'probabilities summing to 100 %');
    assert.equal(await page.locator(`${byId('vision-per-class')} tr`).count(), 11);
    await screenshot(page, 'vision-trained.png');

    await page.click(byId('vision-clear'));
    await drawSeven(page);
    await until(async () => /your drawing/.test(await text(page, 'vision-pad-note')), 10_000, 'the drawing');
    await until(async () => (await probs(page)).reduce((a, b) => a + b, 0) > 99, 10_000, 'probabilities of the drawing');
    console.log('drawn 7:', await probs(page));
    await page.click(byId('vision-next'));
    await until(async () => /^test image 1: a \d/.test(await text(page, 'vision-pad-note')), 10_000, 'the next test image');
    await screenshot(page, 'vision-drawn.png');

    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(byId('vision-save'))]);
    const saved = fs.readFileSync(await downloaded(dl), 'utf8');
    assert.equal(JSON.parse(saved).format, 'training-lab model v1');
    // For a notebook: three files; the weights are safetensors (an 8-byte header length, a JSON
    // header naming each tensor as nn.Sequential does). Python reads them in cli/tests/cli.rs.
    const files = new Map();
    page.on('download', async (d) => files.set(d.suggestedFilename(), fs.readFileSync(await downloaded(d))));
    await page.click(byId('vision-save-torch'));
    await until(async () => files.size === 3, 15_000, 'the three PyTorch files');
    const st = files.get('model.safetensors');
    const header = JSON.parse(st.subarray(8, 8 + Number(st.readBigUInt64LE(0))).toString('utf8'));
    assert.deepEqual(header['0.weight'].shape.length, 4, 'the first convolution\'s weight');
    assert.match(files.get('model.py').toString(), /model = nn\.Sequential\(\n    nn\.Conv2d\(1, /);

    // A fresh page loads it and predicts test image 0 exactly as before.
    const before0 = await page.evaluate(() => window.__labVisionProbs);
    await page.goto(`${server.url}vision?webgpu=cpu`);
    const load = (name, body) => page.locator(byId('vision-load')).setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(body) });
    await load('model.json', saved);
    await until(async () => /^test image 0/.test(await text(page, 'vision-pad-note')), 60_000, 'the loaded model');
    assert.equal(await page.locator(`${byId('vision-per-class')} tr`).count(), 11);
    await load('other.json', '{"format":"something else"}');
    await until(async () => /other.json: .*kept/.test(await text(page, 'vision-error')), 10_000, 'the refusal');
    await page.fill(byId('vision-layers'), 'conv 6 5x4, dense 10');
    await page.dispatchEvent(byId('vision-layers'), 'change');
    assert.match(await text(page, 'vision-error'), /kernels are square.*kept the last network/);
    assert.ok(before0.length === 10);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('vision lab: a model trained by the lab tool loads and predicts what lab predict printed', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-model-'));
  const config = path.join(dir, 'config.json');
  fs.writeFileSync(config, JSON.stringify({
    data: { images: { set: 'mnist', train_limit: 2000, test_limit: 2000 } },
    model: { kind: 'layers', layers: [{ type: 'dense', units: 32 }, { type: 'activation', kind: 'relu' }, { type: 'dense', units: 10 }] },
    optimizer: { kind: 'adam', beta1: 0.9, beta2: 0.999, eps: 1e-8 },
    learning_rate: 0.003, batch: 64, seed: 3,
  }));
  const model = path.join(dir, 'model.json');
  // The test command passes the binary its native stage built (LAB_BIN): `cargo run -p` alone
  // unifies the crates' features differently and would build the engine again.
  const [command, prefix] = process.env.LAB_BIN
    ? [process.env.LAB_BIN, []]
    : ['cargo', ['run', '-q', '-p', 'lab_cli', '--bin', 'lab', '--']];
  const lab = (...args) => execFileSync(command, [...prefix, ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  lab('train', '--config', config, '--backend', 'cpu', '--steps', '150', '--save-model', model);
  const expected = JSON.parse(lab('predict', '--model', model, '--count', '1'));

  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}vision?webgpu=webgpu`);
    await page.locator(byId('vision-load')).setInputFiles(model);
    await until(async () => /^test image 0/.test(await text(page, 'vision-pad-note')) || (await text(page, 'vision-error')) !== '', 60_000, 'the loaded model');
    assert.equal(await text(page, 'vision-error'), '');
    await until(async () => Array.isArray(await page.evaluate(() => window.__labVisionProbs)), 10_000, 'its probabilities');
    const got = await page.evaluate(() => window.__labVisionProbs);
    const want = expected.probabilities[0];
    for (let k = 0; k < 10; k++) assert.ok(Math.abs(got[k] - want[k]) < 1e-4, `class ${k}: browser ${got[k]} vs lab ${want[k]}`);
    console.log('lab predict:', want.map((p) => p.toFixed(4)).join(' '), '| browser:', got.map((p) => p.toFixed(4)).join(' '));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
