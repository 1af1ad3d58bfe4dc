//! The class server's HTTP API (JSON in, JSON out; errors as `{"error": …}` with their status):
//!
//! | request | body / query | answer |
//! | --- | --- | --- |
//! | `POST /api/classes` | `{title, hold?}` | `{code, key}`: the join code, the instructor's key |
//! | `POST /api/classes/{code}/join` | `{nickname}` | `{student}`: the student's token |
//! | `POST /api/classes/{code}/predictions` | `{student, lesson, section, choice, state}` | `{choice}`: the locked choice (the first lock stands) |
//! | `POST /api/classes/{code}/results` | `{student, lesson, section, measured, outcome}` | `{released}` |
//! | `GET /api/classes/{code}/released` | `?lesson&section` | `{released}`: may the reveal show? |
//! | `POST /api/classes/{code}/release` | `{key, lesson, section}` | `{released: true}` |
//! | `GET /api/classes/{code}/results` | `?key` | `{title, hold, sections}`: the dashboard's data |
//! | `GET /api/classes/{code}/export.csv` | `?key` | every prediction and result, one row each |
//! | `GET /api/classes/{code}/events` | `?key` | server-sent events: `change` whenever the class changes |

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::db::Store;
use crate::error::ClassError;
use crate::guard::{self, Guard};
use crate::shared::{class, instructor, App, KeyQuery};
use crate::validate as v;

/// The largest body a request may carry: a lesson state is the largest value.
const BODY_LIMIT: usize = 16 * 1024;

/// The API over `store`, answering pages from `origin` only (None: any origin, for a class on
/// one machine).
pub fn router(store: Store, origin: Option<String>) -> Router {
    let app = Arc::new(App {
        store,
        changes: tokio::sync::broadcast::channel(256).0,
    });
    let guard = Arc::new(Guard::new(origin));
    Router::new()
        .route("/api/health", get(|| async { "ok" }))
        .route("/api/classes", post(create))
        .route("/api/classes/{code}/join", post(join))
        .route("/api/classes/{code}/predictions", post(predict))
        .route("/api/classes/{code}/results", post(result).get(results))
        .route("/api/classes/{code}/released", get(released))
        .route("/api/classes/{code}/release", post(release))
        .route("/api/classes/{code}/export.csv", get(export))
        .route("/api/classes/{code}/events", get(crate::events::stream))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
        .with_state(app)
}

type Answer = Result<Json<Value>, ClassError>;

/// A JSON body, or the reason it is not one, as a `ClassError`.
fn body<T>(b: Result<Json<T>, JsonRejection>) -> Result<T, ClassError> {
    b.map(|Json(t)| t).map_err(|e| match e.status() {
        axum::http::StatusCode::PAYLOAD_TOO_LARGE => {
            ClassError::TooLarge(format!("the request is over {BODY_LIMIT} bytes"))
        }
        _ => ClassError::Invalid(e.body_text()),
    })
}

fn random_hex() -> Result<String, ClassError> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).map_err(|e| ClassError::Database(format!("no randomness: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn random_code() -> Result<String, ClassError> {
    let mut bytes = [0u8; v::CODE_LEN];
    getrandom::getrandom(&mut bytes).map_err(|e| ClassError::Database(format!("no randomness: {e}")))?;
    let alphabet: Vec<char> = v::CODE_ALPHABET.chars().collect();
    Ok(bytes
        .iter()
        .map(|b| alphabet[*b as usize % alphabet.len()])
        .collect())
}

/// Student `token` of class `code`, checked to have joined; their nickname.
fn student(app: &App, code: &str, token: &str) -> Result<String, ClassError> {
    class(app, code)?;
    app.store
        .student(code, v::secret("student", token)?)?
        .ok_or_else(|| ClassError::NotFound("no such student in this class: join again".into()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewClass {
    title: String,
    #[serde(default)]
    hold: bool,
}

async fn create(State(app): State<Arc<App>>, b: Result<Json<NewClass>, JsonRejection>) -> Answer {
    let b = body(b)?;
    let title = v::text("title", &b.title, 80)?;
    let key = random_hex()?;
    // A code already taken (one in a billion per class) is drawn again.
    for _ in 0..8 {
        let code = random_code()?;
        if app.store.class(&code)?.is_none() {
            app.store.create_class(&code, &key, title, b.hold)?;
            return Ok(Json(json!({ "code": code, "key": key })));
        }
    }
    Err(ClassError::Database("no free class code".into()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Join {
    nickname: String,
}

async fn join(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
    b: Result<Json<Join>, JsonRejection>,
) -> Answer {
    let b = body(b)?;
    class(&app, &code)?;
    let nickname = v::text("nickname", &b.nickname, 40)?;
    let token = random_hex()?;
    app.store.join(&code, &token, nickname)?;
    app.changed(&code);
    Ok(Json(json!({ "student": token })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Prediction {
    student: String,
    lesson: String,
    section: u32,
    choice: u32,
    #[serde(default)]
    state: String,
}

async fn predict(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
    b: Result<Json<Prediction>, JsonRejection>,
) -> Answer {
    let b = body(b)?;
    student(&app, &code, &b.student)?;
    let choice = app.store.lock(
        &code,
        &b.student,
        v::lesson(&b.lesson)?,
        v::index("section", b.section, 100)?,
        v::index("choice", b.choice, 20)?,
        v::state(&b.state)?,
    )?;
    app.changed(&code);
    Ok(Json(json!({ "choice": choice })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Measured {
    student: String,
    lesson: String,
    section: u32,
    measured: String,
    /// The choice the measurement fell in (−1: none).
    outcome: i64,
}

async fn result(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
    b: Result<Json<Measured>, JsonRejection>,
) -> Answer {
    let b = body(b)?;
    student(&app, &code, &b.student)?;
    if !(-1..=20).contains(&b.outcome) {
        return Err(ClassError::Invalid(
            "outcome: -1 (none) or a choice, 0 to 20".into(),
        ));
    }
    let (lesson, section) = (v::lesson(&b.lesson)?, v::index("section", b.section, 100)?);
    app.store.result(
        &code,
        &b.student,
        lesson,
        section,
        v::measured(&b.measured)?,
        b.outcome,
    )?;
    app.changed(&code);
    Ok(Json(
        json!({ "released": may_reveal(&app, &code, lesson, section)? }),
    ))
}

/// Whether a section's reveal may show: always, unless the class holds reveals until released.
fn may_reveal(app: &App, code: &str, lesson: &str, section: u32) -> Result<bool, ClassError> {
    let (_, _, hold) = class(app, code)?;
    Ok(!hold || app.store.is_released(code, lesson, section)?)
}

#[derive(Deserialize)]
struct SectionQuery {
    lesson: String,
    section: u32,
}

async fn released(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
    Query(q): Query<SectionQuery>,
) -> Answer {
    let (lesson, section) = (v::lesson(&q.lesson)?, v::index("section", q.section, 100)?);
    Ok(Json(
        json!({ "released": may_reveal(&app, &code, lesson, section)? }),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Release {
    key: String,
    lesson: String,
    section: u32,
}

async fn release(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
    b: Result<Json<Release>, JsonRejection>,
) -> Answer {
    let b = body(b)?;
    instructor(&app, &code, &b.key)?;
    app.store
        .release(&code, v::lesson(&b.lesson)?, v::index("section", b.section, 100)?)?;
    app.changed(&code);
    Ok(Json(json!({ "released": true })))
}

async fn results(State(app): State<Arc<App>>, Path(code): Path<String>, Query(q): Query<KeyQuery>) -> Answer {
    let (title, hold) = instructor(&app, &code, &q.key)?;
    let sections: Vec<Value> = app
        .store
        .records(&code)?
        .into_iter()
        .map(|s| {
            // The class's predictions as counts per choice: the dashboard's histogram.
            let most = s.predictions.iter().map(|p| p.1).max().unwrap_or(0) as usize;
            let mut counts = vec![0u32; most + 1];
            for (_, c) in &s.predictions {
                counts[*c as usize] += 1;
            }
            json!({
                "lesson": s.lesson, "section": s.section, "locked": s.predictions.len(),
                "counts": counts, "predictions": s.predictions, "results": s.results, "released": s.released,
            })
        })
        .collect();
    Ok(Json(
        json!({ "title": title, "hold": hold, "sections": sections }),
    ))
}

async fn export(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
    Query(q): Query<KeyQuery>,
) -> Result<impl IntoResponse, ClassError> {
    instructor(&app, &code, &q.key)?;
    let cell = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let mut csv = String::from("lesson,section,nickname,predicted,measured,outcome\n");
    for s in app.store.records(&code)? {
        for (nick, choice) in &s.predictions {
            let run = s.results.iter().find(|r| &r.0 == nick);
            csv += &format!(
                "{},{},{},{},{},{}\n",
                s.lesson,
                s.section + 1,
                cell(nick),
                choice,
                cell(run.map_or("", |r| r.1.as_str())),
                run.map_or(String::new(), |r| r.2.to_string())
            );
        }
    }
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (header::CONTENT_DISPOSITION, "attachment; filename=\"class.csv\""),
        ],
        csv,
    ))
}
