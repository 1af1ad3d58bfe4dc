// The lesson preview (lesson.html?preview): an instructor pastes, drops or chooses a lesson file;
// its problems of shape, choices and whys are listed (what `lab lesson check` also finds, less the
// checks that need the lab), and a lesson without problems of shape runs below as a student sees
// it. lesson.js calls window.TrainingLabLessonPreview with its own parts (rendering, storage).
(function () {
  // ---- preview: an instructor's lesson file, checked, then run as a student would see it ----
  /** The problems of a lesson's choices and whys that `lab lesson check` also finds (the metric
   *  and settings checks need the lab: a metric that never arrives is named when the run ends). */
  function choiceProblems(lesson) {
    const problems = [];
    lesson.sections.forEach((s, i) => {
      const at = `section ${i + 1}`;
      const choices = s.predict.choices;
      if (!String(s.why || '').trim()) problems.push(`${at}: no why: the reveal explains the claim`);
      choices.forEach((c, k) => {
        if (k !== s.claim && !String(c.why || '').trim()) problems.push(`${at}: choice ${k} (“${c.text}”) has no why: a run that lands there must be told why`);
      });
      if (s.measure.text !== undefined) return;
      const otherwise = choices.some((c) => c.otherwise);
      const ranges = choices.map((c, k) => [c.min ?? -Infinity, c.max ?? Infinity, k, c]).filter((r) => !r[3].otherwise).sort((a, b) => a[0] - b[0]);
      for (let j = 1; j < ranges.length; j++) {
        const [, hi, a] = ranges[j - 1];
        const [lo, , b] = ranges[j];
        if (hi > lo) problems.push(`${at}: choices ${a} and ${b} overlap (from ${lo} to ${hi})`);
        else if (hi < lo && !otherwise) problems.push(`${at}: no choice holds a measure from ${hi} to ${lo}`);
      }
      if (!otherwise && ranges.length > 0) {
        if (ranges[0][0] > -Infinity) problems.push(`${at}: no choice holds a measure below ${ranges[0][0]}`);
        const top = Math.max(...ranges.map((r) => r[1]));
        if (top < Infinity) problems.push(`${at}: no choice holds a measure of ${top} or more`);
      }
    });
    return problems;
  }

  function previewPage(root, parts) {
    const { el, escape, inline, paragraphs, lessonProblem, renderSection, loadProgress, PROGRESS, courseHref } = parts;
    document.title = 'Preview a lesson — Training Lab';
    root.append(el('p', { class: 'crumbs' }, `<a href="${courseHref}">Course</a>`));
    root.append(el('h1', {}, 'Preview a lesson'));
    root.append(el('p', {}, 'Paste a lesson file, or drop or choose one: its problems are listed here, and a lesson ' +
      'without problems of shape runs below as a student sees it. (<a href="author">Write a lesson</a> and ' +
      '<code>lab lesson check</code> also check its settings and metrics against the lab.)'));
    const form = el('form', { class: 'preview', 'data-testid': 'preview-form' });
    const area = el('textarea', { rows: '12', 'aria-label': 'the lesson file (JSON)', 'data-testid': 'preview-text', spellcheck: 'false' });
    const file = el('input', { type: 'file', accept: '.json,application/json', 'aria-label': 'choose a lesson file', 'data-testid': 'preview-file' });
    const go = el('button', { type: 'submit', class: 'primary', 'data-testid': 'preview-run' }, 'Check and preview');
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
      const problems = shape ? [shape] : choiceProblems(lesson);
      found.innerHTML = problems.length
        ? `<p class="problem">${problems.length} problem(s):</p><ul>${problems.map((p) => `<li>${escape(p)}</li>`).join('')}</ul>`
        : '<p>No problem found: the lesson runs below.</p>';
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
  window.TrainingLabLessonChecks = { choiceProblems };
})();
