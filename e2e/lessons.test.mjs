// End-to-end: the course. Every lesson listed in public/lessons/course.json is opened as a student
// would (lesson.html?id=…): for each section a prediction is locked in, the embedded lab runs with
// the lesson's locked settings on the CPU path, and the reveal shows the lab's measurement, judged
// against the choices as the lesson file defines them, and the student's prediction against it.
// Where the run takes a minute or less the measured outcome must also be the one the lesson's
// "why" explains (its `claim`). The longer lessons' claims are asserted natively, by state/tests
// (every_playground_lesson_section_measures_its_claim, landscape_lessons,
// every_layout_of_the_defaults_learns_as_the_plain_run_does), so here they run on a small budget
// that checks the page's wiring: the measure, the reveal and the verdict. Then the course page
// shows the progress and the predictions beside the results, and a bad lesson id gives a message.
import fs from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, screenshot, until, root, downloaded } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(async () => { await server.close(); });

// The course's units, and its lessons in order (every unit's).
const courseFile = JSON.parse(fs.readFileSync(path.join(root, 'public', 'lessons', 'course.json'), 'utf8'));
const course = { ...courseFile, lessons: courseFile.units.flatMap((u) => u.lessons) };
const lesson = (id) => JSON.parse(fs.readFileSync(path.join(root, 'public', 'lessons', `${id}.json`), 'utf8'));

/** The small budgets of the lessons whose claims the native tests assert: settings appended to
 *  each section's link, a step to measure at instead of the lesson's, a measure that a short run
 *  can take, and what the embedded lab must show beside the reveal (`shows`, given the lab's
 *  frame and the measured metrics; the page's own test then need not train the same run). */
const SMALL = {
  'playground-features': { readyStep: 100 },
  'playground-overfitting': { readyStep: 300 },
  'playground-init': { readyStep: 100 },
  'playground-adamw': { readyStep: 300 },
  'playground-dropout': { readyStep: 300 },
  'precision-mixed': { state: '&steps=60' },
  'precision-formats': { state: '&steps=60' },
  'bench-lies': { state: '&steps=20' },
  'sparsity-lottery': { state: '&steps=30&images=500' },
  'sparsity-layers': { state: '&steps=30&images=500' },
  'sparsity-structured': { state: '&steps=30&images=500' },
  // state/tests/attention_lab.rs trains the preset over five seeds.
  'attention-memorize': { state: '&steps=50&every=25' },
  'scaling-normalization': { state: '&max_steps=200' },
  'scaling-lars': { state: '&max_steps=40' },
  'cluster-async-momentum': { state: '&max_steps=100' },
  'cluster-dgc': { state: '&max_steps=100' },
  'landscape-sharpness': { state: '&epochs=1&target=0&res=3' },
  // The lesson's batch of 32 and a target loss above the first one, which stops both twins at
  // their first check (8 steps), leave a 3 × 3 slice with no curving down, and a ratio of zeros
  // never reveals: the small run measures the difference instead.
  'landscape-skips': {
    state: '&epochs=1&batch=32&target=9&res=3',
    expr: '{nonconvexity-plain} - {nonconvexity-skips}',
    measure: { label: 'the non-convexity without skips minus the non-convexity with them', unit: '' },
    shows: async (lab) => {
      const metric = async (name) => Number(await lab.locator(`[data-metric="${name}"]`).getAttribute('data-metric-value'));
      const [skips, plain] = [await metric('nonconvexity-skips'), await metric('nonconvexity-plain')];
      assert.ok(skips >= 0 && skips <= 1 && plain >= 0 && plain <= 1, `non-convexity is a share: ${skips}, ${plain}`);
      const summary = await lab.locator(byId('land-summary')).textContent();
      assert.match(summary, /with skips, batch 32, 8 steps .*non-convexity of the slice [\d.]+/);
      assert.match(summary, /without skips, batch 32, 8 steps/);
      const verdict = await lab.locator(byId('land-verdict')).textContent();
      assert.ok(verdict.startsWith(`Non-convexity ${skips.toFixed(3)} with skips, ${plain.toFixed(3)} without: `), verdict);
      assert.match(verdict, plain > skips ? /the slice without skips is the less convex/ : /the slice with skips is the less convex/);
    },
  },
  'parallelism-fits': { state: '&steps=20' },
  // state/tests/cluster_lessons.rs trains every section over five seeds (or its pinned one).
  'cluster-allreduce': { state: '&target=0.6' },
  'cluster-compression': { state: '&target=0.6' },
  'cluster-stragglers': { state: '&target=0.6' },
  // state/tests/trajectory_lessons.rs trains both over five seeds (the toy on lavapipe too).
  'landscape-trajectory': { state: '&epochs=1&target=0' },
  // state/tests/vision_lessons.rs trains both over five seeds and on lavapipe.
  'vision-filters': { state: '&train=500' },
  'vision-hardest': { state: '&train=500&epochs=1' },
};

/** The lesson as served to the page: with its small budget where it has one. */
function served(id) {
  const l = lesson(id);
  const small = SMALL[id];
  if (!small) return l;
  for (const s of l.sections) {
    if (small.state) s.state = `${s.state || ''}${small.state}`;
    if (small.readyStep) s.measure.ready = { ...s.measure.ready, min: small.readyStep };
    if (small.expr) s.measure.expr = small.expr;
    if (small.measure) Object.assign(s.measure, small.measure);
  }
  return l;
}

/** The choice a measurement falls in, as the lesson file bounds them (min inclusive, max
 *  exclusive) or names them (`is`: a text or a list), else the one marked `otherwise`; or -1. */
function choiceOf(section, value) {
  const choices = section.predict.choices;
  const k = choices.findIndex((c) => !c.otherwise && (c.is !== undefined
    ? [].concat(c.is).includes(String(value))
    : (c.min === undefined || value >= c.min) && (c.max === undefined || value < c.max)));
  return k >= 0 ? k : choices.findIndex((c) => c.otherwise);
}

test('every lesson file is complete: a question, choices, a claim among them, a measure, a why', () => {
  for (const id of course.lessons) {
    const l = lesson(id);
    assert.ok(l.title && l.lab && l.intro && l.sections.length > 0, id);
    for (const s of l.sections) {
      assert.ok(s.heading && s.question && s.why && s.measure && s.measure.label, `${id}: ${s.heading}`);
      assert.ok(s.measure.metric || s.measure.expr || s.measure.text, `${id}: what is measured`);
      assert.ok(Number.isInteger(s.claim) && s.claim >= 0 && s.claim < s.predict.choices.length, `${id}: the claim is a choice`);
      assert.doesNotMatch(s.why, /TBD/, `${id}: the why is written`);
      // Every outcome the lab can measure is explained, not only the one the lesson expects.
      s.predict.choices.forEach((c, k) => assert.ok(k === s.claim || (c.why && c.why.length > 40), `${id} "${s.heading}": choice "${c.text}" has its why`));
    }
  }
});

for (const id of course.lessons) {
  test(`lesson ${id}: each reveal shows what the lab measured, and it is what the lesson explains`, async () => {
    const l = served(id);
    // No WebGPU: the CPU path a student without a GPU gets, and the slowest first result.
    const { browser, page, errors } = await launch({ webgpu: false });
    await page.setViewportSize({ width: 1000, height: 900 });
    try {
      if (SMALL[id]) await page.route(`**/lessons/${id}.json`, (route) => route.fulfill({ json: l }));
      await page.goto(`${server.url}lesson.html?id=${id}`);
      await until(async () => (await text(page, 'lesson-title')) !== '', 10_000, 'the lesson');
      for (let i = 0; i < l.sections.length; i++) {
        const s = l.sections[i];
        const guess = (s.claim + 1) % s.predict.choices.length;
        assert.ok(await page.locator(byId(`lock-${i}`)).isDisabled(), 'no run before a prediction');
        assert.ok(await page.locator(byId(`reveal-${i}`)).isHidden(), 'no answer before a prediction');
        await page.locator(byId(`choice-${i}-${guess}`)).check();
        const started = Date.now();
        await page.click(byId(`lock-${i}`));
        assert.ok(await page.locator(byId(`choice-${i}-${s.claim}`)).isDisabled(), 'the prediction is locked');
        await until(async () => page.locator(byId(`reveal-${i}`)).isVisible(), 300_000, `${id} section ${i}'s reveal`);
        const seconds = (Date.now() - started) / 1000;
        const reveal = page.locator(byId(`reveal-${i}`));
        const outcome = Number(await reveal.getAttribute('data-outcome'));
        const raw = await reveal.getAttribute('data-measured');
        const measured = await text(page, `measured-${i}`);
        const small = SMALL[id] ? ' (small budget)' : '';
        console.log(`${id} §${i + 1} "${s.heading}"${small}: measured ${measured} → "${s.predict.choices[outcome]?.text}" after ${seconds.toFixed(1)} s`);
        // The reveal judges the measurement by the lesson's own bounds, and shows it as measured.
        const value = s.measure.text ? raw : Number(raw);
        if (!s.measure.text) {
          assert.ok(Number.isFinite(value), `${id} §${i + 1}: a number was measured (${raw})`);
          const unit = s.measure.unit ? ` ${s.measure.unit}` : '';
          assert.equal(measured, `${value.toFixed(s.measure.digits ?? 2)}${unit}`);
        }
        assert.equal(outcome, choiceOf(s, value), `${id} §${i + 1}: ${raw} falls in choice ${choiceOf(s, value)}`);
        if (!SMALL[id]) {
          assert.equal(outcome, s.claim, `${id} §${i + 1}: the lab measured ${measured}, "${s.predict.choices[outcome]?.text}", not the claimed "${s.predict.choices[s.claim].text}"`);
        }
        assert.match(await text(page, `verdict-${i}`), outcome === guess ? /^✓/ : /^✗/, 'the verdict judges the prediction against what was measured');
        // A run that lands elsewhere than the claim reads that outcome's own why first.
        const own = outcome >= 0 && outcome !== s.claim ? s.predict.choices[outcome].why : undefined;
        assert.equal(await page.locator(byId(`why-outcome-${i}`)).count(), own ? 1 : 0, 'the why of the outcome measured');
        if (SMALL[id]?.shows) await SMALL[id].shows(page.frameLocator(`${byId(`lab-${i}`)} iframe`));
      }
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, 'no sideways scroll at 1000 px');
      await screenshot(page, `lesson-${id}.png`);
      // The course page: this lesson done, its predictions beside the results.
      await page.goto(`${server.url}course.html`);
      await until(async () => /done/.test(await text(page, `course-done-${id}`)), 10_000, 'the course list');
      assert.equal(await text(page, `course-done-${id}`), `${l.sections.length} of ${l.sections.length} done`);
      const rows = await page.locator(`${byId('course-predictions')} tr`).count();
      assert.equal(rows, 1 + l.sections.length, 'one row per prediction');
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  });
}

test('whatever local storage holds, a prediction locks in and is kept', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    const id = course.lessons[0];
    await page.goto(`${server.url}course.html`);
    for (const stored of ['5', '"text"', '[1]', `{"${id}": 7}`, `{"${id}": {"sections": {"0": "x"}}}`, '{oops']) {
      await page.evaluate((v) => localStorage.setItem('training-lab-course-v1', v), stored);
      await page.goto(`${server.url}lesson.html?id=${id}`);
      await until(async () => (await text(page, 'lesson-title')) !== '', 10_000, 'the lesson');
      await page.locator(byId('choice-0-0')).check();
      await page.click(byId('lock-0'));
      await until(async () => page.locator(byId('choice-0-1')).isDisabled(), 5_000, `the lock with ${stored} stored`);
      const kept = await page.evaluate((k) => JSON.parse(localStorage.getItem('training-lab-course-v1'))[k].sections[0].prediction, id);
      assert.equal(kept, 0, `the prediction is saved over ${stored}`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('the course page fits a phone, a bad lesson id says so, predictions can be forgotten', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}course.html`);
    await until(async () => (await page.locator(`${byId('course-lessons')} ol.lessons > li`).count()) === course.lessons.length, 10_000, 'the lessons');
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, 'no sideways scroll at 390 px');
    await screenshot(page, 'course-390.png');
    // The units in order, each with its title and reading; each lesson with its time and needs.
    for (const [u, unit] of course.units.entries()) {
      const shown = await text(page, `course-unit-${u + 1}`);
      assert.ok(shown.startsWith(`${u + 1}. ${unit.title}`), shown.slice(0, 80));
      assert.ok(shown.includes(`Reading: ${unit.reading[0].text}`), `unit ${u + 1}'s reading`);
      for (const id of unit.lessons) {
        assert.match(await text(page, `course-needs-${id}`), new RegExp(`^about ${lesson(id).minutes} min · ${lesson(id).sections.length} questions · no GPU needed`));
      }
    }
    await page.goto(`${server.url}lesson.html?id=${course.lessons[0]}`);
    await until(async () => (await text(page, 'lesson-title')) !== '', 10_000, 'the lesson');
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, 'a lesson fits 390 px');
    await screenshot(page, 'lesson-390.png');
    await page.goto(`${server.url}lesson.html?id=no-such-lesson`);
    await until(async () => /could not be loaded/.test(await page.locator('main').textContent()), 10_000, 'the message');
    await page.goto(`${server.url}course.html`);
    await page.click(byId('course-reset'));
    await until(async () => /No predictions yet/.test(await text(page, 'course-predictions')), 10_000, 'the reset');
    assert.deepEqual(errors.filter((e) => !/404/.test(e)), []);
  } finally {
    await browser.close();
  }
});

test('a malformed lesson or course entry is named with its reason, and the others still show; a metric that never comes is named', async () => {
  const { browser, page, errors } = await launch({ webgpu: false, blockServiceWorkers: true });
  try {
    const good = course.lessons.slice(0, 2);
    // The course lists the course file itself, a lesson without sections and a number.
    await page.route('**/lessons/course.json', (r) => r.fulfill({ json: { title: course.title, lessons: [good[0], 'course', 'broken', 42, good[1]] } }));
    await page.route('**/lessons/broken.json', (r) => r.fulfill({ json: { title: 'Broken', lab: 'playground' } }));
    await page.goto(`${server.url}course.html`);
    await until(async () => (await page.locator(`${byId('course-lessons')} ol.lessons > li`).count()) === 5, 10_000, 'every entry');
    for (const id of good) assert.match(await text(page, `course-${id}`), /of \d+ done/);
    assert.match(await text(page, 'course-problem-course'), /“course” cannot be shown: no lab/);
    assert.match(await text(page, 'course-problem-broken'), /“broken” cannot be shown: no sections/);
    assert.match(await text(page, 'course-problem-entry'), /“42” cannot be shown: not a lesson id/);
    assert.match(await text(page, 'course-predictions'), /you predicted/);
    await page.goto(`${server.url}lesson.html?id=course`);
    await until(async () => /cannot be shown: no lab/.test(await text(page, 'lesson-problem')), 10_000, 'the message');
    // A metric the lab never publishes ends in a message naming it once the run is over.
    await page.route('**/lessons/misspelled.json', (r) => r.fulfill({ json: {
      title: 'Misspelled', lab: 'scaling',
      sections: [{
        heading: 'A short sweep', question: 'Which batch?', start: true,
        state: 'batches=8&max_steps=60&data=gaussians&target=0.3&backend=cpu',
        measure: { metric: 'steps-to-targte-8', label: 'steps' },
        predict: { choices: [{ text: 'few', max: 10 }, { text: 'many', min: 10, why: 'a slow run' }] },
        claim: 0, why: 'because',
      }],
    } }));
    await page.goto(`${server.url}lesson.html?id=misspelled`);
    await page.locator(byId('choice-0-0')).check();
    await page.click(byId('lock-0'));
    await until(async () => /ended without “steps-to-targte-8”/.test(await text(page, 'lesson-status-0')), 60_000, 'the missing metric named');
    assert.deepEqual(errors, [], 'no uncaught error');
  } finally {
    await browser.close();
  }
});

test('offline: after a first visit the course, a lesson and its lab work without the network', async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${server.url}course.html`);
    await page.evaluate(() => navigator.serviceWorker.ready);
    const id = 'optimizers-momentum';
    // Online once: the lesson, and its lab's first section (the app's files go through the worker).
    await page.goto(`${server.url}lesson.html?id=${id}`);
    await page.locator(byId('choice-0-0')).check();
    await page.click(byId('lock-0'));
    await until(async () => page.locator(byId('reveal-0')).isVisible(), 60_000, 'the first reveal online');
    await page.context().setOffline(true);
    await page.goto(`${server.url}course.html`);
    await until(async () => (await page.locator(`${byId('course-lessons')} ol.lessons > li`).count()) === course.lessons.length, 20_000, 'the course offline');
    await page.goto(`${server.url}lesson.html?id=${id}`);
    await page.locator(byId('choice-1-0')).check();
    await page.click(byId('lock-1'));
    await until(async () => page.locator(byId('reveal-1')).isVisible(), 60_000, 'a reveal offline');
    await page.context().setOffline(false);
    assert.deepEqual(errors.filter((e) => !/net::ERR_INTERNET_DISCONNECTED/.test(e)), []);
  } finally {
    await browser.close();
  }
});

test('offline: a lesson file the site lacks is named, online and offline, and every other lesson is saved', async () => {
  // The site as built, but its course lists one lesson whose file is not there (an instructor's
  // typo, a file not uploaded): the service worker must still save every other lesson.
  const site = fs.mkdtempSync(path.join(root, 'target', 'e2e-missing-lesson-'));
  const dist = path.join(root, 'dist');
  for (const name of fs.readdirSync(dist)) if (name !== 'lessons') fs.symlinkSync(path.join(dist, name), path.join(site, name));
  fs.mkdirSync(path.join(site, 'lessons'));
  for (const name of fs.readdirSync(path.join(dist, 'lessons'))) {
    if (name !== 'course.json') fs.symlinkSync(path.join(dist, 'lessons', name), path.join(site, 'lessons', name));
  }
  const missing = 'a-lesson-not-uploaded';
  const listed = { ...courseFile, units: courseFile.units.map((u, k) => (k === 0 ? { ...u, lessons: [...u.lessons, missing] } : u)) };
  fs.writeFileSync(path.join(site, 'lessons', 'course.json'), JSON.stringify(listed));
  const host = await serve(site);
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    await page.goto(`${host.url}lesson.html?id=${course.lessons[0]}`);
    await page.evaluate(() => navigator.serviceWorker.ready);
    const cached = await page.evaluate(async () => {
      const keys = await (await caches.open((await caches.keys())[0])).keys();
      return keys.filter((r) => /\/lessons\/[a-z0-9-]+\.json$/.test(r.url) && !r.url.endsWith('/course.json')).length;
    });
    assert.equal(cached, course.lessons.length, 'every lesson file the site has is saved');
    // Still online, the course says which lessons are not saved for offline use.
    await page.goto(`${host.url}course.html`);
    await until(async () => (await page.locator(byId('course-offline')).count()) === 1, 20_000, 'the offline note');
    const note = await text(page, 'course-offline');
    assert.match(note, new RegExp(`${course.lessons.length} of ${course.lessons.length + 1} lessons`), note);
    assert.match(note, new RegExp(`Not saved: ${missing}`), note);
    await page.context().setOffline(true);
    await page.goto(`${host.url}course.html`);
    await until(async () => (await page.locator(`${byId('course-lessons')} ol.lessons > li`).count()) === course.lessons.length + 1, 20_000, 'the course offline');
    assert.equal(await page.locator(`${byId('course-lessons')} li.problem`).count(), 1, 'only the missing lesson is not there offline');
    assert.match(await text(page, `course-problem-${missing}`), /not available offline/);
    await page.context().setOffline(false);
    assert.deepEqual(errors.filter((e) => !/net::ERR_INTERNET_DISCONNECTED|404|Failed to load resource/.test(e)), []);
  } finally {
    await browser.close();
    await host.close();
    fs.rmSync(site, { recursive: true, force: true });
  }
});

test('a locked prediction stays locked: after a reload and in a second tab; the course exports it as CSV', async () => {
  const { browser, page, errors } = await launch({ webgpu: false, blockServiceWorkers: true });
  try {
    const url = `${server.url}lesson.html?id=optimizers-momentum`;
    await page.goto(url);
    // A second tab, open before the first locks in.
    const other = await page.context().newPage();
    await other.goto(url);
    await page.locator(byId('choice-0-1')).check();
    await page.click(byId('lock-0'));
    await until(async () => page.locator(byId('reveal-0')).isVisible(), 60_000, 'the reveal');
    // The other tab shows the lock at once, and cannot lock another choice.
    await until(async () => other.locator(byId('choice-0-1')).isChecked(), 5_000, 'the lock in the second tab');
    assert.equal(await other.locator(byId('choice-0-2')).isDisabled(), true);
    await other.close();
    // After a reload: the locked choice, nothing else can be picked, and the run keeps it.
    await page.reload();
    await page.locator(byId('choice-0-1')).waitFor();
    assert.equal(await page.locator(byId('choice-0-1')).isChecked(), true);
    for (const k of [0, 1, 2]) assert.equal(await page.locator(byId(`choice-0-${k}`)).isDisabled(), true, `choice ${k} locked`);
    assert.match(await text(page, 'lesson-status-0'), /your prediction stays as you locked it/);
    // The course page exports the student's own predictions.
    await page.goto(`${server.url}course.html`);
    const [file] = await Promise.all([page.waitForEvent('download'), page.click(byId('course-csv'))]);
    const csv = fs.readFileSync(await downloaded(file), 'utf8').trim().split('\n');
    assert.equal(csv[0], 'lesson,question,predicted,measured,outcome,as_predicted');
    assert.match(csv[1], /^"Momentum in a narrow valley[^"]*","Gradient descent against momentum at their best","about √κ = 10 times fewer \(between 2× and 30×\)","[\d.]+ ×","about √κ = 10 times fewer \(between 2× and 30×\)","true"$/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('an instructor previews a lesson: one it cannot show is refused, a sound one runs; links are safe; a second course', async () => {
  const { browser, page, errors } = await launch({ webgpu: false, blockServiceWorkers: true });
  try {
    const good = JSON.parse(fs.readFileSync(path.join(root, 'public', 'lessons', 'optimizers-momentum.json'), 'utf8'));
    await page.goto(`${server.url}lesson.html?preview`);
    // What the page cannot show is refused, pointing to the authoring page's full check.
    const broken = structuredClone(good);
    broken.sections[0].claim = 7;
    await page.fill(byId('preview-text'), JSON.stringify(broken));
    await page.click(byId('preview-run'));
    assert.match(await text(page, 'preview-problems'), /cannot be shown: section 1: its claim is one of its choices\. The authoring page lists all its problems/);
    assert.equal(await page.locator(byId('lock-0')).count(), 0);
    await page.fill(byId('preview-text'), '{ "title": ');
    await page.click(byId('preview-run'));
    assert.match(await text(page, 'preview-problems'), /^Not JSON/);
    // A sound lesson runs below, as a student sees it.
    await page.fill(byId('preview-text'), JSON.stringify(good));
    await page.click(byId('preview-run'));
    assert.match(await text(page, 'preview-problems'), /runs below\. Check it in full on the authoring page/);
    await page.locator(byId('choice-0-1')).check();
    await page.click(byId('lock-0'));
    await until(async () => page.locator(byId('reveal-0')).isVisible(), 60_000, 'the preview\'s reveal');
    // Links: http(s) and relative ones, never javascript:.
    const html = await page.evaluate(() => [
      TrainingLabLessons.inline('[the book](book/student/optimizers.html)'),
      TrainingLabLessons.inline('[Goh](https://distill.pub/2017/momentum/)'),
      TrainingLabLessons.inline('[x](javascript:alert(1))'),
    ]);
    assert.equal(html[0], '<a href="book/student/optimizers.html" target="_blank" rel="noopener">the book</a>');
    assert.match(html[1], /^<a href="https:\/\/distill\.pub\/2017\/momentum\/"/);
    assert.ok(!html[2].includes('<a'), html[2]);
    // A second course lists its own lessons and its lessons link back to it.
    await page.route('**/lessons/systems.json', (r) => r.fulfill({ json: { title: 'Systems', lessons: ['cluster-allreduce'] } }));
    await page.goto(`${server.url}course.html?course=systems`);
    await until(async () => (await page.locator(`${byId('course-lessons')} ol.lessons > li`).count()) === 1, 10_000, 'the second course');
    assert.equal(await page.locator(`${byId('course-cluster-allreduce')} a`).getAttribute('href'), 'lesson.html?id=cluster-allreduce&course=systems');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
