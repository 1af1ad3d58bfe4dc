// End-to-end: the hardware lab's page, on the CPU path and on WebGPU (SwiftShader). The science —
// the kernels' FLOPs and bytes, the systolic counts — is asserted natively (engine/tests/
// roofline.rs, state/tests/hardware_lab.rs); here the page measures, shows those numbers, names
// an emulation as one, plays the array, writes its files and reloads them.
import fs from 'node:fs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, until, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

const metric = (page, name) => page.getAttribute(`[data-metric="${name}"]`, 'data-metric-value');

for (const webgpu of [false, true]) {
  test(`hardware lab: the roofline, the step's kernels and the systolic array (${webgpu ? 'WebGPU' : 'CPU path'})`, async () => {
    const { browser, page, errors } = await launch({ webgpu });
    try {
      await page.goto(`${server.url}hardware?reps=3${webgpu ? '' : '&backend=cpu'}`);
      // The systolic counts follow the settings before any run (closed forms, by hand in the
      // native tests): W1's first layer on 16 × 16.
      assert.equal(Number(await metric(page, 'cycles-ws')), 392 * 110);
      assert.equal(Number(await metric(page, 'cycles-os')), 32 * 814);
      await page.click(byId('hw-run'));
      await until(async () => /^(done|failed)/.test(await text(page, 'hw-status')), 300_000, 'the measurements');
      assert.equal(await text(page, 'hw-status'), 'done');
      console.log(await text(page, 'hw-roofs'));
      assert.match(await text(page, 'hw-roofs'), /This is an emulation/, 'SwiftShader and the CPU path are named emulations');
      for (const name of ['peak-gflops', 'bandwidth-gbs', 'ridge']) {
        assert.ok(Number(await metric(page, name)) > 0, `${name} measured`);
      }
      // Six fused kernels for W1; the first layer's (gather and product) at its hand-counted 18.7
      // FLOPs a byte: 2 · 64 · 784 · 128 over 64 · 792 + 4 · (64 · 785 + 784 · 128 + 64 · 128 + 128).
      assert.equal(await page.locator(`${byId('hw-kernels')} tr`).count(), 1 + 6 + 1);
      assert.ok(Math.abs(Number(await metric(page, 'intensity-1')) - 12845056 / 686336) < 1e-9);
      assert.ok(Number(await metric(page, 'memory-bound')) >= 2, 'the loss and the update at least');
      // What fusion joins: six kernels dispatched, 474,664 bytes fewer than their ops apart (the
      // native count, state/tests/hardware_lab.rs; the output layer's part by hand in
      // engine/tests/roofline.rs).
      assert.equal(await page.locator(`${byId('hw-fusion')} tr`).count(), 1 + 6 + 1);
      assert.equal(Number(await metric(page, 'fusion-saved')), 474_664);
      // The step's graph: W1's 15 ops and 22 tensors between them (every edge by hand in
      // engine/tests/step_graph.rs); the backward's FLOPs are two products a layer less the first
      // layer's input gradient: (2·64·784·128 + 2·2·64·128·10) / (2·64·784·128 + 2·64·128·10).
      assert.match(await text(page, 'hw-graph-text'), /^15 ops, 22 tensors passed between them; 6 kernels run them/);
      const ratio = (12_845_056 + 2 * 163_840) / (12_845_056 + 163_840);
      assert.ok(Math.abs(Number(await metric(page, 'backward-ratio')) - ratio) < 1e-12);
      assert.equal(await page.getAttribute(byId('hw-graph'), 'height'), String(30 + 4 * 64 + 50 + 20));
      // Which clock timed the kernels, said: the CPU twin's, or on WebGPU timestamps or repeats.
      assert.match(await text(page, 'hw-clock'), webgpu ? /GPU's own clock|repeated dispatches/ : /CPU twin/);
      assert.match(await text(page, 'hw-tuning'), webgpu ? /emulated GPU: 64×64, untimed/ : /CPU path has no tiles/);
      // The cluster lab's model leaves the compute roof at 16 workers (state/tests/hardware_lab.rs).
      assert.equal(Number(await metric(page, 'network-bound-from')), 16);
      // Its own settings: over Wi-Fi (0.05 GB/s, a ridge of 100 FLOPs a byte) even two workers
      // wait on the network (32 samples × 102,272 FLOPs over half of a 101,800-byte gradient sent
      // twice); the chart follows without a new run.
      await page.selectOption(byId('hw-link'), 'wifi');
      await until(async () => Number(await metric(page, 'network-bound-from')) === 2, 5_000, 'the distributed roofline over Wi-Fi');
      await page.selectOption(byId('hw-link'), '10gbe');
      await until(async () => Number(await metric(page, 'network-bound-from')) === 16, 5_000, 'back to 10 Gb Ethernet');
      // The tile shapes: 64 × 64 tiles read A twice and B once (by hand, sims/src/hardware/tiling.rs).
      assert.equal(await page.locator(`${byId('hw-tile-table')} tr`).count(), 1 + 4);
      assert.equal(Number(await metric(page, 'tile-bytes-64')), 4 * (2 * 50_176 + 100_352 + 8_192));
      const tileText = await text(page, 'hw-tile-table');
      assert.ok(webgpu ? !/no GPU tiles/.test(tileText) : /no GPU tiles/.test(tileText), tileText);
      // The fold plays and the slider moves the picture.
      await page.fill(byId('hw-cycle'), '40');
      await page.click(byId('hw-play'));
      await until(async () => /Play/.test(await text(page, 'hw-play')), 60_000, 'the fold played to its end');
      const [csv] = await Promise.all([page.waitForEvent('download'), page.click(byId('hw-export-csv'))]);
      const rows = fs.readFileSync(await downloaded(csv), 'utf8').trim().split('\n');
      assert.match(rows[0], /^part,name,ms,flops,bytes/);
      assert.equal(rows.filter((r) => r.startsWith('step,')).length, 6);
      assert.equal(rows.filter((r) => r.startsWith('sweep,')).length, 7);
      const [rec] = await Promise.all([page.waitForEvent('download'), page.click(byId('hw-export-record'))]);
      const record = fs.readFileSync(await downloaded(rec), 'utf8');
      await page.goto(`${server.url}hardware?reps=3`);
      await page.locator(byId('hw-load')).setInputFiles({ name: 'hardware-results.json', mimeType: 'application/json', buffer: Buffer.from(record) });
      await until(async () => /loaded hardware-results.json/.test(await text(page, 'hw-status')), 10_000, 'the reload');
      assert.equal(await page.locator(`${byId('hw-kernels')} tr`).count(), 1 + 6 + 1);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  });
}
