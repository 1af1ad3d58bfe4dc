// End-to-end: the book is accessible. axe-core (WCAG 2.0 and 2.1, levels A and AA) reports no
// violation on any page of the book as the site serves it (/book/), at a desktop width and a
// phone's (the print page, every chapter at once, at the desktop's only): the mdBook theme's gaps
// are closed by docs/book/a11y.js (its sidebar toggle a button, every code block or table that
// scrolls sideways reachable by keyboard) and by scripts/build-app.mjs (a title for the no-script
// contents page, the missing-page page's base).
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, root } from './harness.mjs';

const require = createRequire(path.join(root, 'tools', 'package.json'));
const AXE = require.resolve('axe-core/axe.min.js');
const RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

test('axe-core finds no WCAG 2.1 A or AA violation on any page of the book, at 1280 and 390 px', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    const book = path.join(root, 'dist', 'book');
    const pages = fs.readdirSync(book, { recursive: true }).filter((f) => f.endsWith('.html')).sort();
    assert.ok(pages.length > 30, `${pages.length} pages`);
    const problems = [];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      // The print page is every chapter on one page (axe takes as long on it as on a dozen
      // chapters): at the phone's width its chapters are checked one by one, so only the desktop
      // pass reads it.
      for (const p of pages.filter((f) => width === 1280 || f !== 'print.html')) {
        await page.goto(`${server.url}book/${p}`);
        await page.addScriptTag({ path: AXE });
        const found = await page.evaluate(async (tags) => {
          const r = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
          return r.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')} (${v.help})`);
        }, RULES);
        for (const v of found) problems.push(`${width} px, book/${p}: ${v}`);
      }
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(errors.filter((e) => !/404/.test(e)), []);
  } finally {
    await browser.close();
  }
});
