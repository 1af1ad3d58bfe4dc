// Prints the first screen's cost: the gzipped wasm and JS sizes, and the time from navigation to
// the first trained step of the playground in headless Chromium (Train clicked as soon as it can
// be), with WebGPU available (the "auto" choice, which measures both), with WebGPU chosen
// (`backend=webgpu`), and on the CPU path; and for WebGPU chosen, the time from the click to the
// first step. Not a test: the README quotes its output.
//   node e2e/start-figures.mjs
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, byId, root } from './harness.mjs';

const dist = path.join(root, 'dist');
const gz = (ext) => fs.readdirSync(dist).filter((f) => f.endsWith(ext))
  .reduce((n, f) => n + zlib.gzipSync(fs.readFileSync(path.join(dist, f)), { level: 9 }).length, 0);
const server = await serve();
const out = { wasmGzipBytes: gz('.wasm'), jsGzipBytes: gz('.js'), cssGzipBytes: gz('.css') };
for (const [name, webgpu, query] of [['auto', true, ''], ['webgpu', true, '?backend=webgpu'], ['cpu', false, '']]) {
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const { browser, page } = await launch({ webgpu });
    await page.goto(server.url + query);
    await page.locator(`${byId('train')}:not([disabled])`).waitFor();
    const mounted = await page.evaluate(() => performance.now());
    await page.click(byId('train'));
    const clicked = await page.evaluate(() => performance.now());
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="step"]')?.textContent) >= 1, null, { polling: 'raf' });
    const first = await page.evaluate(() => performance.now());
    runs.push({ mountedMs: Math.round(mounted), firstStepMs: Math.round(first), afterClickMs: Math.round(first - clicked) });
    await browser.close();
  }
  out[name] = runs;
}
console.log(JSON.stringify(out));
await server.close();
