// End-to-end: a class on the class server (`lab-class`, the binary the native stage built, on a
// loopback port with its own SQLite file): the instructor opens a class that holds its reveals,
// two students in two browser contexts join with nicknames and lock different predictions, the
// dashboard shows both locks and their spread as they come (told by the server's events), the release shows the students their
// reveals, and the CSV has both rows.
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, text, until, downloaded } from './harness.mjs';

const BIN = process.env.CLASS_BIN || path.join(process.env.CARGO_TARGET_DIR || path.join(os.homedir(), '.cache/training-lab/target'), 'debug', 'lab-class');
let server;
let classServer;
let classUrl;
const db = path.join(os.tmpdir(), `lab-class-e2e-${process.pid}.sqlite`);
// The campus set-up: only the instructor of the instructors' file (its secret's SHA-256) opens classes.
const SECRET = '5ec7e75ec7e75ec7e75ec7e75ec7e75e';
const instructors = path.join(os.tmpdir(), `lab-class-e2e-${process.pid}-instructors.txt`);

before(async () => {
  server = await serve();
  const origin = server.url.replace(/\/$/, '');
  fs.writeFileSync(instructors, `teacher ${crypto.createHash('sha256').update(SECRET).digest('hex')}\n`);
  classServer = spawn(BIN, ['--db', db, '--address', '127.0.0.1', '--port', '0', '--origin', origin, '--instructors', instructors], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    classServer.on('error', reject);
    readline.createInterface({ input: classServer.stdout }).once('line', resolve);
  });
  classUrl = line.match(/http:\/\/\S+/)[0];
});
after(async () => {
  classServer.kill();
  await server.close();
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${db}${suffix}`, { force: true });
  fs.rmSync(instructors, { force: true });
});

test('a class: two students lock in, the dashboard shows them live, the held reveals show on release, CSV', async () => {
  const teacher = await launch({ webgpu: false });
  const students = [await launch({ webgpu: false }), await launch({ webgpu: false })];
  try {
    const t = teacher.page;
    await t.goto(`${server.url}class.html?server=${encodeURIComponent(classUrl)}`);
    await t.fill(byId('class-secret'), SECRET);
    await t.fill(byId('class-title'), 'Week 3');
    await t.check(byId('class-hold'));
    await t.click(byId('class-create'));
    const code = await t.locator(byId('class-code')).textContent();
    assert.match(code, /^[A-Z2-9]{6}$/);
    // The students open the link the dashboard gives (the course), join there, then a lesson.
    const link = await t.locator(byId('class-join-link')).getAttribute('href');
    const lesson = `${server.url}lesson.html?id=optimizers-momentum`;
    for (const [i, [nick, choice]] of [['Ada', 1], ['Bo', 2]].entries()) {
      const p = students[i].page;
      await p.goto(link);
      await p.fill(byId('class-nickname'), nick);
      await p.click(byId('class-join'));
      await until(async () => new RegExp(`as ${nick}`).test(await text(p, 'class-note')), 10_000, `${nick} joined`);
      await p.goto(lesson);
      assert.match(await text(p, 'class-note'), new RegExp(`In class ${code} as ${nick}`));
      await p.locator(byId(`choice-0-${choice}`)).check();
      await p.click(byId('lock-0'));
    }
    // Live: both locks and both measurements on the dashboard, one prediction on each choice.
    await until(async () => (await t.locator(byId('locked-optimizers-momentum-0')).textContent().catch(() => '')) === '2', 30_000, 'two locks on the dashboard');
    assert.equal(await t.locator(byId('class-board')).getAttribute('data-live'), 'events', 'updated by the server\'s events');
    assert.equal(await t.locator(byId('count-optimizers-momentum-0-1')).textContent(), '1');
    assert.equal(await t.locator(byId('count-optimizers-momentum-0-2')).textContent(), '1');
    await until(async () => /measured 2×/.test(await t.locator(byId('spread-optimizers-momentum-0')).textContent()), 60_000, 'both measurements');
    // Held: the students wait for the release, then see their reveals.
    for (const s of students) {
      assert.match(await text(s.page, 'lesson-status-0'), /when they release it/, `class note: ${await text(s.page, 'class-note')}`);
      assert.equal(await s.page.locator(byId('reveal-0')).isVisible(), false);
    }
    await t.click(byId('release-optimizers-momentum-0'));
    for (const s of students) await until(async () => s.page.locator(byId('reveal-0')).isVisible(), 15_000, 'the reveal after the release');
    // A preview of a lesson file in a student's browser that is in the class sends nothing and
    // waits for no release (it is no lesson of the class).
    const preview = students[0].page;
    const posted = [];
    preview.on('request', (r) => { if (r.url().startsWith(classUrl) && r.method() === 'POST') posted.push(r.url()); });
    await preview.goto(`${server.url}lesson.html?preview`);
    await preview.fill(byId('preview-text'), fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'public', 'lessons', 'optimizers-momentum.json'), 'utf8'));
    await preview.click(byId('preview-run'));
    await preview.locator(byId('choice-0-1')).check();
    await preview.click(byId('lock-0'));
    await until(async () => preview.locator(byId('reveal-0')).isVisible(), 60_000, 'the preview\'s reveal, unheld');
    assert.deepEqual(posted, [], 'the preview posted nothing to the class');
    await preview.goto(lesson);
    await until(async () => /In class/.test(await text(preview, 'class-note')), 10_000, 'back in the lesson');
    // The exports download through the key in a header (no key in any URL).
    const exported = async (id) => {
      const [file] = await Promise.all([t.waitForEvent('download'), t.click(byId(id))]);
      return fs.readFileSync(await downloaded(file), 'utf8');
    };
    const csv = await exported('class-csv');
    // Sections and choices numbered from 1, as the page shows them.
    assert.match(csv, /^lesson,section,nickname,predicted,measured,outcome\noptimizers-momentum,1,"Ada",2,"[\d.]+ ×",2\noptimizers-momentum,1,"Bo",3,"[\d.]+ ×",2\n$/);
    const book = await exported('class-gradebook');
    assert.match(book, /^nickname,"optimizers-momentum 1 predicted","optimizers-momentum 1 measured","optimizers-momentum 1 correct"\n"Ada",2,"[\d.]+ ×",yes\n"Bo",3,"[\d.]+ ×",no\n$/);
    // Pacing: the instructor sends the class to a section; every student's page says where.
    await t.click(byId('pace-optimizers-momentum-0'));
    for (const s of students) {
      await until(async () => /section 1/.test(await text(s.page, 'class-pace')), 15_000, 'the pace on the student page');
      assert.match(await s.page.locator(byId('class-pace-link')).getAttribute('href'), /lesson\.html\?id=optimizers-momentum#section-1$/);
    }
    // An id the course does not have ("course" names the course's outline, not a lesson), sent as
    // any page could, is refused by the server with the reason; the board is untouched.
    const api = (p, body) => fetch(`${classUrl}/api/classes/${code}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const odd = await (await api('/join', { nickname: 'Cy' })).json();
    const refused = await api('/predictions', { student: odd.student, lesson: 'course', section: 3, choice: 4 });
    assert.equal(refused.status, 400);
    assert.match((await refused.json()).error, /the course has no lesson course/);
    assert.equal(await t.locator(byId('locked-optimizers-momentum-0')).textContent(), '2', 'the board still drawn');
    // Another device: the instructor's secret lists the class and reopens its dashboard.
    const elsewhere = await launch({ webgpu: false });
    try {
      const e = elsewhere.page;
      await e.goto(`${server.url}class.html?server=${encodeURIComponent(classUrl)}`);
      await e.fill(byId('class-secret'), SECRET);
      await e.click(byId('class-mine'));
      await e.click(byId(`class-reopen-${code}`));
      await until(async () => (await e.locator(byId('locked-optimizers-momentum-0')).textContent().catch(() => '')) === '2', 30_000, 'the class on another device');
      assert.deepEqual(elsewhere.errors, []);
    } finally {
      await elsewhere.browser.close();
    }
    // Leaving the class asks first (the dialog dismissed here): the class stays.
    t.once('dialog', (d) => d.dismiss());
    await t.click(byId('class-close'));
    assert.equal(await t.locator(byId('class-code')).textContent(), code);
    for (const s of [teacher, ...students]) assert.deepEqual(s.errors, []);
  } finally {
    for (const s of [teacher, ...students]) await s.browser.close();
  }
});

// Over HTTPS both ways: a course site served over HTTPS can only call an HTTPS class server (a
// browser blocks mixed content). The site and `lab-class --tls-cert --tls-key` on loopback share
// one self-signed certificate (Debian's openssl makes it; the browser is told to accept it).
test('over HTTPS: the site and the class server both on TLS, a student joins and locks, the dashboard sees it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-class-tls-'));
  const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  const site = await serve(undefined, { tls: { cert: fs.readFileSync(cert), key: fs.readFileSync(key) } });
  const tlsDb = path.join(dir, 'class.sqlite');
  const secure = spawn(BIN, ['--db', tlsDb, '--port', '0', '--origin', site.url.replace(/\/$/, ''), '--tls-cert', cert, '--tls-key', key, '--anyone-opens-classes'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const extraArgs = ['--ignore-certificate-errors'];
  const teacher = await launch({ webgpu: false, extraArgs });
  const student = await launch({ webgpu: false, extraArgs });
  try {
    const line = await new Promise((resolve, reject) => {
      secure.on('error', reject);
      readline.createInterface({ input: secure.stdout }).once('line', resolve);
    });
    const secureUrl = line.match(/https:\/\/\S+/)[0];
    assert.match(site.url, /^https:/);
    const t = teacher.page;
    await t.goto(`${site.url}class.html?server=${encodeURIComponent(secureUrl)}`);
    await t.fill(byId('class-title'), 'Over TLS');
    await t.click(byId('class-create'));
    const code = await t.locator(byId('class-code')).textContent();
    assert.match(code, /^[A-Z2-9]{6}$/);
    const p = student.page;
    await p.goto(await t.locator(byId('class-join-link')).getAttribute('href'));
    await p.fill(byId('class-nickname'), 'Ada');
    await p.click(byId('class-join'));
    await until(async () => /as Ada/.test(await text(p, 'class-note')), 10_000, 'Ada joined over TLS');
    await p.goto(`${site.url}lesson.html?id=optimizers-momentum`);
    await p.locator(byId('choice-0-1')).check();
    await p.click(byId('lock-0'));
    await until(async () => (await t.locator(byId('locked-optimizers-momentum-0')).textContent().catch(() => '')) === '1', 30_000, 'the lock on the dashboard');
    for (const s of [teacher, student]) assert.deepEqual(s.errors, []);
  } finally {
    for (const s of [teacher, student]) await s.browser.close();
    secure.kill();
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The reveal comes only after the class server has the student's answers: a prediction it did
// not take (here refused with a 400, as it answers a request it will never take) keeps the lab
// from running, with the reason and the lock button back; a result it did not take keeps the
// reveal, with a button to send the result again.
test('a lock or a result the server did not take: no lab run, no reveal, until it has them', async () => {
  const opened = await fetch(`${classUrl}/api/classes`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` }, body: JSON.stringify({ title: 'unreachable' }),
  });
  const { code } = await opened.json();
  const student = await launch({ webgpu: false });
  try {
    const p = student.page;
    await p.goto(`${server.url}course.html?class=${code}&server=${encodeURIComponent(classUrl)}`);
    await p.fill(byId('class-nickname'), 'Cy');
    await p.click(byId('class-join'));
    await until(async () => /as Cy/.test(await text(p, 'class-note')), 10_000, 'Cy joined');
    // The server refuses, as Playwright answers for it (its preflight allowed, the refusal readable).
    const refuse = (route) => route.fulfill(route.request().method() === 'OPTIONS'
      ? { status: 204, headers: { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': 'POST' } }
      : { status: 400, contentType: 'application/json', headers: { 'access-control-allow-origin': '*' }, body: '{"error":"refused by the test"}' });
    const predictions = `${classUrl}/api/classes/${code}/predictions`;
    const results = `${classUrl}/api/classes/${code}/results`;
    await p.route(predictions, refuse);
    await p.goto(`${server.url}lesson.html?id=optimizers-momentum`);
    await p.locator(byId('choice-0-1')).check();
    await p.click(byId('lock-0'));
    await until(async () => /did not reach your class's server \(refused by the test\)/.test(await text(p, 'lesson-status-0')), 10_000, 'the refusal said');
    assert.equal(await p.locator(byId('lab-0')).getAttribute('data-lab'), null, 'the lab did not start');
    assert.equal(await p.locator(byId('lock-0')).isEnabled(), true, 'lock in again');
    assert.equal(await p.locator(byId('reveal-0')).isVisible(), false);
    // Taken now; the result is refused: measured, but no reveal until it is sent again.
    await p.unroute(predictions);
    await p.route(results, refuse);
    await p.click(byId('lock-0'));
    await until(async () => p.locator(byId('resend-0')).isVisible(), 60_000, 'the result refused, a button to send it again');
    assert.match(await text(p, 'lesson-status-0'), /your result did not reach your class's server/);
    assert.equal(await p.locator(byId('reveal-0')).isVisible(), false, 'no reveal before the server has the result');
    await p.unroute(results);
    await p.click(byId('resend-0'));
    await until(async () => p.locator(byId('reveal-0')).isVisible(), 15_000, 'the reveal once the result is taken');
    const board = await fetch(`${classUrl}/api/classes/${code}/results`, { headers: { authorization: `Bearer ${SECRET}` } });
    const sections = (await board.json()).sections;
    assert.deepEqual([sections[0].predictions, sections[0].results.length], [[['Cy', 1]], 1], 'the server has both');
  } finally {
    await student.browser.close();
  }
});
