// End-to-end: accessibility. axe-core (the npm package, run in the page) reports no violation of
// the WCAG 2.0 and 2.1 level A and AA rules on every lab, /labs, the course, a lesson and the
// tutorial: when the page opens, and on the labs again after a short run, when their charts,
// tables and verdicts are drawn; then every visible chart has a name, a summary of its numbers
// and a table view.
import { createRequire } from 'node:module';
import path from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, until, root, ROUTES, LABS } from './harness.mjs';

const require = createRequire(path.join(root, 'tools', 'package.json'));
const AXE = require.resolve('axe-core/axe.min.js');
const RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

/** axe-core's violations on the page as it is now: "rule: the nodes' selectors (help)". */
async function violations(page) {
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async (tags) => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(', ')}${v.nodes.length > 4 ? ` and ${v.nodes.length - 4} more` : ''} (${v.help})`);
  }, RULES);
  return found;
}

test('axe-core finds no WCAG 2.1 A or AA violation on any page as it opens', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    const problems = [];
    const pages = [...ROUTES, 'labs', 'author', 'course.html', 'lesson.html?id=optimizers-momentum', 'lesson.html?preview', 'class.html', 'tutorial.html'];
    for (const p of pages) {
      await page.goto(`${server.url}${p}`);
      if (p === 'lesson.html?preview') await page.locator(byId('preview-text')).waitFor({ timeout: 10_000 });
      else if (p === 'class.html') await page.locator(byId('class-create')).waitFor({ timeout: 10_000 });
      else if (p === 'author') await page.locator(byId('author-start')).waitFor({ timeout: 10_000 });
      else if (p.startsWith('lesson')) await until(async () => (await text(page, 'lesson-title')) !== '', 10_000, 'the lesson');
      else if (p.startsWith('course')) await until(async () => (await page.locator(`${byId('course-lessons')} ol.lessons > li`).count()) > 0, 10_000, 'the course');
      else if (p.startsWith('tutorial')) await page.locator('iframe').first().waitFor({ timeout: 10_000 });
      else await page.locator(p === 'labs' ? 'h1' : '[data-lab-start="true"]').first().waitFor({ timeout: 30_000 });
      for (const v of await violations(page)) problems.push(`/${p}: ${v}`);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

/** A short run of each lab (its link's small budget) before the second look. */
const SHORT = {
  playground: '',
  optimizers: '',
  landscape: 'epochs=1&res=11',
  scaling: 'batches=8,32&max_steps=200&data=gaussians&target=0.3',
  cluster: 'steps=40',
  vision: 'train=500&epochs=1',
  precision: 'steps=20&images=200',
  parallelism: 'steps=10',
  bench: 'workload=W1&steps=5&test=100',
};

/**
 * What is wrong with the page's charts' text alternatives: a visible canvas without an accessible
 * name, without a summary (aria-describedby), or without a "Table" toggle; no chart summarizing
 * numbers; the first drawn chart's table not opening with its rows.
 */
async function chartAlternatives(page, lab) {
  const look = () => page.evaluate(() => {
    const found = [];
    for (const c of document.querySelectorAll('canvas')) {
      const r = c.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const id = c.dataset.testid || c.id || 'a canvas';
      const name = (c.getAttribute('aria-label') || '').trim();
      const described = document.getElementById(c.getAttribute('aria-describedby') || '');
      if (!name) found.push(`${id} has no accessible name`);
      if (!described || !described.textContent.trim()) found.push(`${id} has no summary`);
      if (!document.querySelector(`[data-testid="${id}-table-toggle"]`)) found.push(`${id} has no table view`);
    }
    return found;
  });
  // A chart drawn anew is equipped within a second or so.
  let problems = await look();
  await until(async () => (problems = await look()).length === 0, 5_000, `${lab}: every chart equipped`).catch(() => {});
  const summarized = async () => page.evaluate(() => [...document.querySelectorAll('.chart-summary')].find((p) => /\d+ rows?\b/.test(p.textContent))?.id ?? null);
  await until(async () => (await summarized()) !== null, 10_000, `${lab}: a chart summarizing its numbers`).catch(() => problems.push('no chart summarizes any numbers'));
  const first = await summarized();
  if (first) {
    const chart = first.replace(/-summary$/, '');
    await page.locator(byId(`${chart}-table-toggle`)).click();
    const rows = page.locator(`${byId(`${chart}-table`)} tbody tr`);
    await until(async () => (await rows.count()) > 0, 5_000, `${chart}'s table`).catch(() => problems.push(`${chart}'s table shows no rows`));
    await page.locator(byId(`${chart}-table-toggle`)).click();
  }
  return problems;
}

test('axe-core finds no WCAG 2.1 A or AA violation on any lab after a short run, and every chart has a text alternative', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    const problems = [];
    for (const lab of LABS) {
      const query = SHORT[lab.id] ?? '';
      await page.goto(`${server.url}${lab.route}?${query}&backend=cpu`);
      const start = page.locator('[data-lab-start="true"]:not([disabled])').first();
      await start.waitFor({ timeout: 60_000 });
      const pause = page.locator('[data-lab-pause="true"]');
      const pausable = (await pause.count()) > 0;
      const running = async () => pausable && !(await pause.first().isDisabled());
      await start.click();
      // Running (its pause or cancel button enabled), or already done; a moment to end on
      // its own, else paused.
      await until(async () => (await running()) || (await start.isEnabled()), 60_000, `${lab.id} to run`);
      await until(async () => !(await running()), 1_500, `${lab.id} to end`).catch(async () => {
        // (It may end between the look and the click.)
        if (await running()) await pause.first().click({ timeout: 2_000 }).catch(() => {});
      });
      await until(async () => !(await running()), 60_000, `${lab.id} to stop`);
      for (const v of await violations(page)) problems.push(`/${lab.route} after a run: ${v}`);
      for (const p of await chartAlternatives(page, lab.id)) problems.push(`/${lab.route} after a run: ${p}`);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(errors.filter((e) => !/cancel/i.test(e)), []);
  } finally {
    await browser.close();
  }
});
