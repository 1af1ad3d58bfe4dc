// The instructor's class dashboard (class.html): open a class on a class server with the
// instructor's secret (a join code for the students, a private key kept in this browser; on
// another device the secret lists the instructor's classes and reopens them), then watch, section by section, how many
// have locked in, the class's predictions as a histogram beside what their runs measured, and
// release held reveals; the CSV export is a link. It reads the class whenever the server says it
// changed (server-sent events), and every 10 s besides.
(function () {
  const KEY = 'training-lab-instructor-v1';
  const root = document.getElementById('class-root');
  const escape = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const params = new URLSearchParams(location.search);
  let cls = (() => {
    try {
      const c = JSON.parse(localStorage.getItem(KEY));
      return c !== null && typeof c === 'object' && !Array.isArray(c) ? c : null;
    } catch { return null; }
  })();
  const lessons = new Map();

  async function lessonFile(id) {
    if (!lessons.has(id)) lessons.set(id, fetch(`lessons/${id}.json`).then((r) => (r.ok ? r.json() : null)).catch(() => null));
    return lessons.get(id);
  }

  // Keys and secrets travel in the Authorization header, never in a URL (history, logs, referrers).
  const auth = () => ((cls && (cls.key || cls.secret)) ? { authorization: `Bearer ${cls.key || cls.secret}` } : {});

  async function answer(r) {
    const a = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(a.error || `HTTP ${r.status}`);
    return a;
  }

  async function api(method, path, body, base = '/api/classes') {
    const headers = { ...auth(), ...(body ? { 'content-type': 'application/json' } : {}) };
    return answer(await fetch(`${cls.server}${base}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined }));
  }

  /** Downloads the class's CSV (`layout`) through the header, as a file. */
  async function download(layout, name) {
    const r = await fetch(`${cls.server}/api/classes/${cls.code}/export.csv?layout=${layout}`, { headers: auth() });
    if (!r.ok) throw new Error((await r.json().catch(() => ({}))).error || `HTTP ${r.status}`);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(await r.blob());
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
  }

  function openForm() {
    const form = document.createElement('form');
    form.dataset.testid = 'class-open';
    form.innerHTML = `
      <p><label>Class server <input name="server" data-testid="class-server" size="34" required value="${escape(params.get('server') || 'http://127.0.0.1:8090')}"></label></p>
      <p><label>Your instructor secret <input name="secret" type="password" data-testid="class-secret" size="34" autocomplete="current-password"></label>
        <button type="button" data-testid="class-mine">My classes on this server</button></p>
      <ul data-testid="class-mine-list"></ul>
      <p><label>Title <input name="title" data-testid="class-title" size="34" maxlength="80" required value="Today's class"></label></p>
      <p><label><input type="checkbox" name="hold" data-testid="class-hold"> Hold each reveal until I release it</label></p>
      <button class="primary" data-testid="class-create">Open a class</button>
      <p role="status" data-testid="class-open-problem"></p>`;
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const server = form.server.value.trim().replace(/\/$/, '');
      const secret = form.secret.value.trim();
      cls = { server, secret };
      try {
        const r = await api('POST', '', { title: form.title.value, hold: form.hold.checked });
        cls = { server, code: r.code, key: r.key, title: form.title.value };
        localStorage.setItem(KEY, JSON.stringify(cls));
        form.remove();
        dashboard();
      } catch (err) {
        form.querySelector('[data-testid="class-open-problem"]').textContent = `The class could not be opened: ${err.message}.`;
      }
    });
    // Another device: the secret lists the instructor's classes; each reopens with it.
    form.querySelector('[data-testid="class-mine"]').addEventListener('click', async () => {
      const list = form.querySelector('[data-testid="class-mine-list"]');
      cls = { server: form.server.value.trim().replace(/\/$/, ''), secret: form.secret.value.trim() };
      try {
        const mine = await api('GET', '/classes', null, '/api/instructor');
        list.innerHTML = mine.classes.length ? '' : '<li>No class of yours on this server yet.</li>';
        for (const c of mine.classes) {
          const li = document.createElement('li');
          const open = document.createElement('button');
          open.type = 'button';
          open.dataset.testid = `class-reopen-${c.code}`;
          open.textContent = `Open ${c.code}: ${c.title}`;
          open.addEventListener('click', () => {
            cls = { server: cls.server, secret: cls.secret, code: c.code, title: c.title };
            localStorage.setItem(KEY, JSON.stringify(cls));
            form.remove();
            dashboard();
          });
          li.append(open);
          list.append(li);
        }
      } catch (err) {
        list.innerHTML = `<li>${escape(`Your classes could not be listed: ${err.message}.`)}</li>`;
      }
    });
    root.append(form);
  }

  function dashboard() {
    const join = new URL(`course.html?class=${cls.code}&server=${encodeURIComponent(cls.server)}`, location.href).href;
    const head = document.createElement('section');
    head.innerHTML = `
      <p class="code">Class code <b data-testid="class-code">${escape(cls.code)}</b> · students open
        <a data-testid="class-join-link" href="${escape(join)}">${escape(join)}</a></p>
      <p class="note">${cls.key ? 'Your instructor key stays in this browser; with it (or your instructor secret, from any device) the server shows you the class.' : 'Opened with your instructor secret.'}
        <button type="button" data-testid="class-csv">Export as CSV</button>
        <button type="button" data-testid="class-gradebook">for a gradebook</button> ·
        <button type="button" data-testid="class-close">Open another class</button></p>`;
    for (const [id, layout, name] of [['class-csv', 'long', 'class.csv'], ['class-gradebook', 'gradebook', 'class-gradebook.csv']]) {
      const b = head.querySelector(`[data-testid="${id}"]`);
      b.addEventListener('click', () => download(layout, name).catch((err) => { b.textContent = `Not exported: ${err.message}`; }));
    }
    head.querySelector('[data-testid="class-close"]').addEventListener('click', () => {
      // The key may be this class's only way in from this browser: never dropped without asking.
      const again = cls.key ? `its key (${cls.key}) or your instructor secret opens it again` : 'your instructor secret opens it again';
      if (!window.confirm(`Leave class ${cls.code} on this device? ${again}.`)) return;
      localStorage.removeItem(KEY);
      location.reload();
    });
    const board = document.createElement('div');
    board.dataset.testid = 'class-board';
    board.setAttribute('aria-live', 'polite');
    root.append(head, board);
    const refresh = async () => {
      try {
        await render(board, await api('GET', `/${cls.code}/results`));
      } catch (err) {
        board.dataset.problem = err.message;
      }
    };
    // Live: the server says when the class changes (server-sent events); a slow read every 10 s
    // covers a network that cuts the stream.
    // The stream takes a one-use ticket (an EventSource sends no header); a cut stream gets a new one.
    const listen = async () => {
      try {
        const { ticket } = await api('POST', `/${cls.code}/ticket`);
        const live = new EventSource(`${cls.server}/api/classes/${cls.code}/events?ticket=${ticket}`);
        live.addEventListener('change', () => { board.dataset.live = 'events'; refresh(); });
        live.onerror = () => { live.close(); setTimeout(listen, 5000); };
      } catch { setTimeout(listen, 10000); }
    };
    listen();
    refresh();
    setInterval(refresh, 10000);
  }

  async function render(board, data) {
    if (data.sections.length === 0) {
      board.innerHTML = '<p>No prediction yet: the sections appear as students lock in.</p>';
      return;
    }
    const parts = [];
    for (const s of data.sections) {
      // Whatever a lesson id names (another file, none, a malformed lesson), the board draws.
      const file = await lessonFile(s.lesson);
      const lesson = file && Array.isArray(file.sections) ? file : null;
      const found = lesson && lesson.sections[s.section];
      const section = found && found.predict && Array.isArray(found.predict.choices) ? found : null;
      const choices = section ? section.predict.choices.map((c) => String(c && c.text)) : s.counts.map((_, k) => `choice ${k + 1}`);
      const most = Math.max(1, ...s.counts);
      const bars = choices.map((text, k) => {
        const n = s.counts[k] || 0;
        return `<div class="bar"><span class="label">${escape(text)}</span><span class="fill" style="width:${(100 * n) / most}%"></span><b data-testid="count-${s.lesson}-${s.section}-${k}">${n}</b></div>`;
      }).join('');
      const numbers = s.results.map((r) => parseFloat(String(r[1]).replace(/,/g, ''))).filter(Number.isFinite).sort((a, b) => a - b);
      const spread = numbers.length
        ? `measured ${numbers.length}×: ${numbers[0]} to ${numbers[numbers.length - 1]}, median ${numbers[Math.floor(numbers.length / 2)]}`
        : `${s.results.length} result(s)`;
      const release = data.hold && !s.released
        ? `<button type="button" data-release="${escape(s.lesson)}|${s.section}" data-testid="release-${s.lesson}-${s.section}">Release the reveal</button>` : '';
      parts.push(`<section class="class-section" data-testid="class-${s.lesson}-${s.section}">
        <h2>${escape(lesson ? lesson.title : s.lesson)} · ${escape(section ? section.heading : `section ${s.section + 1}`)}</h2>
        <p><b data-testid="locked-${s.lesson}-${s.section}">${s.locked}</b> locked in · <span data-testid="spread-${s.lesson}-${s.section}">${escape(spread)}</span></p>
        <div class="bars" role="img" aria-label="${escape(choices.map((t, k) => `${t}: ${s.counts[k] || 0}`).join('; '))}">${bars}</div>
        <p class="note">${s.results.map((r) => `${escape(r[0])}: ${escape(r[1])}`).join(' · ')}</p>${release}
        <button type="button" data-pace="${escape(s.lesson)}|${s.section}" data-testid="pace-${s.lesson}-${s.section}">Send the class here</button></section>`);
    }
    board.innerHTML = parts.join('');
    for (const b of board.querySelectorAll('[data-release]')) {
      b.addEventListener('click', async () => {
        const [lesson, section] = b.dataset.release.split('|');
        await api('POST', `/${cls.code}/release`, { key: cls.key || cls.secret, lesson, section: Number(section) }).catch(() => {});
      });
    }
    for (const b of board.querySelectorAll('[data-pace]')) {
      b.addEventListener('click', async () => {
        const [lesson, section] = b.dataset.pace.split('|');
        await api('POST', `/${cls.code}/pace`, { key: cls.key || cls.secret, lesson, section: Number(section) })
          .then(() => { b.textContent = 'Sent: the class is told'; })
          .catch((err) => { b.textContent = `Not sent: ${err.message}`; });
      });
    }
  }

  if (cls && cls.code && (cls.key || cls.secret) && (!params.get('server') || params.get('server').replace(/\/$/, '') === cls.server)) dashboard();
  else openForm();
})();
