// End-to-end: every lab keeps its settings in the URL and in a settings file. A link sets the
// controls (and hides the ones named `<name>_hide`), a bad value is named in a notice and keeps
// its default, every change rewrites the link, "Save settings" downloads a file that "Load
// settings" reads back, and another lab's file is refused with the reason, keeping the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { serve, launch, byId, text, screenshot, until, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

// lab, prefix, a query, a control it sets with the value it must show, a control it hides,
// a control to change afterwards (with the new value and the URL text it must produce).
const LABS = [
  { lab: 'playground', path: '', p: 'lab', q: 'dataset=xor&momentum=0.5&dataset_hide=true&noise=oops',
    shows: ['momentum', '0.5'], hidden: 'dataset', hideKey: 'dataset', bad: 'noise=oops', change: ['activation', 'relu', 'activation=relu'] },
  { lab: 'optimizers', p: 'opt', q: 'surface=beale&steps=200&lr=0.01,0.05,0.05,0.5,0.05,0.1,0.1&goh_hide=true&noise=oops',
    shows: ['opt-steps', '200'], hidden: 'opt-goh', bad: 'noise=oops', change: ['opt-steps', '50', 'steps=50'] },
  { lab: 'scaling', p: 'scale', q: 'batches=4%2C+8&base_lr=0.2&rule=linear&cancel_hide=true&max_steps=-1',
    shows: ['scale-lr', '0.2'], hidden: 'scale-cancel', bad: 'max_steps=-1', change: ['scale-rule', 'none', 'rule=none'], version: 2 },
  { lab: 'cluster', p: 'cl', q: 'workers=16&gflops=12.5&workers_hide=true&lr=fast',
    shows: ['cl-gflops', '12.5'], hidden: 'cl-workers', bad: 'lr=fast', change: ['cl-compression', '1', 'compression=topk'], version: 2 },
  { lab: 'vision', p: 'vision', q: 'set=fashion&epochs=2&layers_hide=true&batch=0',
    shows: ['vision-epochs', '2'], hidden: 'vision-layers', bad: 'batch=0', change: ['vision-train', '500', 'train=500'], version: 2 },
  { lab: 'bench', p: 'bench', q: 'backend=cpu&run_hide=true&steps=x',
    shows: ['bench-backend', 'cpu'], hidden: 'bench-run', bad: 'steps=x', change: ['bench-workload', 'W2', 'workload=W2'] },
  { lab: 'landscape', p: 'land', q: 'net=mlp&data=fashion&res=11&plane_hide=true&epochs=x',
    shows: ['land-res', '11'], hidden: 'land-plane', bad: 'epochs=x', change: ['land-batch', '64', 'batch=64'] },
];

const value = (page, id) => page.locator(byId(id)).evaluate((el) => el.value);

test('every lab: settings from the link, hidden controls, notices, save and load', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    for (const l of LABS) {
      await page.goto(`${server.url}${l.path ?? l.lab}?${l.q}`);
      await page.locator(byId(`${l.p}-share`)).waitFor({ timeout: 30_000 });
      await until(async () => (await value(page, l.shows[0])) === l.shows[1], 5_000, `${l.lab}: ${l.shows[0]} = ${l.shows[1]}`);
      assert.equal(await page.locator(byId(l.hidden)).isVisible(), false, `${l.lab}: ${l.hidden} hidden`);
      const notices = l.lab === 'playground' ? await text(page, 'url-notice') : await text(page, `${l.p}-notices`);
      assert.ok(notices.includes(l.bad), `${l.lab}: a notice names ${l.bad}: ${notices}`);

      // A change rewrites the link; "Copy link" shows it.
      await page.selectOption(byId(l.change[0]), l.change[1]);
      await until(async () => page.url().includes(l.change[2]), 5_000, `${l.lab}: URL has ${l.change[2]}`);
      await page.click(byId(`${l.p}-copy-link`));
      const link = await value(page, `${l.p}-link`);
      assert.ok(link.includes(l.change[2]) && link.includes(`${l.hideKey ?? l.hidden.slice(l.p.length + 1)}_hide=true`), `${l.lab}: link ${link}`);

      // Save, then load: the file comes back whole; another lab's file is refused, page kept.
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(byId(`${l.p}-save-settings`))]);
      const saved = JSON.parse(fs.readFileSync(await downloaded(download), 'utf8'));
      assert.equal(saved.lab, l.lab);
      // Version 2: choices by name (cluster, scaling, vision).
      assert.equal(saved.version, l.version ?? 1);
      const load = (name, body) => page.locator(byId(`${l.p}-load-settings`)).setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(body) });
      const other = l.lab === 'vision' ? 'cluster' : 'vision';
      await load('other.json', JSON.stringify({ lab: other, version: 1 }));
      await until(async () => (await text(page, `${l.p}-notices`)).includes(`not the ${l.lab} lab's`), 5_000, `${l.lab}: refusal`);
      assert.equal(await value(page, l.change[0]), l.change[1], `${l.lab}: settings kept after a refused file`);
      await load('newer.json', JSON.stringify({ ...saved, version: 99 }));
      await until(async () => (await text(page, `${l.p}-notices`)).includes('newer'), 5_000, `${l.lab}: newer refused`);
      await page.goto(`${server.url}${l.path ?? l.lab}`);
      await page.locator(byId(`${l.p}-share`)).waitFor({ timeout: 30_000 });
      await load('mine.json', JSON.stringify(saved));
      await until(async () => (await text(page, `${l.p}-notices`)) === 'mine.json: settings loaded', 5_000, `${l.lab}: own file read, and said so`);
      await until(async () => (await value(page, l.change[0])) === l.change[1], 5_000, `${l.lab}: loaded ${l.change[0]}`);
      assert.equal(await page.locator(byId(l.hidden)).isVisible(), false, `${l.lab}: the file hides what the link hid`);
      // … but not the bar with the Load control.
      await load('locked.json', JSON.stringify({ ...saved, hide: [...(saved.hide || []), 'share'] }));
      await until(async () => (await text(page, `${l.p}-notices`)) === 'locked.json: settings loaded', 5_000, `${l.lab}: loaded again`);
      assert.equal(await page.locator(byId(`${l.p}-share`)).isVisible(), true, `${l.lab}: the bar with Load settings still shown`);
      await screenshot(page, `state-${l.lab}.png`);
    }
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});
