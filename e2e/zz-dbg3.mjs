import { serve, launch, text } from '/work/main/e2e/harness.mjs';
const server = await serve();
const { browser, page } = await launch({ webgpu: true });
await page.addInitScript(() => {
  window.__pipes = []; window.__dev = null;
  const P = GPUDevice.prototype;
  const sm = P.createShaderModule; P.createShaderModule = function (d) { const m = sm.call(this, d); m.__code = d.code; window.__dev = this; return m; };
  const cp = P.createComputePipeline; P.createComputePipeline = function (d) { window.__pipes.push({ code: d.compute.module.__code, entryPoint: d.compute.entryPoint, constants: d.compute.constants || {} }); return cp.call(this, d); };
});
await page.goto(`${server.url}bench?workload=W1&backend=webgpu&steps=2&test=100&tiles=64&autostart=1`);
await page.waitForFunction(() => window.__labBench !== undefined, null, { timeout: 100000, polling: 200 });
const out = await page.evaluate(async () => {
  const d = window.__dev; const r = []; for (const p of [...window.__pipes]) if (p.entryPoint === 'main_quad') { const c = { ...p.constants }; delete c.GATHER_B; window.__pipes.push({ code: p.code, entryPoint: 'main_block', constants: c }); }
  for (const p of window.__pipes) {
    const t0 = performance.now();
    const m = d.createShaderModule({ code: p.code });
    await d.createComputePipelineAsync({ layout: 'auto', compute: { module: m, entryPoint: p.entryPoint, constants: { ...p.constants, ...{} } } }).catch((e) => r.push('err ' + e.message));
    r.push(`${(performance.now() - t0).toFixed(0)} ms ${p.entryPoint} ${JSON.stringify(p.constants)}`);
  }
  return r;
});
console.log(out.join('\n'));
await browser.close(); await server.close();
