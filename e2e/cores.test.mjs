// End-to-end: the CPU path splits each step over Web Workers (app/src/cpu_team) and trains the
// same run as one core does (the mean of equal shares' gradients is the batch's gradient; split
// by hidden units, the logits are the sum of the shards' parts), in a
// cross-origin isolated page and in one that is not (an embed in a course page that sends no
// COOP/COEP headers); the vision lab says how many cores its CPU run uses. Speed is printed, not
// asserted (`node e2e/cores-figures.mjs` measures it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, until } from './harness.mjs';

async function bench(page, url, query) {
  await page.goto(`${url}bench?${query}&backend=cpu&autostart=1&test=200`);
  await page.waitForFunction(() => window.__labBench !== undefined, null, { timeout: 300_000, polling: 500 });
  const r = await page.evaluate(() => window.__labBench);
  assert.equal(r.error, undefined, r.error);
  return r;
}

for (const isolated of [true, false]) {
  test(`a step split over two cores equals the one-core step (${isolated ? '' : 'not '}cross-origin isolated)`, async () => {
    const server = await serve(undefined, { isolated });
    const { browser, page, errors } = await launch({ webgpu: false });
    try {
      for (const [workload, steps] of [['W1', 30], ['W2', 6]]) {
        const one = await bench(page, server.url, `workload=${workload}&steps=${steps}&threads=1`);
        const two = await bench(page, server.url, `workload=${workload}&steps=${steps}&threads=2`);
        assert.equal(await page.evaluate(() => crossOriginIsolated), isolated);
        assert.equal(one.replicas, 1);
        assert.equal(two.replicas, 2, `${workload}: split over two replicas`);
        // Shared memory where the page may share it, messages where it may not.
        assert.equal(two.exchange, isolated ? 'shared memory' : 'messages');
        // W1 (one hidden layer, plain SGD) splits by hidden units where memory is shared: only
        // the logits travel, which two message round trips a step would not pay for.
        assert.equal(two.split, isolated && workload === 'W1' ? 'hidden units' : 'batch rows');
        assert.equal(two.losses.length, steps);
        two.losses.forEach((l, i) => assert.ok(Math.abs(l - one.losses[i]) <= 1e-5 * (1 + Math.abs(one.losses[i])),
          `${workload} step ${i + 1}: ${l} on two cores vs ${one.losses[i]} on one`));
        console.log(`${workload}: one core ${one.samplesPerSecSteady.toFixed(0)} samples/s, two ${two.samplesPerSecSteady.toFixed(0)} ` +
          `(${(two.samplesPerSecSteady / one.samplesPerSecSteady).toFixed(2)}×)`);
      }
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await server.close();
    }
  });
}

test('the vision lab says how its CPU run uses the cores', async () => {
  const server = await serve();
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}vision?train=2000&epochs=1`);
    await page.click(byId('vision-run'));
    await until(async () => (await page.evaluate(() => window.__labVision?.done)) === true, 300_000, 'training');
    const figures = await page.evaluate(() => window.__labVision);
    // Two cores here: the team is tried, then kept or dropped by its own timing.
    assert.match(figures.cores, /^(2 cores \(\d+\.\d× one core\)|1 core \(splitting over 2 was slower for this model\))$/);
    assert.match(await page.locator(byId('vision-backend-reason')).textContent(), /cores?/);
    console.log(`vision: ${figures.cores}`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});
