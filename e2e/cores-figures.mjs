// Prints the CPU path's speed on 1, 2 and all cores (the CPU team, app/src/cpu_team) for W1 and
// W2 in headless Chromium, run side by side, with each run's speed-up over one core and how far
// its losses stray from the one-core run's (not a test: `node e2e/cores-figures.mjs [steps]
// [W1,W2] [not-isolated] [rounds]` after `node scripts/build-app.mjs`; the page is cross-origin
// isolated, so the team shares memory, unless the third argument says otherwise and it exchanges
// messages). With `rounds` above 1 the counts take turns that many times and the median of each
// count's speed-up over the one-core run of its own round is printed last: on a shared machine
// whose cores change speed from second to second, turns compare like with like. Before each team
// run, the same page also times a plain arithmetic loop in one worker and then in as many workers
// as the team has threads, all at once: what the machine gave that many threads just then (on a
// virtual machine two threads may share one physical core, or its host), the ceiling any split
// step can reach there. The last lines print each count's median ceiling and speed-up over it.
import os from 'node:os';
import { serve, launch } from './harness.mjs';

const [steps = '300', workloads = 'W1,W2', isolation = 'isolated', rounds = '1'] = process.argv.slice(2);
const all = os.availableParallelism();
const counts = [...new Set([1, 2, all])];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Wall-clock seconds for `workers` workers that each run the same arithmetic loop, started together.
async function loopSeconds(page, workers) {
  return page.evaluate(async (k) => {
    const code = `onmessage = (e) => { let x = 0; for (let i = 0; i < e.data; i++) x = x * 0.999999 + 1e-9 * i; postMessage(x); };`;
    const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
    const pool = Array.from({ length: k }, () => new Worker(url));
    const warm = pool.map((w) => new Promise((done) => { w.onmessage = done; w.postMessage(1e6); }));
    await Promise.all(warm);
    const t0 = performance.now();
    await Promise.all(pool.map((w) => new Promise((done) => { w.onmessage = done; w.postMessage(4e8); })));
    const seconds = (performance.now() - t0) / 1000;
    pool.forEach((w) => w.terminate());
    URL.revokeObjectURL(url);
    return seconds;
  }, workers);
}

// How many loops' worth `threads` workers ran, side by side, in the time one ran alone.
async function ceiling(page, threads) {
  const alone = await loopSeconds(page, 1);
  const together = await loopSeconds(page, threads);
  return (threads * alone) / together;
}
const server = await serve(undefined, { isolated: isolation !== 'not-isolated' });
const { browser, page } = await launch({ webgpu: false });
try {
  for (const workload of workloads.split(',')) {
    const n = workload === 'W2' ? Math.max(20, Math.round(steps / 10)) : Number(steps);
    const ratios = new Map(counts.map((c) => [c, []]));
    const ceilings = new Map(counts.map((c) => [c, []]));
    for (let round = 0; round < Number(rounds); round++) {
      let one;
      for (const threads of counts) {
        await page.goto(`${server.url}bench`);
        const most = threads > 1 ? await ceiling(page, threads) : 1;
        await page.goto(`${server.url}bench?workload=${workload}&backend=cpu&autostart=1&steps=${n}&test=500&threads=${threads}`);
        await page.waitForFunction(() => window.__labBench !== undefined, null, { timeout: 1_800_000, polling: 500 });
        const r = await page.evaluate(() => window.__labBench);
        if (r.error) throw new Error(`${workload} × ${threads}: ${r.error}`);
        one ??= r;
        const stray = Math.max(...r.losses.map((l, i) => Math.abs(l - one.losses[i])));
        const ratio = r.samplesPerSecSteady / one.samplesPerSecSteady;
        ratios.get(threads).push(ratio);
        ceilings.get(threads).push(most);
        const room = threads > 1 ? ` (the machine's ceiling just before: ${most.toFixed(2)}×)` : '';
        console.log(`${workload} cores ${threads} (replicas ${r.replicas}, ${r.split ?? 'unsplit'}, ${r.exchange ?? 'alone'}): ${r.samplesPerSecSteady.toFixed(0)} samples/s, ` +
          `${ratio.toFixed(2)}× one core${room}, losses within ${stray.toExponential(1)}, final ${r.finalLoss.toFixed(4)}`);
      }
    }
    if (Number(rounds) > 1) {
      for (const threads of counts.slice(1)) {
        const rs = ratios.get(threads);
        const cs = ceilings.get(threads);
        const share = rs.map((x, i) => x / cs[i]);
        console.log(`${workload} cores ${threads}: median ${median(rs).toFixed(2)}× one core over ${rs.length} rounds (${rs.map((x) => x.toFixed(2)).join(', ')}); ` +
          `the machine's ceiling, median ${median(cs).toFixed(2)}× (${cs.map((x) => x.toFixed(2)).join(', ')}); speed-up over ceiling, median ${median(share).toFixed(2)}`);
      }
    }
  }
} finally {
  await browser.close();
  await server.close();
}
