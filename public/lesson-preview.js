// The lesson preview (lesson.html?preview): an instructor pastes, drops or chooses a lesson file,
// or the authoring page (/author) sends its draft (&draft), and it runs below as a student sees
// it. Its problems are checked in one place, the authoring page, whose checker is the one `lab
// lesson check` runs (lab_state::lesson_check, compiled into the app): here only what the page
// needs to show a lesson at all (lesson.js's lessonProblem) is refused. lesson.js calls
// window.TrainingLabLessonPreview with its own parts (rendering, storage).
(function () {
  function previewPage(root, parts) {
    const { el, escape, inline, paragraphs, lessonProblem, renderSection, loadProgress, PROGRESS, courseHref } = parts;
    document.title = 'Preview a lesson — Training Lab';
    root.append(el('p', { class: 'crumbs' }, `<a href="${courseHref}">Course</a>`));
    root.append(el('h1', {}, 'Preview a lesson'));
    root.append(el('p', {}, 'Paste a lesson file, or drop or choose one: it runs below as a student sees it. ' +
      'Its problems (settings, metrics, charts, choices, whys) are listed on the <a href="author">authoring page</a>, ' +
      'which checks a lesson as <code>lab lesson check</code> does.'));
    const form = el('form', { class: 'preview', 'data-testid': 'preview-form' });
    const area = el('textarea', { rows: '12', 'aria-label': 'the lesson file (JSON)', 'data-testid': 'preview-text', spellcheck: 'false' });
    const file = el('input', { type: 'file', accept: '.json,application/json', 'aria-label': 'choose a lesson file', 'data-testid': 'preview-file' });
    const go = el('button', { type: 'submit', class: 'primary', 'data-testid': 'preview-run' }, 'Preview');
    const found = el('div', { role: 'status', 'data-testid': 'preview-problems' });
    const shown = el('div', { 'data-testid': 'preview-lesson' });
    form.append(area, el('p', {}, ''), file, go);
    root.append(form, found, shown);
    const read = async (f) => { area.value = await f.text(); };
    file.addEventListener('change', () => file.files[0] && read(file.files[0]));
    area.addEventListener('dragover', (e) => e.preventDefault());
    area.addEventListener('drop', (e) => { e.preventDefault(); if (e.dataTransfer.files[0]) read(e.dataTransfer.files[0]); });
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      shown.replaceChildren();
      let lesson;
      try { lesson = JSON.parse(area.value); } catch (err) {
        found.innerHTML = `<p class="problem">Not JSON: ${escape(err.message)}</p>`;
        return;
      }
      const shape = lessonProblem(lesson);
      found.innerHTML = shape
        ? `<p class="problem">This lesson cannot be shown: ${escape(shape)}. The <a href="author">authoring page</a> lists all its problems.</p>`
        : '<p>The lesson runs below. Check it in full on the <a href="author">authoring page</a> before a class.</p>';
      if (shape) return;
      lesson.id = 'preview';
      shown.append(el('h1', { 'data-testid': 'lesson-title' }, inline(lesson.title)), el('div', { class: 'intro' }, paragraphs(lesson.intro)));
      // A preview starts from nothing each time: no lock kept from an earlier preview.
      const all = loadProgress();
      delete all.preview;
      window.TrainingLabKeep.set(PROGRESS, JSON.stringify(all));
      lesson.sections.forEach((s, i) => shown.append(renderSection(lesson, s, i, undefined)));
    });
    // From the authoring page (/author): its draft, checked there in full, runs at once.
    if (new URLSearchParams(location.search).has('draft')) {
      const draft = window.TrainingLabKeep.get('training-lab-preview-draft');
      if (draft) {
        area.value = draft;
        form.requestSubmit();
      }
    }
  }

  window.TrainingLabLessonPreview = previewPage;
})();
