// End-to-end: the landing page lists every lab; the example tutorial embeds three labs through
// public/embed.js (no shell chrome, frames sized to their content, locked controls hidden, no
// notices for the embedding keys); the host starts the playground by postMessage and receives its
// metrics; a frame whose allow-list does not hold the host's origin ignores it, and malformed
// messages break nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until, LABS } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

test('landing page: every lab in two sentences with its link', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}labs`);
    await page.locator(byId('home')).waitFor();
    assert.equal(await page.locator(`${byId('home')} article`).count(), LABS.length);
    for (const { title } of LABS) {
      assert.equal(await page.locator(byId(`home-${title}`)).count(), 1, title);
    }
    await page.click(byId('home-Vision'));
    await page.waitForURL(/\/vision$/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('tutorial: three embedded labs, sized, locked, driven by postMessage; foreign origins ignored', async () => {
  const { browser, page, errors } = await launch({ webgpu: true });
  try {
    await page.goto(`${server.url}tutorial.html`);
    await page.evaluate(() => {
      window.metrics = [];
      document.querySelector('#lab-playground').addEventListener('lab-metrics', (e) => window.metrics.push(e.detail));
    });
    for (const id of ['lab-playground', 'lab-optimizers', 'lab-landscape']) {
      const frame = page.frameLocator(`#${id} iframe`);
      await frame.locator('main.lab').first().waitFor({ timeout: 60_000 });
      assert.equal(await frame.locator('header.top').first().isVisible(), false, `${id}: no shell chrome`);
      await until(async () => (await page.locator(`#${id} iframe`).evaluate((f) => f.getBoundingClientRect().height)) > 330, 20_000, `${id} sized to its content`);
    }
    const pg = page.frameLocator('#lab-playground iframe');
    assert.equal(await pg.locator(byId('url-notice')).count(), 0, `no notice: ${await pg.locator(byId('url-notice')).allTextContents()}`);
    assert.equal(await pg.locator(byId('dataset')).isVisible(), false, 'locked: the data set is hidden');
    assert.equal(await pg.locator(byId('step')).textContent(), '0');
    const opt = page.frameLocator('#lab-optimizers iframe');
    await until(async () => (await opt.locator(byId('opt-surface')).isVisible()) === false, 10_000, 'optimizers locked: no surface choice');
    assert.match(await opt.locator(byId('opt-theory')).textContent(), /0\.8182|0\.9802/, 'the κ = 100 ravine');

    await page.evaluate(() => window.TrainingLab.send(document.querySelector('#lab-playground'), { type: 'lab-start' }));
    await until(async () => Number(await pg.locator(byId('step')).textContent()) > 20, 60_000, 'training started by the host');
    // Metrics go out every 300 ms when they change: wait for one sent after training began.
    await until(async () => page.evaluate(() => window.metrics.some((m) => Number(m.readouts.Step) > 0)), 10_000, 'metrics with steps to the host');
    const last = await page.evaluate(() => window.metrics.filter((m) => Number(m.readouts.Step) > 0).pop());
    assert.equal(last.type, 'lab-metrics');
    assert.ok(Number(last.readouts.Step) > 0, JSON.stringify(last));
    await page.evaluate(() => window.TrainingLab.send(document.querySelector('#lab-playground'), { type: 'lab-pause' }));
    await page.waitForTimeout(500);
    // A partial state merges into the embed's: the network (4, 4) and the locks stay, even
    // against a message that tries to unlock.
    await page.evaluate(() => window.TrainingLab.send(document.querySelector('#lab-playground'), { type: 'lab-set-state', query: 'lr=0.3&dataset_hide=false' }));
    await until(async () => (await pg.locator(byId('learning-rate')).inputValue().catch(() => '')) === '0.3', 60_000, 'the new learning rate');
    assert.equal(await pg.locator(byId('neurons-0')).inputValue(), '4', 'the network kept');
    assert.equal(await pg.locator(byId('neurons-1')).inputValue(), '4', 'the network kept');
    assert.equal(await pg.locator(byId('dataset')).isVisible(), false, 'still locked');
    // The embedded playground fits its frame: no sideways scroll inside it.
    const inner = await page.locator('#lab-playground iframe').evaluate((f) => f.contentDocument.documentElement.scrollWidth - f.contentWindow.innerWidth);
    assert.ok(inner <= 0, `the embedded playground scrolls sideways by ${inner} px`);
    await page.locator('#lab-landscape').scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'tutorial.png');

    // A frame that allows only another origin: the same messages are ignored.
    await page.evaluate((url) => {
      // Every message the foreign frame sends this page (its size included) is recorded.
      window.fromForeign = [];
      window.addEventListener('message', (e) => {
        const f = document.querySelector('#foreign');
        if (f && e.source === f.contentWindow) window.fromForeign.push(e.data);
      });
      const f = document.createElement('iframe');
      f.id = 'foreign';
      f.src = `${url}?embed=1&origins=https://example.org`;
      f.style.cssText = 'width:900px;height:700px';
      document.body.appendChild(f);
    }, server.url);
    const foreign = page.frameLocator('#foreign');
    await foreign.locator(byId('step')).waitFor();
    await page.evaluate(() => {
      const w = document.querySelector('#foreign').contentWindow;
      for (const m of [{ type: 'lab-start' }, 'lab-start', 42, null, { type: 5 }, { type: 'lab-set-state', query: 'lr=1' }]) w.postMessage(m, '*');
    });
    await page.waitForTimeout(2000);
    assert.equal(await foreign.locator(byId('step')).textContent(), '0', 'a foreign origin cannot start training');
    assert.deepEqual(await page.evaluate(() => window.fromForeign), [], 'not even its size goes to a host it does not allow');
    // A lab name the registry does not know: the frame says so and names the labs there are.
    await page.evaluate(() => {
      const d = document.createElement('div');
      d.id = 'typo';
      d.dataset.lab = 'optimiser';
      document.body.appendChild(d);
      window.TrainingLab.mountAll();
    });
    await page.locator('#typo').scrollIntoViewIfNeeded();
    const typo = page.frameLocator('#typo iframe').locator(byId('no-such-lab'));
    await typo.waitFor({ timeout: 30_000 });
    assert.match(await typo.textContent(), /called \u201coptimiser\u201d, and there is none.*optimizers/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('offline: after a first visit the app loads without the network', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(server.url);
    await page.evaluate(() => navigator.serviceWorker.ready);
    // The first load came before the worker; a reload goes through it and fills its cache.
    await page.reload();
    await page.locator(byId('train')).waitFor();
    await page.context().setOffline(true);
    await page.reload();
    await page.locator(byId('train')).waitFor({ timeout: 20_000 });
    await page.click(byId('train'));
    await until(async () => Number(await text(page, 'step')) > 5, 20_000, 'training offline');
    await page.goto(`${server.url}labs`);
    await page.locator(byId('home')).waitFor({ timeout: 20_000 });
    await page.context().setOffline(false);
    assert.deepEqual(errors.filter((e) => !/net::ERR_INTERNET_DISCONNECTED/.test(e)), []);
  } finally {
    await browser.close();
  }
});
