// A lesson page in a class (optional): with `?class=CODE&server=URL` (kept in this browser
// afterwards), the student joins with a nickname, and each locked prediction and each measured
// result goes to the class server as well as to this browser. Without a class, or when the
// server does not answer, the page works as before and says so. lesson.js calls the functions
// of window.TrainingLabClass; they never throw.
(function () {
  const KEY = 'training-lab-class-v1';
  // Anything but an object there (another page's value, a hand edit) is no class.
  const load = () => {
    try {
      const c = JSON.parse(window.TrainingLabKeep.get(KEY));
      return c !== null && typeof c === 'object' && !Array.isArray(c) ? c : null;
    } catch { return null; }
  };
  // Kept by keep.js: in this browser, or in a frame of another site only for this page's life.
  const save = (c) => { if (c) window.TrainingLabKeep.set(KEY, JSON.stringify(c)); else window.TrainingLabKeep.remove(KEY); };
  const params = new URLSearchParams(location.search);
  // An instructor's preview of a lesson file (lesson.html?preview) is no lesson of the class: it
  // sends nothing, and never waits for a release.
  const previewing = params.has('preview');
  let cls = load();
  if (params.get('class') && params.get('server')) {
    const code = params.get('class').toUpperCase();
    const server = params.get('server').replace(/\/$/, '');
    if (/^[A-Z0-9]{6}$/.test(code) && /^https?:\/\//.test(server) && (!cls || cls.code !== code || cls.server !== server)) {
      cls = { code, server };
      save(cls);
    }
  }
  let note = null;
  const say = (text) => { if (note) note.textContent = text; };

  // One request, tried again on what passes (no answer, a server restarting, 429 or 5xx) after
  // 1, 2, 4, 8 s (or what Retry-After asks): a lecture hall's burst must not lose a lock.
  async function call(method, path, body) {
    const waits = [1000, 2000, 4000, 8000];
    // One key for this request and all its retries: the server answers a retry as it answered the
    // first try, and changes nothing (an old result's late retry cannot overwrite a newer one).
    const idem = method === 'POST'
      ? Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')
      : null;
    for (let attempt = 0; ; attempt++) {
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(), 8000);
      let retry = null;
      try {
        const headers = body ? { 'content-type': 'application/json' } : {};
        // The server budgets each student's requests by this (their class's token).
        if (cls.student) headers['x-lab-student'] = cls.student;
        if (idem) headers['idempotency-key'] = idem;
        const r = await fetch(`${cls.server}/api/classes/${cls.code}${path}`, {
          method, signal: ctl.signal, headers, body: body ? JSON.stringify(body) : undefined,
        });
        const answer = await r.json().catch(() => ({}));
        if (r.ok) return answer;
        const error = new Error(answer.error || `HTTP ${r.status}`);
        if (r.status !== 429 && r.status < 500) throw error;
        retry = { error, after: Number(r.headers.get('retry-after')) * 1000 || 0 };
      } catch (err) {
        if (!retry && (err.name !== 'AbortError' && !(err instanceof TypeError))) throw err;
        retry = retry || { error: err, after: 0 };
      } finally {
        clearTimeout(timer);
      }
      if (attempt >= waits.length) throw retry.error;
      await new Promise((r) => setTimeout(r, Math.max(waits[attempt], retry.after)));
    }
  }

  // The class's live stream (one per page, no token: releases and pacing are the class's news):
  // `heard[event]` handles each; a page that cannot keep it open falls back to asking.
  const heard = {};
  let stream = null;
  function listen() {
    if (stream || typeof EventSource !== 'function') return;
    stream = new EventSource(`${cls.server}/api/classes/${cls.code}/live`);
    for (const event of ['release', 'pace', 'resync']) {
      stream.addEventListener(event, (e) => {
        let data = {};
        try { data = JSON.parse(e.data); } catch { /* a malformed event is no event */ }
        if (heard[event]) heard[event](data);
      });
    }
  }

  /** The class bar at the top of the page: join with a nickname, or who you are, and leave. */
  function bar(root) {
    if (!cls) return;
    const box = document.createElement('section');
    box.className = 'class-bar';
    box.setAttribute('aria-label', 'your class');
    box.dataset.testid = 'class-bar';
    note = document.createElement('p');
    note.setAttribute('role', 'status');
    note.dataset.testid = 'class-note';
    const leave = document.createElement('button');
    leave.type = 'button';
    leave.textContent = 'Leave the class';
    leave.addEventListener('click', () => { save(null); location.href = location.pathname + location.search.replace(/([?&])(class|server)=[^&]*/g, '$1'); });
    if (cls.student) {
      say(`In class ${cls.code} as ${cls.nickname}: your locked predictions and results go to your instructor.`);
      const pace = document.createElement('p');
      pace.dataset.testid = 'class-pace';
      pace.setAttribute('role', 'status');
      box.append(note, pace, leave);
      listen();
      heard.pace = ({ lesson, section }) => {
        if (typeof lesson !== 'string' || !/^[a-z0-9-]{1,64}$/.test(lesson) || !Number.isInteger(section)) return;
        pace.innerHTML = '';
        const go = document.createElement('a');
        go.href = `lesson.html?id=${lesson}#section-${section + 1}`;
        go.dataset.testid = 'class-pace-link';
        go.textContent = `${lesson}, section ${section + 1}`;
        pace.append('Your instructor has sent the class to ', go, '.');
      };
    } else {
      const form = document.createElement('form');
      form.innerHTML = `<label>Join class ${cls.code} with a nickname (nothing else is asked): <input data-testid="class-nickname" maxlength="40" required></label> <button class="primary" data-testid="class-join">Join</button>`;
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        const nickname = form.querySelector('input').value.trim();
        try {
          const r = await call('POST', '/join', { nickname });
          cls = { ...cls, student: r.student, nickname };
          save(cls);
          form.remove();
          say(`In class ${cls.code} as ${nickname}: your locked predictions and results go to your instructor.`);
        } catch (err) {
          say(`Could not join class ${cls.code}: ${err.message}. The lessons work without it.`);
        }
      });
      box.append(form, note, leave);
      say('');
    }
    root.prepend(box);
  }

  /** Sends a locked prediction: `{ choice }`, the choice the server holds (the first lock
   *  stands; `choice` itself when there is no class), or `{ error }` when the server did not take
   *  it — then the lab must not run, since its reveal would come before the instructor has the
   *  prediction. */
  async function lock(lesson, section, choice, state) {
    if (!cls || !cls.student || previewing) return { choice };
    try {
      const r = await call('POST', '/predictions', { student: cls.student, lesson, section, choice, state: state || '' });
      return { choice: Number.isInteger(r.choice) ? r.choice : choice };
    } catch (err) {
      say(`The class server did not take your prediction (${err.message}).`);
      return { error: err.message };
    }
  }

  /** Sends a measured result; resolves to `{}` once the reveal may show (at once without a
   *  class, or when the instructor releases a held reveal), or to `{ error }` when the server did
   *  not take the result (the reveal waits: the page offers to send it again). */
  async function result(lesson, section, measured, outcome, waiting) {
    if (!cls || !cls.student || previewing) return {};
    let released = true;
    try {
      released = (await call('POST', '/results', { student: cls.student, lesson, section, measured, outcome })).released !== false;
    } catch (err) {
      say(`The class server did not take your result (${err.message}).`);
      return { error: err.message };
    }
    if (released) return {};
    waiting();
    // The release comes on the class's stream; asking every 15 s covers a stream cut by the network.
    listen();
    const ask = async () => {
      try { return (await call('GET', `/released?lesson=${encodeURIComponent(lesson)}&section=${section}`)).released === true; } catch { return false; }
    };
    await new Promise((resolve) => {
      const done = () => { clearInterval(timer); heard.release = null; heard.resync = null; resolve(); };
      heard.release = (r) => { if (r.lesson === lesson && r.section === section) done(); };
      heard.resync = async () => { if (await ask()) done(); };
      const timer = setInterval(async () => { if (await ask()) done(); }, 15000);
    });
    return {};
  }

  window.TrainingLabClass = { bar, lock, result, joined: () => Boolean(cls && cls.student) };
})();
