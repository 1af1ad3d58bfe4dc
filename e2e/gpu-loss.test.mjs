// A GPU lost in the middle of a run (a driver reset, a laptop switching GPUs), outside the
// playground (playground.test.mjs covers it): every lab offers `window.__labLoseGpu()`, and a
// run on WebGPU that loses its device says so and is done again on the CPU path.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, until, ROUTES } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

test('every lab can lose its GPU on purpose', async () => {
  const { browser, page } = await launch({ webgpu: true });
  try {
    for (const lab of [...ROUTES, 'labs']) {
      await page.goto(`${server.url}${lab}`);
      await page.waitForFunction(() => typeof window.__labLoseGpu === 'function', null, { timeout: 30_000 });
    }
  } finally {
    await browser.close();
  }
});

test('scaling: a sweep on WebGPU that loses its device finishes on the CPU path and says why', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}scaling?batches=8,64&data=gaussians&target=0.3&max_steps=400`);
    await page.locator(byId('scale-backend')).selectOption('webgpu');
    await page.click(byId('scale-run'));
    // The first run finishes on WebGPU (the lab's sweep on a GPU; its page test runs the CPU
    // path), then the device goes while the second trains.
    await until(async () => (await page.locator(`${byId('scale-table')} tr`).count()) === 2, 120_000, 'a run done on WebGPU');
    assert.match(await text(page, 'scale-status'), /on WebGPU/);
    await page.evaluate(() => window.__labLoseGpu());
    await until(async () => /GPU device was lost/.test(await text(page, 'scale-error')), 60_000, 'the loss said');
    await until(async () => (await text(page, 'scale-status')) === 'done', 180_000, 'the sweep to end');
    const rows = await page.locator(`${byId('scale-table')} tr`).count();
    assert.equal(rows, 3, 'both batches ran (a header and two rows)');
    assert.deepEqual(errors.filter((e) => !/lost|destroy/i.test(e)), []);
  } finally {
    await browser.close();
  }
});

test('vision: training on WebGPU that loses its device starts again on the CPU path and says why', async () => {
  const { browser, page } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}vision?webgpu=webgpu&train=10000&epochs=2&preset=mlp&layers=dense+32,+relu,+dense+10`);
    await page.click(byId('vision-run'));
    await until(async () => /^training on (?!CPU)/.test(await text(page, 'vision-status')), 120_000, 'training on WebGPU');
    await page.evaluate(() => window.__labLoseGpu());
    await until(async () => /GPU device was lost/.test(await text(page, 'vision-error')), 60_000, 'the loss said');
    await until(async () => /^done: 2 epochs/.test(await text(page, 'vision-status')), 240_000, 'the run again on the CPU path');
    const accuracy = Number((await text(page, 'vision-status')).match(/test accuracy ([\d.]+) %/)[1]);
    assert.ok(accuracy > 80, `the CPU run trains as the GPU one would (${accuracy} %)`);
  } finally {
    await browser.close();
  }
});
