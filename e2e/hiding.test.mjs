// Every name a lab lets an instructor hide (`<name>_hide=true`, listed in the README from its settings table) takes
// its control or chart off the page: one reactive mechanism for every lab, driven by the settings.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, byId, root } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(() => server.close());

/// Each lab's hideable names, as the README lists them (`state/tests/settings_tables.rs` checks
/// that list against the labs' settings tables).
function controls(lab) {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const line = readme.split('\n').find((l) => l.startsWith(`| ${lab} |`));
  return [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}

const LABS = [['optimizers', 'opt'], ['scaling', 'scale'], ['cluster', 'cl'], ['vision', 'vision'], ['bench', 'bench'], ['landscape', 'land']];

test('every hideable control of every lab hides, and shows again without the flag', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    for (const [lab, prefix] of LABS) {
      const names = controls(lab);
      await page.goto(`${server.url}${lab}?${names.map((n) => `${n}_hide=true`).join('&')}`);
      await page.locator(byId(`${prefix}-share`)).waitFor({ state: 'attached', timeout: 30_000 });
      const absent = [];
      for (const name of names) {
        const el = page.locator(byId(`${prefix}-${name}`)).first();
        // A control that applies only to some settings (error feedback) is not on the page at all.
        if ((await el.count()) === 0) { absent.push(name); continue; }
        assert.equal(await el.isVisible(), false, `${lab}: ${name}_hide=true hides ${prefix}-${name}`);
      }
      assert.ok(absent.length <= 1, `${lab}: not on the page: ${absent}`);
      await page.goto(`${server.url}${lab}`);
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
