// Every name a lab lets an instructor hide (`<name>_hide=true`, listed in the book from its settings table) takes
// its control or chart off the page: one reactive mechanism for every lab, driven by the settings.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, byId, root, LABS } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(() => server.close());

/// Each lab's hideable names, as its chapter of the book lists them for instructors
/// (`state/tests/settings_tables.rs` checks that list against the lab's settings table).
function controls(id) {
  const chapter = fs.readFileSync(path.join(root, `docs/book/src/student/${id}.md`), 'utf8');
  const line = chapter.split('\n').find((l) => l.startsWith('**Hideable names**'));
  return [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}

// Every lab but the playground (whose controls have their own test ids, tested in
// playground.test.mjs), with its test-id prefix, and where needed the query under which every
// control applies (the precision lab's custom run's formats show only when the runs include it;
// the cluster's error feedback and momentum correction only with a compressor that takes them).
const APPLIES = { precision: 'runs=fp32,custom', cluster: 'compression=1' };
const HIDING = LABS.filter((l) => l.id !== 'playground').map((l) => [l.route, l.prefix, APPLIES[l.id], l.id]);

test('every hideable control of every lab hides, and shows again without the flag', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    for (const [lab, prefix, applies, id] of HIDING) {
      const names = controls(id);
      await page.goto(`${server.url}${lab}?${applies ? `${applies}&` : ''}${names.map((n) => `${n}_hide=true`).join('&')}`);
      await page.locator(byId(`${prefix}-share`)).waitFor({ state: 'attached', timeout: 30_000 });
      const absent = [];
      for (const name of names) {
        const el = page.locator(byId(`${prefix}-${name}`)).first();
        // A control that applies only to some settings (error feedback) is not on the page at all.
        if ((await el.count()) === 0) { absent.push(name); continue; }
        assert.equal(await el.isVisible(), false, `${lab}: ${name}_hide=true hides ${prefix}-${name}`);
      }
      assert.ok(absent.length <= 1, `${lab}: not on the page: ${absent}`);
      await page.goto(`${server.url}${lab}${applies ? `?${applies}` : ''}`);
      await page.locator(byId(`${prefix}-share`)).waitFor({ timeout: 30_000 });
      const shown = [];
      for (const name of names) if (await page.locator(byId(`${prefix}-${name}`)).first().isVisible()) shown.push(name);
      // Without flags the controls are back (a few show only when they apply, e.g. Goh's button).
      assert.ok(shown.length >= names.length - 3, `${lab}: shown again ${shown.length} of ${names.length}: ${names.filter((n) => !shown.includes(n))}`);
    }
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});

/// The playground's test ids where they differ from the names.
const PLAYGROUND_IDS = {
  test: 'test-ratio', hidden: 'layers', features: 'feature-x', loss: 'loss-kind', weight_decay: 'weight-decay',
  lr: 'learning-rate', backend: 'backend-choice', show_test: 'show-test', share: 'lab-share', speed: 'speed-choice',
  step: 'step-once', export: 'export-weights', 'add-point': 'add-class',
};

test('the playground: every hideable control hides (seed, points and the upload too), and a hidden add-point locks the plot', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    const names = controls('playground');
    assert.ok(names.includes('seed') && names.includes('points') && names.includes('upload'));
    await page.goto(`${server.url}?${names.map((n) => `${n}_hide=true`).join('&')}`);
    await page.locator(byId('heatmap')).waitFor({ timeout: 30_000 });
    for (const name of names) {
      const el = page.locator(byId(PLAYGROUND_IDS[name] ?? name)).first();
      assert.equal(await el.count(), 1, `playground: ${name} has a control`);
      assert.equal(await el.isVisible(), false, `playground: ${name}_hide=true hides it`);
    }
    // Clicking the plot adds no point while adding points is hidden.
    await page.locator(byId('heatmap')).click({ position: { x: 100, y: 100 } });
    await page.waitForTimeout(300);
    assert.equal(await page.locator(byId('forget-points')).isVisible(), false, 'no point added');
    await page.goto(`${server.url}`);
    await page.locator(byId('heatmap')).waitFor({ timeout: 30_000 });
    await page.$$eval('details', (ds) => ds.forEach((d) => { d.open = true; }));
    const shown = [];
    for (const name of names) if (await page.locator(byId(PLAYGROUND_IDS[name] ?? name)).first().isVisible()) shown.push(name);
    // Without flags they are back (β₂, ε and weight decay show only for the optimizers that use them).
    assert.ok(shown.length >= names.length - 3, `shown again ${shown.length} of ${names.length}: ${names.filter((n) => !shown.includes(n))}`);
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
  }
});
