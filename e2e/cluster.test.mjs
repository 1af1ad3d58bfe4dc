// End-to-end: the cluster lab trains 8 simulated workers on MNIST with ring, tree and parameter
// server, animates the ring step by step, draws the speed-up curves and the time-to-accuracy
// study, compares a compressed and an asynchronous run with their uncompressed synchronous twins,
// exports and reloads its results, and refuses bad input while keeping what it shows.
import fs from 'node:fs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until, logScaleRedraws, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

async function fill(page, id, value) {
  await page.fill(byId(id), value);
  await page.dispatchEvent(byId(id), 'change');
}

async function finish(page, what) {
  await until(async () => /^(done|failed|cancelled)/.test(await text(page, 'cl-status')), 600_000, what);
  assert.equal(await text(page, 'cl-status'), 'done', what);
}

const rows = async (page) => (await page.locator(`${byId('cl-table')} tr`).count()) - 1;
// The results table as {run, updates, target, bytes, saved, staleness, test} per row.
const table = (page) => page.$$eval(`${'[data-testid="cl-table"]'} tr`, (trs) => trs.slice(1).map((tr) => {
  const c = [...tr.querySelectorAll('td')].map((td) => td.textContent.trim());
  return { run: c[0], updates: Number(c[1]), target: c[2], bytes: c[3], saved: c[4], staleness: c[5], test: c[6] };
}));

test('cluster lab: 8 workers on MNIST, ring vs tree vs parameter server, animation, curves, study, compression, async', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}cluster`);
    // The ring's animation: 2(p − 1) = 14 steps for 8 workers.
    assert.match(await text(page, 'cl-animation-caption'), /8 workers: 14 steps/);
    for (let i = 0; i < 3; i++) await page.click(byId('cl-step'));
    assert.match(await text(page, 'cl-animation-caption'), /^step 3 of 14: 8 messages/);
    await page.selectOption(byId('cl-speed'), '150');
    await page.click(byId('cl-play'));
    await until(async () => /^step 14 of 14.*sum of all gradients/.test(await text(page, 'cl-animation-caption')), 20_000, 'the animation');
    await page.selectOption(byId('cl-animate'), '2');
    await page.click(byId('cl-step'));
    assert.match(await text(page, 'cl-animation-caption'), /^step 1 of 2: 8 messages/, 'parameter server: push, then pull');

    await fill(page, 'cl-target', '0.85');
    await fill(page, 'cl-steps', '400');
    await page.click(byId('cl-train'));
    await finish(page, 'ring, tree, parameter server');
    assert.equal(await rows(page), 3);
    const first = await table(page);
    console.log(first);
    assert.deepEqual(first.map((r) => r.run), ['8 × ring', '8 × binomial tree', '8 × parameter server']);
    assert.ok(first.every((r) => /^\d+ updates, /.test(r.target)), 'each reaches the target');
    await screenshot(page, 'cluster-train.png');
    await logScaleRedraws(page, 'cl-loss', 'cl-log');

    await fill(page, 'cl-study', '1, 2, 8');
    await page.click(byId('cl-run-study'));
    await finish(page, 'the study');
    assert.equal(await rows(page), 3 + 9);
    await page.locator(byId('cl-tta')).scrollIntoViewIfNeeded();
    await screenshot(page, 'cluster-study.png');

    const [csv] = await Promise.all([page.waitForEvent('download'), page.click(byId('cl-export-csv'))]);
    const lines = fs.readFileSync(await downloaded(csv), 'utf8').trim().split('\n');
    assert.match(lines[0], /^label,workers,algorithm,consistency,compression/);
    assert.equal(lines.length, 1 + 12);
    const [rec] = await Promise.all([page.waitForEvent('download'), page.click(byId('cl-export-record'))]);
    const record = fs.readFileSync(await downloaded(rec), 'utf8');
    assert.equal(JSON.parse(record).runs.length, 12);
    const [curve] = await Promise.all([page.waitForEvent('download'), page.click(byId('cl-export-curve'))]);
    assert.equal(fs.readFileSync(await downloaded(curve), 'utf8').trim().split('\n').length, 1 + 3 * 7);

    // Compression: top-k 5 % with error feedback beside the uncompressed twin. Sparse vectors are
    // allgathered: 8 · 7 · 8 · 5 % of n bytes against the dense ring's 2 · 7 · 4n, 60 % saved.
    await page.click(byId('cl-alg-1'));
    await page.click(byId('cl-alg-2'));
    await page.selectOption(byId('cl-compression'), '1');
    assert.match(await text(page, 'cl-compression-note'), /contractive form is sent .*allgather them: .* against .* for the dense ring/);
    await page.click(byId('cl-train'));
    await finish(page, 'top-k');
    const compressed = (await table(page)).filter((r) => !r.run.startsWith('study'));
    console.log(compressed);
    assert.deepEqual(compressed.map((r) => r.run), ['8 × ring · top-k 5%', '8 × ring · sync, uncompressed']);
    assert.ok(parseFloat(compressed[0].saved) >= 55, 'top-k 5 % saves most bytes');
    assert.equal(compressed[1].saved, '0 %');
    // 4-bit at 64 workers: the allgather sends more than the dense ring (the lesson), and error
    // feedback is not offered for an unbiased multi-bit quantizer.
    await page.selectOption(byId('cl-compression'), '3');
    await fill(page, 'cl-workers', '64');
    assert.match(await text(page, 'cl-compression-note'), /without error feedback.*on the wire per step, more than .* for the dense ring/);
    assert.equal(await page.locator(byId('cl-ef')).count(), 0, 'no error feedback for 4-bit');
    // Strong scaling refuses a global batch smaller than the workers.
    await fill(page, 'cl-batch', '32');
    await page.click(byId('cl-train'));
    assert.match(await text(page, 'cl-error'), /a global batch of 32 cannot be split over 64 workers/);
    await fill(page, 'cl-batch', '64');
    await fill(page, 'cl-workers', '8');

    // Asynchronous SGD with a straggler: staleness shows, and the timeline draws the trace.
    await page.selectOption(byId('cl-compression'), '0');
    await page.click(byId('cl-async'));
    await fill(page, 'cl-straggler', '4');
    // Slow workers (0.1 GFLOP/s), so that compute, not the server's shared link, sets the pace and
    // the straggler's gradients come back stale (at 5 GFLOP/s the link is saturated).
    await fill(page, 'cl-gflops', '0.1');
    await page.click(byId('cl-train'));
    await finish(page, 'async');
    const asyncRuns = (await table(page)).filter((r) => !r.run.startsWith('study'));
    console.log(asyncRuns);
    assert.equal(asyncRuns[0].run, '8 × async parameter server');
    const maxStale = Number(asyncRuns[0].staleness.split('/')[1]);
    assert.ok(maxStale > 7, `staleness beyond p − 1 with a straggler: ${asyncRuns[0].staleness}`);
    await page.locator(byId('cl-timeline')).scrollIntoViewIfNeeded();
    await screenshot(page, 'cluster-async.png');

    // Reload on a fresh page; a foreign file and bad numbers are refused, the results kept.
    await page.goto(`${server.url}cluster`);
    const load = (name, body) => page.locator(byId('cl-load')).setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(body) });
    await load('cluster-results.json', record);
    await until(async () => /loaded cluster-results.json: 12 runs/.test(await text(page, 'cl-status')), 10_000, 'the reload');
    assert.equal(await rows(page), 12);
    await load('other.json', '{"format":"something else"}');
    await until(async () => /other.json: .*kept/.test(await text(page, 'cl-error')), 10_000, 'the refusal');
    assert.equal(await rows(page), 12);
    await fill(page, 'cl-workers', '100');
    assert.match(await text(page, 'cl-error'), /Workers \(1–64\): '100' is not valid/);
    await page.click(byId('cl-alg-0'));
    await page.click(byId('cl-alg-1'));
    await page.click(byId('cl-alg-2'));
    await page.click(byId('cl-train'));
    assert.match(await text(page, 'cl-error'), /choose at least one algorithm/);
    assert.equal(await rows(page), 12);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
