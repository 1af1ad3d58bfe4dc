// Watches the wasm memory while the playground trains on the CPU path, for a memory slope (not a
// test: `node e2e/soak.mjs [minutes] [query]` after `trunk build --release`). Prints one JSON line
// per minute (steps, MB) and the slope in MB per minute over the run's second half, when the
// lab's buffers have settled. Default: 10 minutes of the default network.
import { serve, launch, byId } from './harness.mjs';

const [minutes = '10', query = 'backend=cpu'] = process.argv.slice(2);
const server = await serve();
const { browser, page } = await launch({ webgpu: false });
const mb = () => page.evaluate(() => window.__labWasmMemory.buffer.byteLength / 2 ** 20);
try {
  await page.goto(`${server.url}?${query}`);
  await page.locator(byId('train')).waitFor();
  await page.click(byId('train'));
  const samples = [];
  for (let m = 0; m <= Number(minutes); m++) {
    if (m > 0) await page.waitForTimeout(60_000);
    const sample = { minute: m, steps: Number(await page.textContent(byId('step'))), mb: await mb() };
    samples.push(sample);
    console.log(JSON.stringify(sample));
  }
  const half = samples.slice(Math.floor(samples.length / 2));
  const slope = (half.at(-1).mb - half[0].mb) / Math.max(1, half.at(-1).minute - half[0].minute);
  console.log(JSON.stringify({ query, minutes: Number(minutes), slope_mb_per_minute: slope }));
} finally {
  await browser.close();
  await server.close();
}
