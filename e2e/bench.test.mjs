// End-to-end: the benchmark page runs W1, W2 and T1 (shortened by `steps`) on WebGPU and on the
// CPU path, driven by URL, and publishes its figures in window.__labBench; a run can be cancelled.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, screenshot, until } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

async function bench(page, query) {
  await page.goto(`${server.url}bench?${query}&autostart=1`);
  await page.waitForFunction(() => window.__labBench !== undefined, null, { timeout: 240_000, polling: 500 });
  return page.evaluate(() => window.__labBench);
}

test('benchmark page reports W1 and W2 figures on WebGPU and CPU', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    // SwiftShader emulates the GPU on the CPU: W2 runs a few steps and a small test set here.
    const losses = {};
    for (const [workload, backend, steps, testImages] of [
      ['W1', 'webgpu', 20, 2000], ['W1', 'cpu', 40, 2000], ['W2', 'webgpu', 3, 200], ['W2', 'cpu', 3, 200],
    ]) {
      const r = await bench(page, `workload=${workload}&backend=${backend}&steps=${steps}&test=${testImages}`);
      assert.equal(r.error, undefined, `${workload}/${backend}: ${r.error}`);
      console.log(`${workload} ${r.backend} (${r.device}): ${r.samplesPerSecSteady.toFixed(0)} samples/s steady, ` +
        `${r.samplesPerSecTotal.toFixed(0)} total, first step ${r.firstStepMs.toFixed(0)} ms, test accuracy ${r.testAccuracy}`);
      assert.equal(r.workload, workload);
      assert.equal(r.backend, backend);
      assert.match(r.device, backend === 'webgpu' ? /WebGPU/ : /CPU/);
      assert.equal(r.losses.length, steps);
      assert.ok(r.samplesPerSecSteady > 0 && r.samplesPerSecTotal > 0 && r.firstStepMs > 0);
      assert.ok(r.testAccuracy >= 0 && r.testAccuracy <= 1);
      assert.ok(r.losses.every(Number.isFinite));
      // A frame of a live lab: one readback for a chunk's metrics, one for a view of the model.
      if (backend === 'webgpu') {
        // A fresh browser on an emulated GPU (SwiftShader): 64 × 64 tiles, untimed, and its 4-lane
        // subgroups asked for and used by the dense products.
        if (workload === 'W1') {
          assert.equal(r.tiles, '64×64 (an emulated GPU: 64×64, untimed; dense products as quads of 4 lanes)');
        }
        assert.deepEqual([r.readbacksPerChunk, r.readbacksPerView], [1, 1], `${workload} readbacks`);
        console.log(`${workload} readbacks per frame: ${await page.locator(byId('bench-readbacks')).textContent()}`);
      }
      losses[`${workload}/${backend}`] = r.losses;
      if (workload === 'W1') await screenshot(page, `bench-${workload}-${backend}.png`);
    }
    // The browser's CPU path (the wasm SIMD GEMM) and the WebGPU kernels are independent
    // implementations of the same steps from the same batches: their loss curves must agree.
    for (const w of ['W1', 'W2']) {
      const [gpu, cpu] = [losses[`${w}/webgpu`], losses[`${w}/cpu`]];
      gpu.forEach((l, i) => assert.ok(Math.abs(l - cpu[i]) <= 2e-3 * (1 + Math.abs(l)), `${w} step ${i + 1}: WebGPU ${l} vs CPU ${cpu[i]}`));
    }
    assert.match(await page.locator(byId('bench-results')).textContent(), /samples\/s/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('benchmark page times T1, the attention lab\'s transformer, on WebGPU and CPU', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    const losses = {};
    for (const backend of ['webgpu', 'cpu']) {
      const r = await bench(page, `workload=T1&backend=${backend}&steps=20`);
      assert.equal(r.error, undefined, `T1/${backend}: ${r.error}`);
      console.log(`T1 ${backend}: ${r.samplesPerSecSteady.toFixed(0)} sequences/s steady, first step ${r.firstStepMs.toFixed(0)} ms`);
      assert.equal(r.workload, 'T1');
      assert.equal(r.backend, backend);
      assert.equal(r.batch, 64);
      assert.equal(r.losses.length, 20);
      assert.ok(r.samplesPerSecSteady > 0 && r.gflops > 0 && r.testAccuracy >= 0 && r.testAccuracy <= 1);
      losses[backend] = r.losses;
      const table = await page.locator(byId('bench-transformer-results')).textContent();
      assert.match(table, /sequences\/s \(steady\)/);
      assert.equal(await page.locator(byId('bench-results')).isVisible(), false, 'the MNIST table stays hidden');
    }
    // The same steps from the same start and batches on both paths.
    losses.webgpu.forEach((l, i) => assert.ok(Math.abs(l - losses.cpu[i]) <= 1e-3 * (1 + l), `T1 step ${i + 1}: ${l} vs ${losses.cpu[i]}`));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('benchmark page times a landscape slice against training (slice=N)', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    for (const backend of ['webgpu', 'cpu']) {
      const r = await bench(page, `workload=W1&backend=${backend}&steps=10&slice=3`);
      assert.equal(r.error, undefined, `${backend}: ${r.error}`);
      console.log(`W1 ${backend}: 3 × 3 slice on ${r.evalSamples} images in ${r.sliceMs.toFixed(0)} ms, ` +
        `${r.sliceSamplesPerSec.toFixed(0)} samples/s evaluated vs ${r.trainSamplesPerSec.toFixed(0)} trained (${r.ratio.toFixed(1)}×)`);
      assert.equal(r.backend, backend);
      assert.equal(r.res, 3);
      assert.equal(r.evalSamples, 1000);
      assert.ok(r.sliceMs > 0 && r.ratio > 0);
      assert.match(await page.locator(byId('bench-status')).textContent(), /3 × 3 slice on 1000 images/);
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('benchmark page: a run shows its progress and can be cancelled', async () => {
  const { browser, page } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}bench?workload=W2&steps=400`);
    await page.click(byId('bench-run'));
    await page.locator(byId('bench-progress')).waitFor({ state: 'visible', timeout: 10_000 });
    await page.locator(`${byId('bench-cancel')}:not([disabled])`).click({ timeout: 20_000 });
    await page.waitForLoadState('load');
    await until(async () => (await page.locator(byId('bench-status')).textContent()) === 'ready', 20_000, 'a fresh page');
    assert.equal(await page.locator(byId('bench-progress')).isVisible(), false);
    assert.equal(await page.locator(byId('bench-workload')).evaluate((s) => s.value), 'W2', 'settings kept');
    assert.ok(!page.url().includes('autostart'), page.url());
  } finally {
    await browser.close();
  }
});

test('benchmark page: the GPU tiles are chosen per device, remembered, and change only the time', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    const run = async (tiles) => {
      const r = await bench(page, `workload=W1&backend=webgpu&steps=12&test=100&tiles=${tiles}`);
      assert.equal(r.error, undefined, `tiles=${tiles}: ${r.error}`);
      console.log(`tiles=${tiles}: ${r.tiles}, ${r.samplesPerSecSteady.toFixed(0)} samples/s`);
      return r;
    };
    // (A fresh browser's untimed 64 × 64 tiles are the W1/W2 test's first WebGPU run.)
    // Timed now on this device: every candidate's time for small, medium and gathered products
    // (large ones, untimed on an emulated GPU, take the medium's shape), the fastest of each kept …
    const timed = await run('time');
    const shape = '(64|32|128)×\\d+( k÷4)?';
    const others = [1, 2, 3].map(() => `${shape} [\\d.]+`).join(', ');
    const cls = (name) => `${name} ${shape} \\([\\d.]+ ms; ${others}\\)`;
    const untimed = `large ${shape} \\(as medium: untimed on an emulated GPU\\)`;
    assert.match(timed.tiles, new RegExp(`^\\d+×\\d+.* \\(timed now: ${cls('small products')}, ${cls('medium')}, ${untimed}, ${cls('gathered')}\\)$`));
    const small = timed.tiles.match(/small products (\d+)×/)[1];
    const large = timed.tiles.match(/, medium (\d+)×/)[1];
    assert.equal(timed.tiles.match(/, large (\d+)×/)[1], large);
    assert.ok(timed.tiles.startsWith(`${small}×${small}`), timed.tiles);
    assert.match(await page.locator(byId('bench-tiles-used')).textContent(), /GPU tiles.*timed now/);
    // … and remembered for this GPU on the next visit.
    const again = await run('auto');
    const remembered = again.tiles;
    assert.ok(remembered.startsWith(`${small}×${small}`) && remembered.endsWith('(remembered for this GPU)'), remembered);
    if (small !== large) assert.match(remembered, new RegExp(`larger products ${large}×${large}`));
    // A shape the link names is used and said so, and changes only the time: the split shape's
    // four partial sums round differently from the timed run's tiles, within 1e-4, and the
    // remembered tiles are the timed ones. (That every shape computes every product as the CPU
    // twin does is the native test's: engine/tests/kernels_gpu_vs_cpu.)
    const split = await run('32k4');
    assert.ok(split.tiles.startsWith('32×32 k÷4 (set by the page: tiles=32k4)'), split.tiles);
    for (const [name, r] of [['32k4', split], ['remembered', again]]) {
      r.losses.forEach((l, i) => assert.ok(Math.abs(l - timed.losses[i]) <= 1e-4 * (1 + l), `${name}: step ${i + 1}: ${l} vs ${timed.losses[i]}`));
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
