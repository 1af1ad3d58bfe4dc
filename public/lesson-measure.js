// What a lesson measures, from the lab's `lab-metrics` reports: a metric's number, small
// arithmetic over metrics, whether the lab is done, and the choice a value falls in. lesson.js
// reads window.TrainingLabMeasure.
(function () {
  /** The number in a metric's text ("97.5 %" → 97.5); NaN when there is none yet. */
  function number(text) {
    const m = String(text ?? '').replace(/,/g, '').match(/-?\d+(\.\d+)?(e[-+]?\d+)?/i);
    return m ? Number(m[0]) : NaN;
  }
  /** Evaluates an expression of numbers, {metric} names, + − × ÷, parentheses and log/abs/min/max. */
  function evaluate(expr, metric) {
    const tokens = expr.match(/\{[^}]+\}|\d+(\.\d+)?(e[-+]?\d+)?|[a-z]+|[-+*/(),]/gi) || [];
    let i = 0;
    const peek = () => tokens[i];
    const next = () => tokens[i++];
    function primary() {
      const t = next();
      if (t === undefined) throw new Error(`"${expr}" ends too soon`);
      if (t === '(') { const v = sum(); if (next() !== ')') throw new Error(`"${expr}": a ) is missing`); return v; }
      if (t === '-') return -primary();
      if (t.startsWith('{')) return number(metric(t.slice(1, -1)));
      if (/^\d/.test(t)) return Number(t);
      const f = { log: Math.log, abs: Math.abs, min: Math.min, max: Math.max }[t];
      if (!f || next() !== '(') throw new Error(`"${expr}": unknown name ${t}`);
      const args = [sum()];
      while (peek() === ',') { next(); args.push(sum()); }
      if (next() !== ')') throw new Error(`"${expr}": a ) is missing`);
      return f(...args);
    }
    function product() {
      let v = primary();
      while (peek() === '*' || peek() === '/') v = next() === '*' ? v * primary() : v / primary();
      return v;
    }
    function sum() {
      let v = product();
      while (peek() === '+' || peek() === '-') v = next() === '+' ? v + product() : v - product();
      return v;
    }
    const v = sum();
    if (i !== tokens.length) throw new Error(`"${expr}": unexpected ${tokens[i]}`);
    return v;
  }

  /** The section's measured value from the lab's metrics: a number, or text for `text` measures. */
  function measure(section, m) {
    const metric = (name) => (m.metrics && m.metrics[name]) ?? (m.readouts && m.readouts[name]);
    const spec = section.measure;
    if (spec.text) return metric(spec.text) || undefined;
    return spec.expr ? evaluate(spec.expr, metric) : number(metric(spec.metric));
  }
  /** The metrics a section reads: its metric or text, its ready metric, each {name} of its expr. */
  function metricsRead(section) {
    const spec = section.measure;
    const names = [spec.metric, spec.text, spec.ready && spec.ready.metric].filter(Boolean);
    for (const t of (spec.expr || '').match(/\{[^}]+\}/g) || []) names.push(t.slice(1, -1));
    return names;
  }
  /** Whether the lab has finished what the section measures. */
  function ready(section, m, value) {
    const r = section.measure.ready || {};
    if (r.status && !new RegExp(r.status).test(m.status || '')) return false;
    if (r.metric) {
      const v = number((m.metrics && m.metrics[r.metric]) ?? (m.readouts && m.readouts[r.metric]));
      if (!(v >= (r.min ?? -Infinity))) return false;
    }
    return typeof value === 'string' ? value.length > 0 : Number.isFinite(value);
  }
  /** The choice the measurement falls in (by range, or by text with `is`: one text or a list of
   *  them; else the one marked `otherwise`); -1 when none. */
  function outcome(section, value) {
    const choices = section.predict.choices;
    const k = choices.findIndex((c) => !c.otherwise &&
      (c.is !== undefined ? [].concat(c.is).includes(String(value)) : value >= (c.min ?? -Infinity) && value < (c.max ?? Infinity)));
    return k >= 0 ? k : choices.findIndex((c) => c.otherwise);
  }
  window.TrainingLabMeasure = { number, evaluate, measure, metricsRead, ready, outcome };
})();
