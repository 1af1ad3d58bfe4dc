//! `lab lesson check`: what an instructor's lesson file must be before a class sees it. The file's
//! shape is `public/lessons/lesson.schema.json` (the same fields, read here with unknown fields
//! refused); beyond the shape, each section's link must parse for its lab with no notice, every
//! metric it reads must be one the lab publishes (the registry), its numeric choices must not
//! overlap and must cover every value a run can measure (or one choice says `otherwise`), and
//! every choice the run may land on other than the claim must say why.

use serde::Deserialize;

use crate::error::CourseError;
use crate::registry;

/// A lesson file as `public/lesson.js` reads it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Lesson {
    title: String,
    lab: String,
    #[serde(default)]
    summary: String,
    #[serde(default)]
    intro: String,
    /// About how long the lesson takes, reading and runs, on a laptop's CPU path.
    #[serde(default)]
    minutes: Option<f64>,
    /// The instructor's notes: shown in the course page's instructor view and in the book.
    #[serde(default)]
    teacher: Option<Teacher>,
    sections: Vec<Section>,
}

/// Teacher notes: what the lesson is for, the wrong ideas it meets, questions for discussion.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Teacher {
    pub goal: String,
    pub misconceptions: Vec<String>,
    pub discussion: Vec<String>,
}

/// Text that stands in for text not written yet: no letter or digit (`...`, `…`, `?`), or a
/// marker such as TODO — a reveal or a note that would say nothing to a student.
pub fn placeholder(text: &str) -> bool {
    let t = text.trim().to_lowercase();
    !t.chars().any(char::is_alphanumeric)
        || ["todo", "tbd", "tbc", "fixme", "xxx", "placeholder", "why"].contains(&t.trim_end_matches('.'))
        || t.starts_with("lorem ipsum")
        || t.starts_with("todo:")
}

/// A lesson's teacher notes, read from its file (None: it has none, or is no lesson).
pub fn teacher_notes(text: &str) -> Option<Teacher> {
    serde_json::from_str::<Lesson>(text).ok()?.teacher
}

fn check_teacher(t: &Teacher) -> Vec<String> {
    let mut problems = Vec::new();
    if placeholder(&t.goal) {
        problems.push("teacher: a goal, in words".to_string());
    }
    for (what, list) in [
        ("misconceptions", &t.misconceptions),
        ("discussion", &t.discussion),
    ] {
        if list.is_empty() || list.iter().any(|x| placeholder(x)) {
            problems.push(format!("teacher: {what}, at least one, each in words"));
        }
    }
    problems
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Section {
    heading: String,
    question: String,
    #[serde(default)]
    state: String,
    /// The lab's figure the question needs (one of the registry's `charts`), shown first.
    chart: Option<String>,
    /// Whether the lesson presses the lab's start for the student.
    #[serde(default)]
    #[allow(dead_code)]
    start: bool,
    measure: Measure,
    predict: Predict,
    claim: usize,
    why: String,
    #[serde(default)]
    #[allow(dead_code)]
    formula: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Measure {
    label: String,
    metric: Option<String>,
    expr: Option<String>,
    text: Option<String>,
    ready: Option<Ready>,
    #[allow(dead_code)]
    unit: Option<String>,
    #[allow(dead_code)]
    digits: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Ready {
    metric: Option<String>,
    status: Option<String>,
    #[allow(dead_code)]
    min: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Predict {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Choice {
    text: String,
    min: Option<f64>,
    max: Option<f64>,
    is: Option<serde_json::Value>,
    #[serde(default)]
    otherwise: bool,
    why: Option<String>,
}

/// Every problem of the lesson file whose text is `text`, each naming where it is ("section 2:
/// …"); empty when the lesson is ready for a class.
/// The lessons a course file lists, in order: each unit's (`units`), or, written the older way,
/// its one `lessons` list; or why the file is not a course.
pub fn course_lessons(text: &str) -> Result<Vec<String>, CourseError> {
    let course: serde_json::Value =
        serde_json::from_str(text).map_err(|e| CourseError::NotJson(e.to_string()))?;
    let ids = |list: &serde_json::Value| -> Result<Vec<String>, CourseError> {
        list.as_array()
            .ok_or(CourseError::NotAList)?
            .iter()
            .map(|id| {
                id.as_str()
                    .map(String::from)
                    .ok_or_else(|| CourseError::NotAnId(id.to_string()))
            })
            .collect()
    };
    match (&course["units"], &course["lessons"]) {
        (serde_json::Value::Array(units), _) => Ok(units
            .iter()
            .map(|u| ids(&u["lessons"]))
            .collect::<Result<Vec<_>, _>>()?
            .concat()),
        (_, list @ serde_json::Value::Array(_)) => ids(list),
        _ => Err(CourseError::NoLessons),
    }
}

pub fn check(text: &str) -> Vec<String> {
    let lesson: Lesson = match serde_json::from_str(text) {
        Ok(l) => l,
        Err(e) => return vec![format!("not a lesson file: {e}")],
    };
    let mut problems = Vec::new();
    if lesson.title.trim().is_empty() {
        problems.push("no title".to_string());
    }
    let _ = (&lesson.summary, &lesson.intro);
    if lesson.minutes.is_some_and(|m| !(m.is_finite() && m > 0.0)) {
        problems.push("minutes: a positive number (about how long the lesson takes)".to_string());
    }
    if let Some(t) = &lesson.teacher {
        problems.extend(check_teacher(t));
    }
    let Some(lab) = registry::by_id(&lesson.lab) else {
        let known: Vec<&str> = registry::labs().iter().map(|l| l.id.as_str()).collect();
        problems.push(format!("no lab \"{}\" (one of {})", lesson.lab, known.join(", ")));
        return problems;
    };
    if lesson.sections.is_empty() {
        problems.push("no sections".to_string());
    }
    for (i, s) in lesson.sections.iter().enumerate() {
        let at = format!("section {} (\"{}\")", i + 1, s.heading);
        for p in check_section(lab, s) {
            problems.push(format!("{at}: {p}"));
        }
    }
    problems
}

fn check_section(lab: &registry::Lab, s: &Section) -> Vec<String> {
    let mut problems = Vec::new();
    if placeholder(&s.heading) || placeholder(&s.question) {
        problems.push("a heading and a question".to_string());
    }
    if placeholder(&s.why) {
        problems.push("no why: the reveal explains the claim (in words, not a placeholder)".to_string());
    }
    match crate::query_notices(&lab.id, &s.state) {
        Some(notices) => problems.extend(notices.into_iter().map(|n| format!("its state: {n}"))),
        None => problems.push(format!("the {} lab has no settings table", lab.id)),
    }
    if let Some(chart) = &s.chart {
        if !lab.charts.contains(chart) {
            problems.push(format!(
                "the {} lab has no chart \"{chart}\" (it has {})",
                lab.id,
                lab.charts.join(", ")
            ));
        }
    }
    for name in metrics_read(&s.measure) {
        if !lab.publishes(&name) {
            problems.push(format!(
                "the {} lab publishes no metric \"{name}\" (it publishes {})",
                lab.id,
                lab.metrics.join(", ")
            ));
        }
    }
    let m = &s.measure;
    let ways = [m.metric.is_some(), m.expr.is_some(), m.text.is_some()];
    if ways.iter().filter(|w| **w).count() != 1 {
        problems.push("its measure names exactly one of metric, expr or text".to_string());
    }
    if m.label.trim().is_empty() {
        problems.push("its measure has no label".to_string());
    }
    if let Some(status) = m.ready.as_ref().and_then(|r| r.status.as_ref()) {
        if status.trim().is_empty() {
            problems.push("its ready status is empty".to_string());
        }
    }
    problems.extend(check_choices(&s.predict.choices, s.claim, m.text.is_some()));
    problems
}

/// The metric names a measure reads: its metric, text, ready metric and each `{name}` of its
/// expression.
fn metrics_read(m: &Measure) -> Vec<String> {
    let mut names: Vec<String> = [&m.metric, &m.text].into_iter().flatten().cloned().collect();
    names.extend(m.ready.as_ref().and_then(|r| r.metric.clone()));
    if let Some(expr) = &m.expr {
        names.extend(
            expr.split('{')
                .skip(1)
                .filter_map(|p| p.split_once('}').map(|(name, _)| name.to_string())),
        );
    }
    names
}

fn check_choices(choices: &[Choice], claim: usize, by_text: bool) -> Vec<String> {
    let mut problems = Vec::new();
    if choices.len() < 2 {
        problems.push("at least two choices".to_string());
    }
    if claim >= choices.len() {
        problems.push(format!(
            "its claim {claim} is not one of its {} choices (counted from 0)",
            choices.len()
        ));
    }
    for (k, c) in choices.iter().enumerate() {
        if c.text.trim().is_empty() {
            problems.push(format!("choice {k} has no text"));
        }
        if k != claim && c.why.as_deref().is_none_or(placeholder) {
            problems.push(format!(
                "choice {k} (\"{}\") has no why: a run that lands there must be told why",
                c.text
            ));
        }
        if let (Some(lo), Some(hi)) = (c.min, c.max) {
            if lo >= hi {
                problems.push(format!("choice {k}: min {lo} is not below max {hi}"));
            }
        }
    }
    let otherwise = choices.iter().any(|c| c.otherwise);
    if by_text {
        if choices.iter().any(|c| !c.otherwise && c.is.is_none()) {
            problems
                .push("a text measure: every choice names its texts (`is`) or is `otherwise`".to_string());
        }
        return problems;
    }
    // Numeric ranges, [min, max): sorted, each must end where the next begins.
    let mut ranges: Vec<(f64, f64, usize)> = choices
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.otherwise)
        .map(|(k, c)| {
            (
                c.min.unwrap_or(f64::NEG_INFINITY),
                c.max.unwrap_or(f64::INFINITY),
                k,
            )
        })
        .collect();
    ranges.sort_by(|a, b| a.0.total_cmp(&b.0));
    for w in ranges.windows(2) {
        let ((_, hi, a), (lo, _, b)) = (w[0], w[1]);
        if hi > lo {
            problems.push(format!("choices {a} and {b} overlap (from {lo} to {hi})"));
        } else if hi < lo && !otherwise {
            problems.push(format!(
                "no choice holds a measure from {hi} to {lo} (between choices {a} and {b}; or add one marked otherwise)"
            ));
        }
    }
    if !otherwise {
        if let Some(&(lo, _, k)) = ranges.first() {
            if lo > f64::NEG_INFINITY {
                problems.push(format!(
                    "no choice holds a measure below {lo} (choice {k} starts there; leave its min out)"
                ));
            }
        }
        if let Some(&(_, hi, k)) = ranges.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
            if hi < f64::INFINITY {
                problems.push(format!(
                    "no choice holds a measure of {hi} or more (choice {k} ends there; leave its max out)"
                ));
            }
        }
    }
    problems
}
