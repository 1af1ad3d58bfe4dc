// Prints the first screen's cost: the gzipped wasm and JS sizes, and the time from navigation to
// the first trained step of the playground in headless Chromium (Train clicked as soon as it can
// be), on WebGPU and on the CPU path. Not a test: the README quotes its output.
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
for (const webgpu of [true, false]) {
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const { browser, page } = await launch({ webgpu });
    await page.goto(server.url);
    await page.locator(`${byId('train')}:not([disabled])`).waitFor();
    const mounted = await page.evaluate(() => performance.now());
    await page.click(byId('train'));
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="step"]')?.textContent) >= 1, null, { polling: 'raf' });
    runs.push({ mountedMs: Math.round(mounted), firstStepMs: Math.round(await page.evaluate(() => performance.now())) });
    await browser.close();
  }
  out[webgpu ? 'webgpu' : 'cpu'] = runs;
}
console.log(JSON.stringify(out));
await server.close();
