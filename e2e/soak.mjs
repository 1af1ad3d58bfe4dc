// Watches the wasm memory while a lab runs for a while, for a memory slope (not a test:
// `node e2e/soak.mjs [lab] [minutes] [query]` after `node scripts/build-app.mjs`). The playground
// trains without end; every other lab's run is started again each time it ends. Prints one JSON
// line per minute (MB) and the slope in MB per minute over the second half, when the lab's
// buffers have settled. Default: the playground on the CPU path for 10 minutes.
import { serve, launch, byId } from './harness.mjs';

/// Each lab's start button.
const START = {
  playground: 'train', optimizers: 'opt-run', landscape: 'land-run', scaling: 'scale-run',
  cluster: 'cl-train', vision: 'vision-run', bench: 'bench-run',
};

const [lab = 'playground', minutes = '10', query = lab === 'playground' ? 'backend=cpu' : ''] = process.argv.slice(2);
const server = await serve();
const { browser, page } = await launch({ webgpu: false });
const mb = () => page.evaluate(() => window.__labWasmMemory.buffer.byteLength / 2 ** 20);
try {
  await page.goto(`${server.url}${lab === 'playground' ? '' : lab}?${query}`);
  const start = page.locator(byId(START[lab])).first();
  await start.waitFor();
  const samples = [];
  const t0 = Date.now();
  let runs = 0;
  for (let m = 0; m <= Number(minutes); m++) {
    // Within the minute: start a run whenever none is going (the playground's once).
    while (Date.now() - t0 < m * 60_000) {
      if ((lab !== 'playground' || runs === 0) && (await start.isEnabled())) {
        await start.click();
        runs++;
      }
      await page.waitForTimeout(2000);
    }
    const sample = { lab, minute: m, runs, mb: await mb() };
    samples.push(sample);
    console.log(JSON.stringify(sample));
  }
  const half = samples.slice(Math.floor(samples.length / 2));
  const slope = (half.at(-1).mb - half[0].mb) / Math.max(1, half.at(-1).minute - half[0].minute);
  console.log(JSON.stringify({ lab, query, minutes: Number(minutes), runs, slope_mb_per_minute: slope }));
} finally {
  await browser.close();
  await server.close();
}
