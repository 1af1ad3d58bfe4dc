// Prints the CPU path's speed on 1, 2 and all cores (the CPU team, app/src/cpu_team) for W1 and
// W2 in headless Chromium, run side by side, with each run's speed-up over one core and how far
// its losses stray from the one-core run's (not a test: `node e2e/cores-figures.mjs [steps]
// [W1,W2] [not-isolated] [rounds]` after `trunk build --release`; the page is cross-origin
// isolated, so the team shares memory, unless the third argument says otherwise and it exchanges
// messages). With `rounds` above 1 the counts take turns that many times and the median of each
// count's speed-up over the one-core run of its own round is printed last: on a shared machine
// whose cores change speed from second to second, turns compare like with like.
import os from 'node:os';
import { serve, launch } from './harness.mjs';

const [steps = '300', workloads = 'W1,W2', isolation = 'isolated', rounds = '1'] = process.argv.slice(2);
const all = os.availableParallelism();
const counts = [...new Set([1, 2, all])];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const server = await serve(undefined, { isolated: isolation !== 'not-isolated' });
const { browser, page } = await launch({ webgpu: false });
try {
  for (const workload of workloads.split(',')) {
    const n = workload === 'W2' ? Math.max(20, Math.round(steps / 10)) : Number(steps);
    const ratios = new Map(counts.map((c) => [c, []]));
    for (let round = 0; round < Number(rounds); round++) {
      let one;
      for (const threads of counts) {
        await page.goto(`${server.url}bench?workload=${workload}&backend=cpu&autostart=1&steps=${n}&test=500&threads=${threads}`);
        await page.waitForFunction(() => window.__labBench !== undefined, null, { timeout: 1_800_000, polling: 500 });
        const r = await page.evaluate(() => window.__labBench);
        if (r.error) throw new Error(`${workload} × ${threads}: ${r.error}`);
        one ??= r;
        const stray = Math.max(...r.losses.map((l, i) => Math.abs(l - one.losses[i])));
        const ratio = r.samplesPerSecSteady / one.samplesPerSecSteady;
        ratios.get(threads).push(ratio);
        console.log(`${workload} cores ${threads} (replicas ${r.replicas}, ${r.split ?? 'unsplit'}, ${r.exchange ?? 'alone'}): ${r.samplesPerSecSteady.toFixed(0)} samples/s, ` +
          `${ratio.toFixed(2)}× one core, losses within ${stray.toExponential(1)}, final ${r.finalLoss.toFixed(4)}`);
      }
    }
    if (Number(rounds) > 1) {
      for (const threads of counts.slice(1)) {
        const rs = ratios.get(threads);
        console.log(`${workload} cores ${threads}: median ${median(rs).toFixed(2)}× one core over ${rs.length} rounds (${rs.map((x) => x.toFixed(2)).join(', ')})`);
      }
    }
  }
} finally {
  await browser.close();
  await server.close();
}
