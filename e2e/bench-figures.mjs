// Prints the benchmark page's figures for W1 and W2 on WebGPU and on the CPU path in headless
// Chromium, one JSON line per run (not a test: `node e2e/bench-figures.mjs [steps] [W1,W2] [webgpu,cpu]`
// after `node scripts/build-app.mjs`). Default: a full epoch (156 steps), all workloads and backends.
// A fourth argument N times an N × N landscape slice on 1,000 images instead (`/bench?slice=N`).
import { serve, launch } from './harness.mjs';

const [steps, workloads = 'W1,W2', backends = 'webgpu,cpu', slice] = process.argv.slice(2);
const server = await serve();
const { browser, page } = await launch({ webgpu: true });
try {
  for (const workload of workloads.split(',')) {
    for (const backend of backends.split(',')) {
      const query = `workload=${workload}&backend=${backend}&autostart=1${steps ? `&steps=${steps}` : ''}${slice ? `&slice=${slice}` : ''}`;
      await page.goto(`${server.url}bench?${query}`);
      await page.waitForFunction(() => window.__labBench !== undefined, null, { timeout: 1_800_000, polling: 1000 });
      const r = await page.evaluate(() => window.__labBench);
      if (r.losses) r.losses = r.losses.length;
      console.log(JSON.stringify(r));
    }
  }
} finally {
  await browser.close();
  await server.close();
}
