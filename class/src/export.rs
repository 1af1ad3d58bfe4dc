//! The class as CSV for the instructor: the long layout (one row per student and section) and
//! the gradebook's (one row per student, three columns per section: predicted, measured, correct).
//! Sections and choices are numbered from 1, as the page shows them, and a cell a spreadsheet
//! would run as a formula is kept as text.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::IntoResponse;
use serde::Deserialize;

use crate::error::ClassError;
use crate::extract::StrictQuery;
use crate::shared::{instructor, App};
use crate::store::SectionRecord;

#[derive(Deserialize)]
pub(crate) struct ExportQuery {
    /// `long` (the default) or `gradebook`.
    #[serde(default)]
    layout: Option<String>,
}

pub(crate) async fn export(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
    headers: axum::http::HeaderMap,
    StrictQuery(q): StrictQuery<ExportQuery>,
) -> Result<impl IntoResponse, ClassError> {
    instructor(&app, &code, crate::shared::bearer(&headers)?).await?;
    let records = app.store.records(&code).await?;
    let (csv, name) = match q.layout.as_deref().unwrap_or("long") {
        "long" => (long(&records), "class.csv"),
        "gradebook" => (
            gradebook(&app.store.nicknames(&code).await?, &records),
            "class-gradebook.csv",
        ),
        other => {
            return Err(ClassError::Invalid(format!(
                "layout: long or gradebook, not {}",
                other.chars().take(20).collect::<String>()
            )))
        }
    };
    let disposition = format!("attachment; filename=\"{name}\"");
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        csv,
    ))
}

/// A student's answer to a section: the choice locked and the run's (measured, outcome), from 0.
type Answer<'a> = (Option<u32>, Option<(&'a str, i64)>);

/// Each student's answer to section `s`, by nickname.
fn answers(s: &SectionRecord) -> BTreeMap<&str, Answer<'_>> {
    let mut out: BTreeMap<&str, Answer<'_>> = BTreeMap::new();
    for (nick, choice) in &s.predictions {
        out.entry(nick).or_default().0 = Some(*choice);
    }
    for (nick, measured, outcome) in &s.results {
        out.entry(nick).or_default().1 = Some((measured, *outcome));
    }
    out
}

/// One row per student and section they locked.
fn long(records: &[SectionRecord]) -> String {
    let mut csv = String::from("lesson,section,nickname,predicted,measured,outcome\n");
    for s in records {
        for (nick, choice) in &s.predictions {
            let run = s.results.iter().find(|r| &r.0 == nick);
            let outcome = run
                .filter(|r| r.2 >= 0)
                .map_or(String::new(), |r| (r.2 + 1).to_string());
            let measured = csv_cell(run.map_or("", |r| r.1.as_str()));
            csv += &format!(
                "{},{},{},{},{measured},{outcome}\n",
                s.lesson,
                s.section + 1,
                csv_cell(nick),
                choice + 1
            );
        }
    }
    csv
}

/// One row per student of the class (`nicknames`, each once), three columns per section anyone
/// answered: the choice predicted, what the run measured, and whether the measurement fell in
/// the predicted choice (`yes`/`no`; blank without both).
fn gradebook(nicknames: &[String], records: &[SectionRecord]) -> String {
    let mut csv = String::from("nickname");
    for s in records {
        for what in ["predicted", "measured", "correct"] {
            csv += &format!(",{}", csv_cell(&format!("{} {} {what}", s.lesson, s.section + 1)));
        }
    }
    csv.push('\n');
    let by_section: Vec<_> = records.iter().map(answers).collect();
    for nick in nicknames {
        csv += &csv_cell(nick);
        for answers in &by_section {
            let (choice, run) = answers.get(nick.as_str()).copied().unwrap_or_default();
            let correct = match (choice, run) {
                (Some(c), Some((_, o))) if o >= 0 => {
                    if i64::from(c) == o {
                        "yes"
                    } else {
                        "no"
                    }
                }
                _ => "",
            };
            let predicted = choice.map_or(String::new(), |c| (c + 1).to_string());
            csv += &format!(",{predicted},{},{correct}", csv_cell(run.map_or("", |r| r.0)));
        }
        csv.push('\n');
    }
    csv
}

/// A text cell: quoted, and one that a spreadsheet would run as a formula (starting with =, +,
/// -, @, a tab or a carriage return) kept as text by a leading apostrophe (OWASP's advice).
pub fn csv_cell(s: &str) -> String {
    let s = s.replace('"', "\"\"");
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("\"'{s}\"")
    } else {
        format!("\"{s}\"")
    }
}
