// End-to-end: the playground's state lives in the URL (loads, survives a reload, follows the
// controls), hidden controls are absent, a malformed link shows a notice instead of breaking the
// page, a CSV with a bad line is reported by line and keeps the data, exports download, and the
// frame rate while training is measured. Screenshots land in target/e2e/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { serve, launch, byId, text, screenshot, until, openAdvanced, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

const num = async (page, id) => Number.parseFloat(await text(page, id));
const ready = (page) => until(async () => !(await text(page, 'backend')).startsWith('Looking'), 60_000, 'WebGPU detection');

test('a link with state loads it, trains, and survives a reload; hidden controls are absent', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    const query = 'dataset=circle&classes=3&hidden=6,6&activation=relu&lr=0.1&test=0.4&show_test=true&seed=7&features=x,y,x_squared,y_squared&lr_hide=true&backend=webgpu';
    await page.goto(`${server.url}?${query}`);
    await ready(page);
    assert.equal(await page.locator(byId('dataset')).inputValue(), 'circle');
    assert.equal(await page.locator(byId('classes')).inputValue(), '3');
    assert.equal(await text(page, 'layers'), '2 hidden layers');
    assert.equal(await page.locator(byId('neurons-1')).inputValue(), '6');
    assert.equal(await page.locator(byId('activation')).inputValue(), 'relu');
    assert.ok(await page.locator(byId('feature-x_squared')).isChecked());
    assert.ok(!(await page.locator(byId('feature-sin_x')).isChecked()));
    assert.equal(await page.locator(byId('learning-rate')).isVisible(), false, 'lr_hide hides the learning rate');
    assert.equal(await page.locator(byId('url-notice')).count(), 0);

    await page.click(byId('train'));
    const first = await until(async () => ((await num(page, 'step')) > 0 ? num(page, 'loss-start') : null), 60_000, 'a first step');
    const { l: last } = await until(async () => {
      const l = await num(page, 'loss');
      // Wrapped: a loss shown as 0.0000 is falsy, and `until` waits for a truthy value.
      return l < 0.3 * first ? { l } : null;
    }, 120_000, `the loss to fall below 30% of ${first}`);
    assert.match(await text(page, 'device'), /WebGPU/);
    assert.ok(Number.isFinite(await num(page, 'test-loss')), 'the test loss is shown');
    console.log(`3-class circle from the URL: loss ${first} -> ${last}, test accuracy ${await text(page, 'test-accuracy')}`);

    // Frame rate while training (a measurement, not an assertion: machines here are shared).
    const fps = await page.evaluate(() => new Promise((done) => {
      let frames = 0;
      const t0 = performance.now();
      const tick = () => { frames++; if (performance.now() - t0 < 3000) requestAnimationFrame(tick); else done(frames / ((performance.now() - t0) / 1000)); };
      requestAnimationFrame(tick);
    }));
    console.log(`frame rate while a 2-6-6-3 network trains on WebGPU: ${fps.toFixed(1)} frames/s`);
    await page.click(byId('pause'));
    // Hover the first neuron of the first hidden layer: the diagram enlarges it.
    const box = await page.locator(byId('network')).boundingBox();
    await page.mouse.move(box.x + 157, box.y + 119);
    await page.waitForTimeout(300);
    await screenshot(page, 'playground-from-url.png');

    // A control changes the URL; a reload restores it.
    await page.click(byId('add-layer'));
    await until(async () => page.url().includes('hidden=6%2C6%2C6') || page.url().includes('hidden=6,6,6'), 5_000, 'the URL to follow');
    assert.ok(page.url().includes('lr_hide=true'));
    await page.reload();
    await ready(page);
    assert.equal(await text(page, 'layers'), '3 hidden layers');
    assert.equal(await page.locator(byId('dataset')).inputValue(), 'circle');
    assert.equal(await page.locator(byId('learning-rate')).isVisible(), false);
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});

test('a malformed link shows a notice and the page still trains', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}?dataset=banana&lr=abc&hidden=999&noise=-3&mystery=1`);
    await ready(page);
    const notice = await text(page, 'url-notice');
    for (const part of ['dataset=banana', 'lr=abc', 'hidden=999', 'noise=-3', "'mystery'"]) {
      assert.ok(notice.includes(part), `notice mentions ${part}: ${notice}`);
    }
    assert.equal(await page.locator(byId('neurons-0')).inputValue(), '64', 'clamped to 64 neurons');
    await page.click(byId('train'));
    await until(async () => (await num(page, 'step')) > 20, 60_000, 'training to run');
    await screenshot(page, 'playground-bad-link.png');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});

test('a CSV with a bad line is reported by line and keeps the data; exports download', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(server.url);
    await ready(page);
    const upload = (name, body) => page.locator(byId('upload')).setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(body) });
    await upload('bad.csv', 'x,y,label\n0.1,0.2,0\n0.3,oops,1\n');
    const error = await until(async () => text(page, 'error'), 10_000, 'the error');
    assert.match(error, /bad\.csv: line 3: x and y must be numbers/);
    assert.equal(await page.locator(byId('forget-points')).isVisible(), false, 'the generated data is kept');

    const rows = ['x,y,label'];
    for (let i = 0; i < 40; i++) rows.push(`${(i % 2 ? 0.5 : -0.5) + (i % 7) * 0.02},${(i % 5) * 0.1 - 0.2},${i % 2}`);
    await upload('good.csv', rows.join('\n'));
    await page.locator(byId('forget-points')).waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await text(page, 'error'), '', 'a good file clears the error');
    await page.click(byId('step-once'));
    await until(async () => (await num(page, 'step')) === 1, 30_000, 'one step');
    // A click on the plot adds a point of the chosen class (and restarts the model).
    await openAdvanced(page);
    await page.selectOption(byId('add-class'), '1');
    await page.locator(byId('heatmap')).click({ position: { x: 40, y: 40 } });
    await until(async () => (await text(page, 'step')) === '0', 10_000, 'a fresh model after the new point');
    await page.click(byId('step-once'));
    await until(async () => (await num(page, 'step')) === 1, 30_000, 'one step');

    for (const [id, pattern] of [['export-loss', /^step,train_loss,test_loss\n1,/], ['export-weights', /"format":"training-lab model v1"/]]) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(byId(id))]);
      const body = fs.readFileSync(await downloaded(download), 'utf8');
      assert.match(body, pattern, `${id}: ${body.slice(0, 80)}`);
    }
    const [png] = await Promise.all([page.waitForEvent('download'), page.click(byId('export-heatmap'))]);
    assert.equal(fs.readFileSync(await downloaded(png)).subarray(1, 4).toString(), 'PNG');
    await screenshot(page, 'playground-own-points.png');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});

test('live: frame rate and click latency while a 2-8-8-2 network trains on WebGPU; regression sets train', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}?hidden=8,8&backend=webgpu`);
    await ready(page);
    await page.click(byId('train'));
    await until(async () => (await num(page, 'step')) > 50, 60_000, 'training to run');
    const fps = await page.evaluate(() => new Promise((done) => {
      let frames = 0;
      const t0 = performance.now();
      const tick = () => { frames++; if (performance.now() - t0 < 3000) requestAnimationFrame(tick); else done(frames / ((performance.now() - t0) / 1000)); };
      requestAnimationFrame(tick);
    }));
    // Export while training: the session answers between two chunks (it used to do nothing).
    const [weights] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), page.click(byId('export-weights'))]);
    const saved = JSON.parse(fs.readFileSync(await downloaded(weights), 'utf8'));
    assert.equal(saved.model.format, 'training-lab model v1');
    assert.ok(saved.model.step > 50, `the weights of the running model (step ${saved.model.step})`);
    assert.equal(await page.locator(byId('pause')).isEnabled(), true, 'still training after the export');
    // Input latency: from a click on Pause to the page showing it paused.
    const latency = await page.evaluate(() => new Promise((done) => {
      const pause = document.querySelector('[data-testid="pause"]');
      const t0 = performance.now();
      pause.click();
      const check = () => (pause.disabled ? done(performance.now() - t0) : requestAnimationFrame(check));
      check();
    }));
    console.log(`2-8-8-2 on WebGPU: ${fps.toFixed(1)} frames/s while training, Pause answered in ${latency.toFixed(0)} ms`);
    assert.match(await text(page, 'device'), /WebGPU/);

    for (const set of ['plane', 'reg_gaussian']) {
      // On the CPU path at full speed: that these sets train is the claim, not the device.
      await page.goto(`${server.url}?dataset=${set}&hidden=8,8&activation=tanh&backend=cpu&speed=max`);
      await ready(page);
      await page.click(byId('train'));
      const first = await until(async () => ((await num(page, 'step')) > 0 ? num(page, 'loss-start') : null), 60_000, 'a first step');
      const { l: last } = await until(async () => {
        const l = await num(page, 'loss');
        // Wrapped: a loss shown as 0.0000 is falsy, and `until` waits for a truthy value.
        return l < 0.5 * first ? { l } : null;
      }, 120_000, `the ${set} loss to halve from ${first}`);
      console.log(`${set}: loss ${first} -> ${last}, test loss ${await text(page, 'test-loss')}`);
      await page.click(byId('pause'));
      await screenshot(page, `playground-${set}.png`);
    }
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});

test('mid-run changes: the learning rate and batch apply to the running model, the data resets it; the default speed is watchable', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}?backend=cpu`);
    await ready(page);
    assert.equal(await page.locator(byId('speed-choice')).inputValue(), '5', 'watchable by default');
    await page.click(byId('train'));
    await until(async () => (await num(page, 'step')) > 200, 60_000, '200 steps');
    // At 5 steps per frame (60 frames/s at most) the rate stays a class can watch.
    const rate = await until(async () => { const r = await num(page, 'speed'); return Number.isFinite(r) && r > 0 ? r : null; }, 10_000, 'a rate');
    assert.ok(rate <= 5 * 61, `at most 5 steps a frame: ${rate} steps/s`);
    const before = await num(page, 'step');
    await page.selectOption(byId('learning-rate'), '0.1');
    await page.selectOption(byId('batch'), '32');
    await until(async () => /applied to the running model at step \d+/.test(await text(page, 'applied')), 20_000, 'the change applied');
    assert.ok((await num(page, 'step')) >= before, 'the step count carries on');
    assert.equal(await page.locator(byId('train')).isDisabled(), true, 'still training');
    await until(async () => (await num(page, 'step')) > before + 50, 30_000, 'training goes on');
    // A change of the data starts a fresh model.
    await page.selectOption(byId('dataset'), 'xor');
    await until(async () => (await text(page, 'step')) === '0', 20_000, 'a fresh model');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});
