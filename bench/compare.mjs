// The lab against its peers on W1, W2 and T1, side by side in one headless Chromium session on this
// machine: the lab's /bench page (WebGPU and the CPU path) and bench/peers/peers.html (jax-js 0.1
// on WebGPU and Wasm, each with its losses queued and synced every step; TensorFlow.js 4.22 on
// WebGPU, WebGL and wasm; ConvNetJS 0.3). The pages are cross-origin isolated, so jax-js's Wasm
// runs multi-threaded. Every peer starts from the lab's initial weights (`lab export-step
// --workload W`) on the same batches in the same order with the same learning rate, so its loss
// curve must be the lab's: prints one JSON line per run, then a table of samples/s, each run's
// final loss, how far each curve strays from the lab's CPU path's, and the ratios the targets ask
// for. T1, the attention lab's transformer, is compared with jax-js alone (its file, `lab
// export-step --workload T1`, holds the batches too). Run through scripts/compare-peers.sh.
//   node bench/compare.mjs [steps] [W1,W2,T1]
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, root } from '../e2e/harness.mjs';

const [stepsArg, workloadsArg = 'W1,W2,T1'] = process.argv.slice(2);
// T1 (the attention lab's transformer) is written for jax-js only.
const transformer = (w) => w === 'T1';
const steps = stepsArg ? `&steps=${stepsArg}` : '';

// One site: the built app (dist/) with the peers' page beside it under /peers/.
const site = path.join(root, 'target', 'peers-site');
fs.rmSync(site, { recursive: true, force: true });
fs.mkdirSync(site, { recursive: true });
for (const entry of fs.readdirSync(path.join(root, 'dist'))) {
  fs.symlinkSync(path.join(root, 'dist', entry), path.join(site, entry));
}
fs.symlinkSync(path.join(root, 'bench', 'peers'), path.join(site, 'peers'));
// The lab's initial weights for each workload (step 1 written whole by the lab's command line),
// which every peer loads, so that all start where the lab does and the curves compare step by step.
const lab = path.join(process.env.CARGO_TARGET_DIR || path.join(root, 'target'), 'release', 'lab');
for (const w of workloadsArg.split(',')) {
  // T1's file also holds its batches: as many as the run's steps.
  const batches = transformer(w) && stepsArg ? ['--batches', stepsArg] : [];
  execFileSync(lab, ['export-step', '--workload', w, '--backend', 'cpu', ...batches, '--out', path.join(site, `init-${w}.json`)], { cwd: root, stdio: 'inherit' });
}

const server = await serve(site, { isolated: true });
// SwiftShader backs WebGL only with this flag in current Chromium.
const { browser, page } = await launch({ webgpu: true, extraArgs: ['--enable-unsafe-swiftshader'] });
const results = [];
const init = (w) => `&init=../init-${w}.json`;
async function run(url, global, label) {
  await page.goto(url);
  await page.waitForFunction((g) => window[g] !== undefined, global, { timeout: 1_800_000, polling: 1000 });
  const r = await page.evaluate((g) => window[g], global);
  r.label = label;
  delete r.kernels;
  console.log(JSON.stringify({ ...r, losses: r.losses?.length }));
  results.push(r);
}
try {
  for (const w of workloadsArg.split(',')) {
    await run(`${server.url}bench?workload=${w}&backend=webgpu&autostart=1${steps}`, '__labBench', 'lab WebGPU');
    await run(`${server.url}bench?workload=${w}&backend=cpu&autostart=1${steps}`, '__labBench', 'lab CPU path');
    for (const b of ['webgpu', 'wasm']) {
      for (const sync of [0, 1]) {
        await run(`${server.url}peers/peers.html?lib=jaxjs&backend=${b}&sync=${sync}&workload=${w}${steps}${init(w)}`, '__peerBench', `jax-js ${b}${sync ? ' sync' : ''}`);
      }
    }
    if (transformer(w)) continue;
    for (const b of ['webgpu', 'webgl', 'wasm']) {
      await run(`${server.url}peers/peers.html?lib=tfjs&backend=${b}&workload=${w}${steps}${init(w)}`, '__peerBench', `TF.js ${b}`);
    }
    await run(`${server.url}peers/peers.html?lib=convnetjs&workload=${w}${steps}${init(w)}`, '__peerBench', 'ConvNetJS');
  }
} finally {
  await browser.close();
  await server.close();
}

for (const w of workloadsArg.split(',')) {
  const rows = results.filter((r) => r.workload === w);
  const rate = (label) => rows.find((r) => r.label === label && !r.error)?.samplesPerSecSteady;
  const best = (...labels) => Math.max(0, ...labels.map(rate).filter(Boolean));
  console.log(`\n${w}: training samples/s (steady), final loss`);
  for (const r of rows) {
    const loss = r.finalLoss < 0.01 ? r.finalLoss.toExponential(2) : r.finalLoss.toFixed(3);
    const figures = () => `${r.samplesPerSecSteady.toFixed(0).padStart(7)}   loss ${loss}`;
    console.log(`  ${r.label.padEnd(17)} ${r.error ? `error: ${r.error}` : figures()}`);
  }
  const ratio = (a, b) => (a && b ? `${(a / b).toFixed(1)}×` : 'n/a');
  const jaxGpu = best('jax-js webgpu', 'jax-js webgpu sync');
  const cpuPeer = best('jax-js wasm', 'jax-js wasm sync', 'TF.js wasm', 'ConvNetJS');
  console.log(`  lab WebGPU vs jax-js WebGPU (its better mode): ${ratio(rate('lab WebGPU'), jaxGpu)} (target 2×)`);
  if (!transformer(w)) console.log(`  lab WebGPU vs TF.js WebGPU: ${ratio(rate('lab WebGPU'), rate('TF.js webgpu'))} (target 5×)`);
  console.log(`  lab CPU path vs fastest CPU peer: ${ratio(rate('lab CPU path'), cpuPeer)} (target 2×)`);
  // Every run started from the lab's weights on the same batches: its curve is the lab's CPU
  // path's to float rounding until a rounding difference flips a ReLU or a max-pool choice, after
  // which the runs take slightly different steps (the lab's own split and unsplit W2 part at step
  // 22). So: how close the first 10 steps are, where the curves first part by over 1e-4, and the
  // largest gap over the run.
  const reference = rows.find((r) => r.label === 'lab CPU path' && !r.error);
  console.log(`  loss curves against the lab's CPU path: first 10 steps, first step apart by > 1e-4, largest gap`);
  for (const r of rows.filter((r) => !r.error && r !== reference && reference)) {
    const gaps = r.losses.map((l, i) => Math.abs(l - reference.losses[i]));
    const early = Math.max(...gaps.slice(0, 10));
    const parts = gaps.findIndex((g) => g > 1e-4);
    console.log(`    ${r.label.padEnd(18)} ${early.toExponential(1)}  ${parts < 0 ? 'never' : `step ${parts + 1}`}  ` +
      `${Math.max(...gaps).toExponential(1)}  ${early < 1e-5 ? 'agree' : 'DIFFER'}`);
  }
}
