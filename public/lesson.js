// Training Lab lessons: renders a lesson file (lessons/<id>.json) as predict-then-run sections,
// and the course index with each student's progress, kept in localStorage under PROGRESS (or,
// where the browser keeps none for the page, in its memory: keep.js; and, in a class, sent to its
// server by class-link.js). The format: the book's instructor chapter.
(function () {
  const PROGRESS = 'training-lab-course-v1';

  // ---- progress (localStorage, or this page's memory where there is none: keep.js) ----
  // What another page, an older version or a person wrote there may be anything: only objects
  // of objects are kept, so a stray value can never make saving a prediction throw.
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  function loadProgress() {
    let all;
    try { all = JSON.parse(window.TrainingLabKeep.get(PROGRESS)); } catch { return {}; }
    if (!isObject(all)) return {};
    for (const [id, entry] of Object.entries(all)) {
      if (!isObject(entry) || !isObject(entry.sections)) { delete all[id]; continue; }
      for (const [k, s] of Object.entries(entry.sections)) if (!isObject(s)) delete entry.sections[k];
    }
    return all;
  }
  function saveSection(lessonId, index, entry) {
    const all = loadProgress();
    all[lessonId] = all[lessonId] || { sections: {} };
    all[lessonId].sections[index] = { ...(all[lessonId].sections[index] || {}), ...entry };
    window.TrainingLabKeep.set(PROGRESS, JSON.stringify(all));
  }

  // ---- text: paragraphs with *italic*, **bold**, `code` and [links](url), everything else
  // escaped; a link goes to http(s) or a relative path only (no javascript: or data: URLs) ----
  const escape = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  function inline(s) {
    return escape(s)
      .replace(/`([^`]+)`/g, '<code>$1</code>')
      .replace(/\*\*([^*]+)\*\*/g, '<b>$1</b>')
      .replace(/\*([^*]+)\*/g, '<i>$1</i>')
      .replace(/\[([^\]]+)\]\(([^\s()]+)\)/g, (all, label, url) => (/^https?:\/\//i.test(url) || !url.includes(':'))
        ? `<a href="${url}" target="_blank" rel="noopener">${label}</a>` : all);
  }
  const paragraphs = (s) => String(s || '').split(/\n\s*\n/).filter((p) => p.trim()).map((p) => `<p>${inline(p)}</p>`).join('');
  function el(tag, attrs = {}, html = '') {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    e.innerHTML = html;
    return e;
  }

  // ---- measurements (lesson-measure.js): a metric's number, arithmetic over metrics ----
  const { number, evaluate, measure, metricsRead, ready, outcome } = window.TrainingLabMeasure;
  const show = (section, value) => typeof value === 'string' ? value
    : `${value.toFixed(section.measure.digits ?? 2)}${section.measure.unit ? ` ${section.measure.unit}` : ''}`;

  // ---- one section: question, prediction, the lab, the reveal ----
  function renderSection(lesson, section, index, saved) {
    const box = el('section', { class: 'lesson-section', id: `section-${index + 1}`, 'data-testid': `lesson-section-${index}` });
    box.append(el('h2', {}, `${index + 1}. ${inline(section.heading)}`));
    box.append(el('div', { class: 'question' }, paragraphs(section.question)));
    const form = el('form', { class: 'predict', 'data-testid': `predict-${index}` });
    const choices = section.predict.choices;
    // The choices are one named group, so a screen reader says what they answer.
    const group = el('fieldset', { class: 'choices' });
    group.append(el('legend', { class: 'prompt' }, '<b>Your prediction</b> (locked once you run the lab):'));
    choices.forEach((c, k) => {
      const label = el('label', { class: 'choice' });
      const input = el('input', { type: 'radio', name: `p${index}`, value: String(k), 'data-testid': `choice-${index}-${k}` });
      label.append(input, document.createTextNode(' ' + c.text));
      group.append(label);
    });
    form.append(group);
    const lock = el('button', { type: 'submit', class: 'primary', disabled: '', 'data-testid': `lock-${index}` }, 'Lock in and run the lab');
    form.append(lock);
    form.addEventListener('change', () => { lock.disabled = !form.querySelector('input:checked'); });
    box.append(form);
    const labBox = el('div', { class: 'lab', 'data-testid': `lab-${index}` });
    const status = el('p', { class: 'note', 'data-testid': `lesson-status-${index}`, role: 'status' });
    const reveal = el('div', { class: 'reveal', hidden: '', 'data-testid': `reveal-${index}` });
    box.append(labBox, status, reveal);

    let revealed = false;
    let ranOnce = false;
    async function run(choice) {
      for (const input of form.querySelectorAll('input, button')) input.disabled = true;
      // In a class, the server holds the first lock: a prediction locked earlier (another
      // device) stands. The lab runs only once the server has the prediction: its reveal must
      // not come first.
      const locked = window.TrainingLabClass ? await window.TrainingLabClass.lock(lesson.id, index, choice, section.state) : { choice };
      if (locked.error) {
        status.textContent = `Your prediction did not reach your class's server (${locked.error}), and your instructor needs it before ` +
          'the lab runs. Check your connection and lock in again (or leave the class to go on alone).';
        for (const input of form.querySelectorAll('input, button')) input.disabled = false;
        return;
      }
      const held = locked.choice;
      if (held !== choice && section.predict.choices[held]) {
        showLocked(held);
        choice = held;
      }
      saveSection(lesson.id, index, { prediction: choice, question: section.heading });
      status.textContent = 'The lab is starting…';
      labBox.dataset.lab = lesson.lab;
      labBox.dataset.state = section.state || '';
      // The chart the question needs comes first in the lab, under the prediction on a phone.
      if (section.chart) labBox.dataset.focus = section.chart;
      window.TrainingLab.mountAll();
      // Labs that wait for their Run button are started as soon as they can be. The lab listens
      // from its first report on, so it is asked then, and again at each report while no ask is
      // unanswered (the button is disabled while a lab loads its data: the answer is no, and the
      // report that its data came asks again); every second besides, in case an ask was lost.
      let started = !section.start;
      let startedAt = Date.now();
      let unanswered = false;
      let heard = false;
      const ask = () => { unanswered = true; window.TrainingLab.send(labBox, { type: 'lab-start' }); };
      const asking = started ? null : setInterval(ask, 1000);
      labBox.addEventListener('lab-ack', (e) => {
        if (e.detail.of !== 'lab-start') return;
        unanswered = false;
        if (e.detail.ok) { started = true; startedAt = Date.now(); clearInterval(asking); }
      });
      // The lab reports only changes: once its run is over nothing more comes, so the last
      // report is looked at again every half second until the reveal.
      let last = null;
      const again = setInterval(() => { if (revealed) clearInterval(again); else if (last) consider(last); }, 500);
      labBox.addEventListener('lab-metrics', (e) => {
        last = e.detail;
        if (!started && (!heard || !unanswered)) ask();
        heard = true;
        consider(last);
      });
      function consider(m) {
        if (!started) { status.textContent = 'Starting the run…'; return; }
        if (revealed) return;
        let value;
        try { value = measure(section, m); } catch (err) { status.textContent = `This lesson's measure is wrong: ${err.message}`; return; }
        if (m.running) ranOnce = true;
        if (!ready(section, m, value)) {
          // The run ended without what the section reads: say which, instead of "Running" forever.
          const missing = metricsRead(section).filter((n) => ((m.metrics && m.metrics[n]) ?? (m.readouts && m.readouts[n])) === undefined);
          // (A run over before the lab reported it running counts once the lab has had 5 s.)
          if ((ranOnce || Date.now() - startedAt > 5000) && m.running === false && missing.length > 0) {
            const ended = `The lab's run ended without ${missing.map((n) => `“${n}”`).join(' and ')}, which this section measures: ` +
              'the lesson names a metric the lab does not publish (lab lesson check finds it), or the run stopped before it.';
            if (status.textContent !== ended) status.textContent = ended;
            return;
          }
          const running = `Running: ${m.status || 'working'}`;
          if (status.textContent !== running) status.textContent = running;
          return;
        }
        revealed = true;
        const k = outcome(section, value);
        saveSection(lesson.id, index, { measured: show(section, value), outcome: k, done: true });
        // The lab pauses where it was measured (a student reading the reveal sees the run it
        // explains, and the next section's lab gets the processor); its own buttons go on.
        window.TrainingLab.send(labBox, { type: 'lab-pause' });
        // The status region is what a screen reader announces: the verdict goes there too.
        status.textContent = `Measured ${show(section, value)}: ${k === choice ? 'as you predicted' : 'not what you predicted'}. ` +
          'The lab stops here; its own buttons carry on.';
        const reveal = () => showReveal(section, index, choice, value, k);
        if (!window.TrainingLabClass || !window.TrainingLabClass.joined()) { reveal(); return; }
        // In a class the result goes to the instructor; a held reveal waits for the release, and
        // every reveal waits for the server to have the result.
        const send = () => window.TrainingLabClass.result(lesson.id, index, show(section, value), k, () => {
          status.textContent = 'Measured. Your instructor reveals this section to the class together: the reveal shows when they release it.';
        }).then((r) => {
          if (!r.error) { reveal(); return; }
          status.textContent = `Measured ${show(section, value)}, but your result did not reach your class's server (${r.error}): ` +
            'the reveal shows once it has it.';
          const again = el('button', { type: 'button', 'data-testid': `resend-${index}` }, 'Send my result again');
          again.addEventListener('click', () => { again.remove(); status.textContent = 'Sending your result…'; send(); });
          status.after(again);
        });
        send();
      }
    }
    // A run can land on another choice than the one the lesson explains (another seed, another
    // backend, a setting changed): its own why comes first, then the lesson's.
    function explanation(section, k) {
      const own = k >= 0 && k !== section.claim ? section.predict.choices[k].why : undefined;
      if (own) {
        return `<h3>Why this run landed here</h3><div data-testid="why-outcome-${index}">${paragraphs(own)}</div>` +
          `<h3>What the lesson expected, and why</h3>${paragraphs(section.why)}`;
      }
      if (k < 0) {
        return '<h3>Why</h3><p>The measurement fell outside every choice: the run may have stopped early or diverged; the lab\'s page says how it ended.</p>' +
          `<h3>What the lesson expected, and why</h3>${paragraphs(section.why)}`;
      }
      return `<h3>Why</h3>${paragraphs(section.why)}`;
    }
    function showReveal(section, index, choice, value, k) {
      const right = k === choice;
      reveal.hidden = false;
      reveal.dataset.outcome = String(k);
      reveal.dataset.measured = typeof value === 'string' ? value : String(value);
      reveal.innerHTML =
        `<p class="verdict ${right ? 'right' : 'wrong'}" data-testid="verdict-${index}">${right ? '✓ As you predicted.' : '✗ Not what you predicted.'}</p>` +
        `<p>You predicted: <b>${inline(section.predict.choices[choice].text)}</b><br>` +
        `The lab measured ${inline(section.measure.label)}: <b data-testid="measured-${index}">${escape(show(section, value))}</b>` +
        ` → <b>${k >= 0 ? inline(section.predict.choices[k].text) : 'none of the choices'}</b></p>` +
        explanation(section, k) +
        (section.formula ? `<p class="formula">${inline(section.formula)}</p>` : '');
    }
    /** The prediction already locked for this section (in this tab, an earlier visit or another
     *  tab), or undefined. */
    const lockedChoice = () => ((loadProgress()[lesson.id] || {}).sections || {})[index]?.prediction;
    /** Shows `choice` as locked: picked, and no other can be picked. */
    function showLocked(choice) {
      for (const input of form.querySelectorAll('input')) {
        input.checked = Number(input.value) === choice;
        input.disabled = true;
      }
      lock.textContent = 'Run the lab (your prediction is locked)';
    }
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const picked = form.querySelector('input:checked');
      if (!picked) return;
      // A prediction locked in another tab since this page opened stands: the reveal is bound
      // to the first lock, never to a second guess.
      const earlier = lockedChoice();
      if (earlier !== undefined && earlier !== Number(picked.value)) {
        showLocked(earlier);
        status.textContent = `Your prediction was already locked in another tab: “${section.predict.choices[earlier]?.text ?? ''}”.`;
        run(earlier);
        return;
      }
      run(Number(picked.value));
    });
    // Locked in another tab while this one is open: shown here at once.
    window.addEventListener('storage', (e) => {
      if (e.key !== PROGRESS || revealed) return;
      const earlier = lockedChoice();
      if (earlier !== undefined && !form.querySelector('input:disabled')) {
        showLocked(earlier);
        lock.disabled = false;
      }
    });
    if (saved && saved.prediction !== undefined) {
      showLocked(saved.prediction);
      lock.disabled = false;
      status.textContent = saved.done
        ? `Last time the lab measured ${saved.measured}. Run it again to see it live; your prediction stays as you locked it.`
        : 'Your prediction is locked; run the lab to see what it measures.';
    }
    return box;
  }

  /** Why `lesson` cannot be shown (the first problem found), or null: a malformed lesson file is
   *  named with its reason instead of breaking the page, and the course lists the others. */
  function lessonProblem(lesson) {
    const text = (v) => typeof v === 'string' && v.length > 0;
    if (!lesson || typeof lesson !== 'object' || Array.isArray(lesson)) return 'not a lesson file (a JSON object)';
    if (!text(lesson.title)) return 'no title';
    if (!text(lesson.lab)) return 'no lab';
    if (!Array.isArray(lesson.sections) || lesson.sections.length === 0) return 'no sections';
    for (const [i, s] of lesson.sections.entries()) {
      const at = `section ${i + 1}`;
      if (!s || typeof s !== 'object') return `${at} is not an object`;
      if (!text(s.heading) || !text(s.question)) return `${at}: a heading and a question`;
      if (s.state !== undefined && typeof s.state !== 'string') return `${at}: its state is a query string`;
      const choices = s.predict && s.predict.choices;
      if (!Array.isArray(choices) || choices.length < 2 || !choices.every((c) => c && text(c.text))) return `${at}: at least two choices, each with a text`;
      if (!s.measure || typeof s.measure !== 'object' || !text(s.measure.label)) return `${at}: a measure with a label`;
      if (!Number.isInteger(s.claim) || s.claim < 0 || s.claim >= choices.length) return `${at}: its claim is one of its choices`;
    }
    return null;
  }

  async function fetchJson(url) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: ${r.status}`);
    return r.json();
  }

  // Several courses: `course.html?course=NAME` lists `lessons/NAME.json`'s lessons (default
  // `course`), and its lessons link back to it.
  const courseName = (() => { const c = new URLSearchParams(location.search).get('course') || 'course'; return /^[a-z0-9-]+$/.test(c) ? c : 'course'; })();
  const courseHref = courseName === 'course' ? 'course.html' : `course.html?course=${courseName}`;

  async function lessonPage(root) {
    // The preview (lesson-preview.js) renders with this file's own parts.
    if (new URLSearchParams(location.search).has('preview') && window.TrainingLabLessonPreview) {
      window.TrainingLabLessonPreview(root, { el, escape, inline, paragraphs, lessonProblem, renderSection, loadProgress, PROGRESS, courseHref });
      return;
    }
    const id = new URLSearchParams(location.search).get('id') || '';
    if (!/^[a-z0-9-]+$/.test(id)) { root.innerHTML = `<p>No such lesson. <a href="${courseHref}">Back to the course</a></p>`; return; }
    let lesson;
    try { lesson = await fetchJson(`lessons/${id}.json`); } catch (err) {
      root.innerHTML = `<p>This lesson could not be loaded (${escape(err.message)}). <a href="${courseHref}">Back to the course</a></p>`;
      return;
    }
    const problem = lessonProblem(lesson);
    if (problem) {
      root.innerHTML = `<p role="alert" data-testid="lesson-problem">The lesson “${escape(id)}” cannot be shown: ${escape(problem)}. <a href="${courseHref}">Back to the course</a></p>`;
      return;
    }
    lesson.id = id;
    document.title = `${lesson.title} — Training Lab`;
    if (window.TrainingLabClass) window.TrainingLabClass.bar(root);
    const saved = (loadProgress()[id] || {}).sections || {};
    root.append(el('p', { class: 'crumbs' }, `<a href="${courseHref}">Course</a>`));
    root.append(el('h1', { 'data-testid': 'lesson-title' }, inline(lesson.title)));
    const kept = keepNote();
    if (kept) root.append(kept);
    root.append(el('div', { class: 'intro' }, paragraphs(lesson.intro)));
    lesson.sections.forEach((s, i) => root.append(renderSection(lesson, s, i, saved[i])));
    root.append(el('p', { class: 'crumbs' }, `<a href="${courseHref}">Back to the course and your predictions</a>`));
    root.append(embedCode(lesson));
  }

  /** Where the browser keeps nothing for this page (a frame of another site that blocks
   *  third-party storage, a private window that refuses writes), a note saying where the
   *  student's predictions are kept, with the page in its own tab as the way to keep them. */
  function keepNote() {
    if (!window.TrainingLabKeep || window.TrainingLabKeep.persistent) return null;
    const note = el('p', { class: 'note', role: 'status', 'data-testid': 'keep-note' },
      'Your browser keeps nothing for this page here (a frame of another site, or a private window): your predictions ' +
      'and your class are kept on this page only, until it closes. ');
    note.append(el('a', { href: location.href, target: '_blank', rel: 'noopener' }, 'Open it in its own tab to keep them.'));
    return note;
  }

  /** "Copy embed code": the lesson as an iframe for a course page or an LMS (which keep no
   *  script), copied where the browser allows and shown to select. */
  function embedCode(lesson) {
    const box = el('div', { class: 'embed-code' });
    const button = el('button', { type: 'button', 'data-testid': 'lesson-copy-embed' }, 'Copy embed code');
    const label = el('label', { class: 'small', hidden: '' }, 'Embed code: an iframe of this lesson, for any course page or LMS (copied where the browser allows)');
    const code = el('textarea', { readonly: '', rows: '3', 'data-testid': 'lesson-embed-iframe' });
    label.append(code);
    button.addEventListener('click', () => {
      const src = new URL(`lesson.html?id=${encodeURIComponent(lesson.id)}`, document.baseURI).href;
      code.value = `<iframe src="${escape(src)}" width="100%" height="900" style="border:0; max-width:1000px" ` +
        `title="${escape(lesson.title)} (Training Lab)" allow="fullscreen" loading="lazy"></iframe>`;
      label.hidden = false;
      if (navigator.clipboard) navigator.clipboard.writeText(code.value).catch(() => { /* shown to select instead */ });
    });
    code.addEventListener('focus', () => code.select());
    box.append(button, label);
    return box;
  }

  /** A lesson's teacher notes (its file's `teacher`), shown in the course page's instructor view;
   *  '' when it has none or they are not lists of text. */
  function teacherNotes(lesson, id) {
    const t = lesson.teacher;
    const list = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : null;
    if (!t || typeof t !== 'object' || typeof t.goal !== 'string' || !list(t.misconceptions) || !list(t.discussion)) return '';
    const items = (v) => `<ul>${v.map((x) => `<li>${inline(x)}</li>`).join('')}</ul>`;
    return `<div class="teacher-notes" data-testid="teacher-${id}"><p><b>Goal:</b> ${inline(t.goal)}</p>` +
      `<p><b>Misconceptions it meets:</b></p>${items(t.misconceptions)}<p><b>For discussion:</b></p>${items(t.discussion)}</div>`;
  }

  /** The course's units: `units` (each a title, an intro, its reading and its lessons), or one
   *  untitled unit for a course file that lists `lessons` only. Null when it has neither. */
  function courseUnits(course) {
    if (course && Array.isArray(course.units)) return course.units.map((u) => ({ ...u, lessons: Array.isArray(u && u.lessons) ? u.lessons : [] }));
    if (course && Array.isArray(course.lessons)) return [{ lessons: course.lessons }];
    return null;
  }

  /** What a lesson needs: the CPU path when every section pins it, else either backend. */
  function needs(lesson) {
    return lesson.sections.every((s) => /(^|&)backend=cpu(&|$)/.test(s.state || ''))
      ? 'no GPU needed: runs on the CPU path'
      : 'no GPU needed; uses WebGPU where the lab and the browser do';
  }

  /** Once the service worker keeps the site (a visit after the first), the course says which of its
   *  lessons are saved for offline use and names the ones that are not, while still online. */
  async function offlineNote(root, ids) {
    if (!('caches' in window) || !navigator.serviceWorker || !navigator.serviceWorker.controller) return;
    let missing;
    try {
      const saved = await Promise.all(ids.map((id) => caches.match(new URL(`lessons/${id}.json`, document.baseURI).href)));
      missing = ids.filter((_, i) => !saved[i]);
    } catch { return; }
    const text = missing.length
      ? `Saved for offline use: ${ids.length - missing.length} of ${ids.length} lessons. Not saved: ${missing.map(escape).join(', ')} (they need a connection).`
      : `Saved for offline use: all ${ids.length} lessons.`;
    root.querySelector('[data-testid="course-lessons"]').after(el('p', { class: 'note', 'data-testid': 'course-offline' }, text));
  }

  async function coursePage(root) {
    if (window.TrainingLabClass) window.TrainingLabClass.bar(root);
    const kept = keepNote();
    if (kept) root.append(kept);
    let course;
    try { course = await fetchJson(`lessons/${courseName}.json`); } catch (err) { course = { error: err.message }; }
    let units = courseUnits(course);
    if (!units) {
      root.append(el('p', { role: 'alert', 'data-testid': 'course-problem' },
        `The course list (lessons/${courseName}.json) cannot be read: ${escape(course && course.error ? course.error : 'it needs "units" (or a "lessons" list)')}.`));
      units = [];
    }
    const progress = loadProgress();
    const list = el('div', { class: 'units', 'data-testid': 'course-lessons' });
    // The instructor's view: each lesson's teacher notes under it (`?teacher=1` opens with them).
    const showNotes = el('button', { type: 'button', 'aria-pressed': 'false', 'data-testid': 'course-teacher' }, 'Show teacher notes');
    const setNotes = (on) => {
      list.classList.toggle('with-teacher-notes', on);
      showNotes.setAttribute('aria-pressed', String(on));
      showNotes.textContent = on ? 'Hide teacher notes' : 'Show teacher notes';
    };
    showNotes.addEventListener('click', () => setNotes(!list.classList.contains('with-teacher-notes')));
    root.append(el('p', { class: 'teacher-toggle' }, 'For instructors: each lesson\'s goal, the misconceptions it meets and questions for discussion. '));
    root.lastChild.append(showNotes);
    setNotes(new URLSearchParams(location.search).get('teacher') === '1');
    const rows = [];
    const csvRows = [];
    // Every lesson file at once (a course has dozens); shown in the course's order.
    const ids = units.flatMap((u) => u.lessons);
    const loaded = await Promise.all(ids.map(async (id) => {
      const named = typeof id === 'string' && /^[a-z0-9-]+$/.test(id) ? id : null;
      if (!named) return { problem: 'not a lesson id' };
      try { const lesson = await fetchJson(`lessons/${named}.json`); return { lesson, problem: lessonProblem(lesson) }; } catch (err) {
        // Offline, a lesson the service worker could not save on an earlier visit is said so.
        return { problem: navigator.onLine === false ? 'not available offline (it was not saved on an earlier visit)' : err.message };
      }
    }));
    let at = 0;
    // On a phone the units fold (a disclosure button in each heading): only the first with a lesson
    // not yet done is open, so the page is a few screens, not dozens. On a wider screen all are open.
    const narrow = window.matchMedia && window.matchMedia('(max-width: 700px)').matches;
    const finished = (unit) => unit.lessons.every((id) => {
      const l = loaded[ids.indexOf(id)] || {};
      const sections = (progress[id] || {}).sections || {};
      return l.lesson && l.lesson.sections.every((_, i) => sections[i] && sections[i].done);
    });
    const current = units.findIndex((unit) => !finished(unit));
    units.forEach((unit, u) => {
      const box = el('section', { class: 'unit', 'data-testid': `course-unit-${u + 1}` });
      const body = el('div', { class: 'unit-body', id: `unit-${u + 1}` });
      if (unit.title) {
        const heading = el('h2', {});
        const toggle = el('button', { type: 'button', class: 'unit-toggle', 'aria-controls': `unit-${u + 1}`, 'data-testid': `course-unit-toggle-${u + 1}` },
          `${units.length > 1 ? `${u + 1}. ` : ''}${inline(unit.title)}`);
        const open = (yes) => { toggle.setAttribute('aria-expanded', String(yes)); body.hidden = !yes; };
        toggle.addEventListener('click', () => open(body.hidden));
        open(!narrow || u === Math.max(current, 0));
        heading.append(toggle);
        box.append(heading);
      }
      box.append(body);
      const add = (...nodes) => body.append(...nodes);
      if (unit.intro) add(el('div', { class: 'intro' }, paragraphs(unit.intro)));
      const reading = (Array.isArray(unit.reading) ? unit.reading : []).filter((r) => r && typeof r.text === 'string');
      if (reading.length) {
        add(el('p', { class: 'reading' }, `<b>Reading:</b> ${reading.map((r) => typeof r.href === 'string' ? inline(`[${r.text}](${r.href})`) : inline(r.text)).join('; ')}`));
      }
      const ol = el('ol', { class: 'lessons' });
      for (const id of unit.lessons) {
        const { lesson, problem } = loaded[at++];
        const named = typeof id === 'string' && /^[a-z0-9-]+$/.test(id) ? id : null;
        if (problem) {
          // One broken entry is named; the other lessons and the predictions still show.
          ol.append(el('li', { class: 'problem', 'data-testid': `course-problem-${named || 'entry'}` },
            `“${escape(String(id))}” cannot be shown: ${escape(problem)}`));
          continue;
        }
        const sections = (progress[id] || {}).sections || {};
        const done = lesson.sections.filter((_, i) => sections[i] && sections[i].done).length;
        const minutes = Number.isFinite(lesson.minutes) ? `about ${lesson.minutes} min` : '';
        ol.append(el('li', { 'data-testid': `course-${id}` },
          `<a href="lesson.html?id=${id}${courseName === 'course' ? '' : `&course=${courseName}`}">${inline(lesson.title)}</a> <span class="lab-name">${escape(lesson.lab)}</span>` +
          ` <span class="done" data-testid="course-done-${id}">${done} of ${lesson.sections.length} done</span>` +
          `<br><span class="note">${inline(lesson.summary || '')}</span>` +
          `<br><span class="note" data-testid="course-needs-${id}">${[minutes, `${lesson.sections.length} questions`, needs(lesson)].filter(Boolean).join(' · ')}</span>` +
          teacherNotes(lesson, id)));
        lesson.sections.forEach((s, i) => {
          const p = sections[i];
          if (p && p.prediction !== undefined) {
            const predicted = s.predict.choices[p.prediction]?.text ?? '';
            csvRows.push([lesson.title, s.heading, predicted, p.done ? p.measured : '',
              p.done && p.outcome >= 0 ? s.predict.choices[p.outcome]?.text ?? '' : '', p.done ? String(p.outcome === p.prediction) : '']);
            rows.push(`<tr><td>${inline(lesson.title)}</td><td>${inline(s.heading)}</td><td>${inline(s.predict.choices[p.prediction]?.text ?? '')}</td>` +
              `<td>${p.done ? escape(p.measured) : '–'}</td><td>${p.done ? (p.outcome === p.prediction ? '✓' : '✗') : 'not run'}</td></tr>`);
          }
        });
      }
      add(ol);
      list.append(box);
    });
    root.append(list);
    offlineNote(root, ids.filter((id) => typeof id === 'string' && /^[a-z0-9-]+$/.test(id)));
    root.append(el('h2', {}, 'Your predictions and what the labs measured'));
    root.append(el('table', { class: 'results', 'data-testid': 'course-predictions' },
      '<tr><th>lesson</th><th>question</th><th>you predicted</th><th>the lab measured</th><th></th></tr>' +
      (rows.join('') || '<tr><td colspan="5">No predictions yet: open a lesson.</td></tr>')));
    const download = el('button', { 'data-testid': 'course-csv' }, 'Download my predictions (CSV)');
    download.addEventListener('click', () => {
      const cell = (v) => `"${String(v ?? '').replace(/"/g, '""')}"`;
      const csv = ['lesson,question,predicted,measured,outcome,as_predicted', ...csvRows.map((r) => r.map(cell).join(','))].join('\n') + '\n';
      const a = el('a', { href: URL.createObjectURL(new Blob([csv], { type: 'text/csv' })), download: 'my-predictions.csv' });
      document.body.append(a);
      a.click();
      a.remove();
    });
    root.append(download);
    const reset = el('button', { 'data-testid': 'course-reset' }, 'Forget my predictions');
    // Starting over is open: every lesson's locks go with the predictions.
    reset.addEventListener('click', () => { window.TrainingLabKeep.remove(PROGRESS); location.reload(); });
    root.append(reset);
  }

  window.TrainingLabLessons = { evaluate, number, outcome, lessonProblem, inline, courseUnits };
  const root = document.getElementById('lesson-root');
  if (root) (root.dataset.page === 'course' ? coursePage(root) : lessonPage(root));
})();
