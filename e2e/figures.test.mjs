// End-to-end: every chart on every lab has "PNG" and "CSV" buttons; the PNG is an image of the
// canvas, the CSV the numbers it draws (a header, then rows); a chart not drawn yet says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { serve, launch, byId, text, until, ROUTES as LABS, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });


async function download(page, id) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(byId(id))]);
  return fs.readFileSync(await downloaded(d));
}

test('every chart of every lab offers PNG and CSV', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    for (const lab of LABS) {
      await page.goto(`${server.url}${lab}`);
      const ids = await until(async () => {
        const list = await page.$$eval('figure canvas[data-testid]', (cs) => cs.map((c) => c.dataset.testid));
        const tools = await page.$$eval('[data-figure-tools]', (ts) => ts.length);
        return list.length > 0 && tools === list.length && list;
      }, 10_000, `${lab || 'playground'}: a toolbar under every chart`);
      console.log(`${lab || 'playground'}: ${ids.length} charts: ${ids.join(' ')}`);
      const shown = await page.$$eval('figure canvas[data-testid]', (cs) => cs.filter((c) => c.offsetParent !== null).map((c) => c.dataset.testid));
      for (const id of shown) {
        assert.equal(await page.locator(byId(`${id}-png`)).isVisible(), true, `${id}: PNG button`);
        assert.equal(await page.locator(byId(`${id}-csv`)).isVisible(), true, `${id}: CSV button`);
      }
    }

    // Charts drawn at once: their files carry the picture and the numbers.
    await page.goto(`${server.url}optimizers`);
    await page.waitForTimeout(2500);
    const png = await download(page, 'opt-contour-png');
    assert.deepEqual([...png.subarray(1, 4)].map((b) => String.fromCharCode(b)).join(''), 'PNG');
    const paths = (await download(page, 'opt-contour-csv')).toString().trim().split('\n');
    assert.equal(paths[0], 'optimizer,step,x,y');
    assert.equal(paths.length - 1, 3 * 101, 'three racers, 100 steps and the start');
    // One cell per column: the quadratic's start (−1.8, 1.2) as x and y.
    assert.equal(paths[1], 'SGD,0,-1.8,1.2');
    const losses = (await download(page, 'opt-loss-chart-csv')).toString().trim().split('\n');
    assert.match(losses[1], /^SGD,0,[\d.]+$/);

    await page.goto(`${server.url}cluster`);
    await page.waitForTimeout(1500);
    const speedup = (await download(page, 'cl-speedup-csv')).toString().trim().split('\n');
    assert.equal(speedup[0], 'algorithm,workers,seconds_per_iteration,samples,speedup,efficiency,bytes');
    assert.equal(speedup.length - 1, 3 * 7, 'three algorithms × seven worker counts');
    assert.ok(speedup.some((r) => /^ring,1,.*,1,1,/.test(r)), 'one worker: speed-up 1, efficiency 1');
    const timeline = (await download(page, 'cl-timeline-csv')).toString().trim().split('\n');
    assert.equal(timeline[0], 'worker,phase,start_s,end_s,bucket');

    const schedule = (await download(page, 'cl-animation-csv')).toString().trim().split('\n');
    assert.equal(schedule[0], 'step,from,to,first_value,values,operation');
    assert.equal(schedule.length - 1, 2 * 7 * 8, "8-worker ring: 14 steps of 8 messages");

    // A chart not drawn yet: no file, a message.
    await page.click(byId('cl-loss-csv'));
    await until(async () => /nothing drawn yet/.test(await text(page, 'cl-error')), 5_000, 'the message');

    // The playground after a few steps: the boundary's grid and the loss per step.
    await page.goto(`${server.url}?backend=cpu`);
    await page.locator(`${byId('step-once')}:not([disabled])`).waitFor({ timeout: 30_000 });
    for (let i = 0; i < 3; i++) await page.click(byId('step-once'));
    await until(async () => Number(await text(page, 'step')) >= 3, 10_000, 'three steps');
    await page.waitForTimeout(500);
    const heat = (await download(page, 'heatmap-csv')).toString().trim().split('\n');
    assert.equal(heat[0], 'x,y,output_0,output_1');
    assert.equal(heat.length - 1, 48 * 48, 'one row per grid point');
    const loss = (await download(page, 'loss-chart-csv')).toString().trim().split('\n');
    assert.equal(loss[0], 'step,train_loss,test_loss');
    assert.ok(loss.length - 1 >= 3, `${loss.length - 1} steps`);
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});
