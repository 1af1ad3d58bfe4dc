// What a hostile-input run found, each reproduced: exports clicked over and over while training on
// WebGPU, link values the controls did not offer, and the benchmark page asked for WebGPU where
// there is none. (Hidden controls: hiding.test.mjs; link and file values: state/tests/.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { serve, launch, byId, text, until, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

const num = async (page, id) => Number.parseFloat(await text(page, id));
const ready = (page) => until(async () => !(await text(page, 'backend')).startsWith('Looking'), 60_000, 'WebGPU detection');

test('ten exports while training on WebGPU: ten downloads, and the run goes on', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}?backend=webgpu&dataset=spiral&hidden=8,8`);
    await ready(page);
    await page.click(byId('train'));
    await until(async () => (await num(page, 'step')) > 20, 60_000, 'training to run');
    let last = await num(page, 'step');
    for (let i = 0; i < 10; i++) {
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: 15_000 }), page.click(byId('export-weights'))]);
      const saved = JSON.parse(fs.readFileSync(await downloaded(download), 'utf8'));
      assert.ok(saved.model.step >= last, `export ${i + 1}: the running model (step ${saved.model.step} ≥ ${last})`);
      const now = await num(page, 'step');
      assert.ok(now >= last, `export ${i + 1}: the step counter never goes back (${last} → ${now})`);
      last = now;
    }
    assert.equal(await page.locator(byId('pause')).isEnabled(), true, 'still training');
    assert.match(await text(page, 'device'), /WebGPU/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('a link\'s learning rate and batch are shown as the model uses them', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    for (const [q, lr, batch] of [['lr=0.5&batch=10', '0.5', '10'], ['lr=0.05', '0.05', '16'], ['lr=10&batch=200', '10', '200']]) {
      await page.goto(`${server.url}?${q}`);
      await page.locator(byId('learning-rate')).waitFor();
      assert.equal(await page.$eval(byId('learning-rate'), (s) => s.value), lr, `${q}: learning rate shown`);
      assert.equal(await page.$eval(byId('batch'), (s) => s.value), batch, `${q}: batch shown`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('the benchmark page without WebGPU says so and offers the CPU path', async () => {
  const { browser, page } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}bench?workload=W1&steps=5&test=100&autostart=1`);
    await page.waitForFunction(() => window.__labBench !== undefined, null, { timeout: 120_000 });
    const failed = await page.evaluate(() => window.__labBench);
    assert.match(failed.error, /WebGPU is not available/, 'scripts get the reason');
    assert.match(await text(page, 'bench-status'), /WebGPU is not available.*CPU path/);
    await page.evaluate(() => { window.__labBench = undefined; });
    await page.click(byId('bench-use-cpu'));
    await page.waitForFunction(() => window.__labBench !== undefined, null, { timeout: 120_000 });
    const r = await page.evaluate(() => window.__labBench);
    assert.equal(r.error, undefined, r.error);
    assert.equal(r.backend, 'cpu');
    assert.match(page.url(), /backend=cpu/, 'the link says what ran');
  } finally {
    await browser.close();
  }
});

test('a 100,000-point upload trains, the plot draws a sample of it and says so', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}?backend=cpu`);
    await page.locator(byId('upload')).waitFor({ state: 'attached' });
    const lines = ['x,y,label'];
    for (let i = 0; i < 100_000; i++) {
      const a = (i * 2.399963) % (2 * Math.PI);
      const r = ((i * 7919) % 1000) / 1000;
      lines.push(`${(r * Math.cos(a)).toFixed(4)},${(r * Math.sin(a)).toFixed(4)},${r > 0.5 ? 1 : 0}`);
    }
    await page.locator(byId('upload')).setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });
    await until(async () => /100000 points\. The plot draws every \d+th/.test(await text(page, 'url-notice')), 60_000, 'the notice');
    await page.click(byId('train'));
    await until(async () => (await num(page, 'step')) > 200, 60_000, 'training on the upload');
    // The page keeps answering: Pause is taken at once.
    await page.click(byId('pause'));
    await until(async () => !(await page.locator(byId('pause')).isEnabled()), 5_000, 'pause');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
