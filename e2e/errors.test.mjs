// End-to-end: failures show the error banner and keep the page. A divergence stops training
// with the step it happened at; a model over the limits is refused before anything is
// allocated; a lost GPU device is replaced and training carries on from the last weights.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

test('a divergence stops training with the step in the banner', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    // Plain SGD at η = 10 on the regression plane overflows within a few steps.
    await page.goto(`${server.url}?dataset=plane&optimizer=sgd&lr=10&activation=relu&backend=cpu`);
    await page.locator(`${byId('train')}:not([disabled])`).waitFor({ timeout: 30_000 });
    await page.click(byId('train'));
    const banner = await until(async () => text(page, 'error'), 20_000, 'the banner');
    assert.match(banner, /training diverged at step \d+: the loss became NaN or infinite/);
    const step = Number(banner.match(/step (\d+)/)[1]);
    assert.equal(Number(await text(page, 'step')), step, 'the step readout stops where it diverged');
    assert.equal(await page.locator(byId('train')).isEnabled(), true, 'training stopped, the page works');
    await screenshot(page, 'error-diverged.png');
    assert.deepEqual(errors.filter((e) => !/WebGPU/.test(e)), [], 'no page errors');
  } finally {
    await browser.close();
  }
});

test('a model over the limits is refused with the banner, the page kept', async () => {
  for (const webgpu of [true, false]) {
    const { browser, page } = await launch({ webgpu });
    try {
      await page.goto(`${server.url}vision?train=500&epochs=1&webgpu=${webgpu}`);
      await page.fill(byId('vision-layers'), 'conv 256 3x3 p1, relu, dense 4096, relu, dense 10');
      await page.dispatchEvent(byId('vision-layers'), 'change');
      await page.click(byId('vision-run'));
      const banner = await until(async () => text(page, 'vision-error'), 60_000, 'the banner');
      console.log(webgpu ? 'WebGPU:' : 'CPU path:', banner);
      assert.match(banner, webgpu ? /needs [\d.]+ MB but this GPU allows [\d.]+ MB/ : /needs \d+ MB .* but the CPU path allows 512 MB/);
      assert.equal(await page.locator(byId('vision-run')).isEnabled(), true, 'ready for a smaller model');
      if (webgpu) await screenshot(page, 'error-too-large.png');
    } finally {
      await browser.close();
    }
  }
});

test('a lost GPU device is replaced and training carries on', async () => {
  const { browser, page } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}?backend=webgpu`);
    await page.locator(`${byId('train')}:not([disabled])`).waitFor({ timeout: 60_000 });
    await page.click(byId('train'));
    await until(async () => Number(await text(page, 'step')) > 100, 60_000, '100 steps');
    await page.evaluate(() => window.__labLoseGpu());
    // A readback may fail first ("readback failed"); the recovery's message replaces it.
    const banner = await until(async () => {
      const t = await text(page, 'error');
      return /device was lost/.test(t) && t;
    }, 30_000, 'the device-lost banner');
    console.log(banner);
    assert.match(banner, /GPU device was lost .*made a new one and carries on from step \d+/);
    const resumed = Number(banner.match(/from step (\d+)/)[1]);
    await until(async () => Number(await text(page, 'step')) > resumed + 50, 60_000, 'training going on');
    await screenshot(page, 'error-device-lost.png');
  } finally {
    await browser.close();
  }
});

test('a bad value in a locked link is named even with the share bar hidden (every lesson hides it)', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}precision?share_hide=true&lr=NaN`);
    await page.locator(byId('prec-run')).waitFor({ timeout: 30_000 });
    assert.equal(await page.locator(byId('prec-share')).isVisible(), false, 'the bar is hidden');
    const notices = page.locator(byId('prec-notices'));
    await until(async () => (await notices.isVisible()) && /lr=NaN/.test(await notices.textContent()), 10_000, 'the notice');
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});
