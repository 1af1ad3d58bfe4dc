//! The class server's HTTP API (JSON in, JSON out; errors as `{"error": …}` with their status):
//!
//! | request | body / query | answer |
//! | --- | --- | --- |
//! | `POST /api/classes` | `{title, hold?}` | `{code, key}`: the join code, the instructor's key |
//! | `POST /api/classes/{code}/join` | `{nickname, student?}` | `{student}`: the student's token (`student` given, a token of the class: that one again, its locks kept; a nickname taken: 409) |
//! | `POST /api/classes/{code}/predictions` | `{student, lesson, section, choice, state}` | `{choice}`: the locked choice (the first lock stands) |
//! | `POST /api/classes/{code}/results` | `{student, lesson, section, measured, outcome}` | `{released}` |
//! | `GET /api/classes/{code}/released` | `?lesson&section` | `{released}`: may the reveal show? |
//! | `POST /api/classes/{code}/release` | `{key, lesson, section}` | `{released: true}` |
//! | `GET /api/classes/{code}/results` | `Authorization: Bearer key` | `{title, hold, sections}`: the dashboard's data |
//! | `GET /api/classes/{code}/export.csv` | `Authorization: Bearer key`, `?layout` | every prediction and result, one row each; `layout=gradebook`: a row per student, three columns per section |
//! | `POST /api/classes/{code}/ticket` | `Authorization: Bearer key` | `{ticket}`: good for one event stream within a minute |
//! | `GET /api/instructor/classes` | `Authorization: Bearer secret` | `{instructor, classes}`: an instructor's classes |
//! | `GET /api/classes/{code}/events` | `?ticket` | server-sent events: `change` whenever the class changes |
//! | `GET /api/classes/{code}/live` | | the students' server-sent events: `hello`, then `release` and `pace` (`{lesson, section}`) |
//! | `POST /api/classes/{code}/pace` | `{key, lesson, section}` | `{sent}`: every page of the class hears `pace` |

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::ClassError;
use crate::extract::{Strict, StrictQuery, BODY_LIMIT};
use crate::guard::{self, Guard};
use crate::secret::digest;
use crate::shared::{bearer, class, instructor, App};
use crate::store::Store;
use crate::validate as v;

/// How the server is set up beyond its database.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The site whose pages may call it (None: any, for a class on one machine).
    pub origin: Option<String>,
    /// Reverse proxies whose `X-Forwarded-For` names the client.
    pub proxies: Vec<std::net::IpAddr>,
    /// The course ids are checked against (None: any well-formed id).
    pub lessons: Option<crate::catalogue::Catalogue>,
    /// Who may open classes (None: any page, a class on one machine).
    pub instructors: Option<crate::instructors::Instructors>,
}

/// The API over `store`, answering pages from `origin` only (None: any origin, for a class on
/// one machine).
pub fn router(store: Store, origin: Option<String>) -> Router {
    router_stoppable(
        store,
        Config {
            origin,
            ..Config::default()
        },
    )
    .0
}

/// The API as `config` sets it up, and the switch that ends its live streams (sending `true`),
/// so that a server told to stop is not held open by the dashboards watching it.
pub fn router_stoppable(store: Store, config: Config) -> (Router, tokio::sync::watch::Sender<bool>) {
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let app = Arc::new(App {
        store,
        stopped,
        lessons: config.lessons,
        instructors: config.instructors,
    });
    let guard = Arc::new(Guard::new(config.origin, config.proxies));
    let router = Router::new()
        .route("/api/health", get(|| async { "ok" }))
        .route("/api/classes", post(create))
        .route("/api/classes/{code}/join", post(join))
        .route("/api/classes/{code}/predictions", post(predict))
        .route("/api/classes/{code}/results", post(result).get(results))
        .route("/api/classes/{code}/released", get(released))
        .route("/api/classes/{code}/release", post(release))
        .route("/api/classes/{code}/export.csv", get(crate::export::export))
        .route("/api/classes/{code}/events", get(crate::events::stream))
        .route("/api/classes/{code}/live", get(crate::events::live))
        .route("/api/classes/{code}/pace", post(pace))
        .route("/api/classes/{code}/ticket", post(ticket))
        .route("/api/instructor/classes", get(my_classes))
        .fallback(|| async { ClassError::NotFound("no such request: see the API's list".into()) })
        .method_not_allowed_fallback(|| async {
            ClassError::Invalid("this request takes another method".into())
        })
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            crate::replay::check,
        ))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
        .with_state(app);
    (router, stop)
}

type Answer = Result<Json<Value>, ClassError>;

/// 128 random bits as 32 hexadecimal digits: keys, tokens, tickets, instructors' secrets.
pub fn random_hex() -> Result<String, ClassError> {
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

/// Student `token` of class `code`, checked to have joined; the digest the database keys them by.
async fn student(app: &App, code: &str, token: &str) -> Result<String, ClassError> {
    class(app, code).await?;
    let digest = digest(v::secret("student", token)?);
    app.store
        .student(code, &digest)
        .await?
        .ok_or_else(|| ClassError::NotFound("no such student in this class: join again".into()))?;
    Ok(digest)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewClass {
    title: String,
    #[serde(default)]
    hold: bool,
}

async fn create(State(app): State<Arc<App>>, headers: HeaderMap, Strict(b): Strict<NewClass>) -> Answer {
    // On a campus server only an instructor opens classes; the class is theirs.
    let owner = match &app.instructors {
        None => String::new(),
        Some(i) => bearer(&headers)
            .ok()
            .and_then(|s| i.who(s))
            .map(String::from)
            .ok_or_else(|| {
                ClassError::Forbidden(
                    "opening a class needs an instructor's secret (Authorization: Bearer …)".into(),
                )
            })?,
    };
    let title = v::text("title", &b.title, 80)?;
    let key = random_hex()?;
    // A code already taken (one in a billion per class) is drawn again.
    for _ in 0..8 {
        let code = random_code()?;
        if app.store.class(&code).await?.is_none() {
            app.store
                .create_class(&code, &digest(&key), title, b.hold, &owner)
                .await?;
            return Ok(Json(json!({ "code": code, "key": key })));
        }
    }
    Err(ClassError::Database("no free class code".into()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Join {
    nickname: String,
    /// The token this browser was given before: rejoining reclaims it (and its locks).
    #[serde(default)]
    student: Option<String>,
}

async fn join(State(app): State<Arc<App>>, Path(code): Path<String>, Strict(b): Strict<Join>) -> Answer {
    class(&app, &code).await?;
    if let Some(token) = &b.student {
        if let Ok(digest) = v::secret("student", token).map(digest) {
            if app.store.student(&code, &digest).await?.is_some() {
                return Ok(Json(json!({ "student": token, "rejoined": true })));
            }
        }
    }
    let nickname = v::nickname(&b.nickname)?;
    let token = random_hex()?;
    if let Some(taken) = app
        .store
        .join(&code, &digest(&token), &nickname, &v::nickname_key(&nickname))
        .await?
    {
        return Err(ClassError::Conflict(format!(
            "nickname: {taken} is taken in this class; choose another (your own browser rejoins by itself)"
        )));
    }
    app.changed(&code).await?;
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
    Strict(b): Strict<Prediction>,
) -> Answer {
    let who = student(&app, &code, &b.student).await?;
    let (lesson, section) = app.section(&b.lesson, b.section)?;
    let choice = v::index("choice", b.choice, 20)?;
    app.choice(lesson, section, i64::from(choice), "choice")?;
    let choice = app
        .store
        .lock(&code, &who, lesson, section, choice, v::state(&b.state)?)
        .await?;
    app.changed(&code).await?;
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
    Strict(b): Strict<Measured>,
) -> Answer {
    let who = student(&app, &code, &b.student).await?;
    let (lesson, section) = app.section(&b.lesson, b.section)?;
    app.choice(lesson, section, b.outcome, "outcome")?;
    app.store
        .result(&code, &who, lesson, section, v::measured(&b.measured)?, b.outcome)
        .await?;
    app.changed(&code).await?;
    Ok(Json(
        json!({ "released": may_reveal(&app, &code, lesson, section).await? }),
    ))
}

/// Whether a section's reveal may show: always, unless the class holds reveals until released.
async fn may_reveal(app: &App, code: &str, lesson: &str, section: u32) -> Result<bool, ClassError> {
    let (_, _, hold) = class(app, code).await?;
    Ok(!hold || app.store.is_released(code, lesson, section).await?)
}

#[derive(Deserialize)]
struct SectionQuery {
    lesson: String,
    section: u32,
}

async fn released(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
    StrictQuery(q): StrictQuery<SectionQuery>,
) -> Answer {
    let (lesson, section) = app.section(&q.lesson, q.section)?;
    Ok(Json(
        json!({ "released": may_reveal(&app, &code, lesson, section).await? }),
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
    Strict(b): Strict<Release>,
) -> Answer {
    instructor(&app, &code, &b.key).await?;
    let (lesson, section) = app.section(&b.lesson, b.section)?;
    app.store.release(&code, lesson, section).await?;
    app.changed(&code).await?;
    app.tell(&code, "release", json!({ "lesson": lesson, "section": section }))
        .await?;
    Ok(Json(json!({ "released": true })))
}

/// The instructor sends the class to a lesson's section: every page of the class hears `pace`.
async fn pace(State(app): State<Arc<App>>, Path(code): Path<String>, Strict(b): Strict<Release>) -> Answer {
    instructor(&app, &code, &b.key).await?;
    let (lesson, section) = app.section(&b.lesson, b.section)?;
    app.tell(&code, "pace", json!({ "lesson": lesson, "section": section }))
        .await?;
    Ok(Json(json!({ "sent": true })))
}

async fn results(State(app): State<Arc<App>>, Path(code): Path<String>, headers: HeaderMap) -> Answer {
    let (title, hold) = instructor(&app, &code, bearer(&headers)?).await?;
    let sections: Vec<Value> = app
        .store
        .records(&code)
        .await?
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

/// A one-use ticket for the dashboard's event stream (an `EventSource` cannot send headers, and a
/// key must not go in a URL: the ticket does, good for one stream within a minute; the store
/// keeps its digest, so any instance of the server takes it).
async fn ticket(State(app): State<Arc<App>>, Path(code): Path<String>, headers: HeaderMap) -> Answer {
    instructor(&app, &code, bearer(&headers)?).await?;
    let ticket = random_hex()?;
    app.store.issue_ticket(&digest(&ticket), &code).await?;
    Ok(Json(json!({ "ticket": ticket })))
}

/// The classes of the instructor whose secret the request carries: how a dashboard on another
/// device reattaches.
async fn my_classes(State(app): State<Arc<App>>, headers: HeaderMap) -> Answer {
    let name = app
        .instructors
        .as_ref()
        .and_then(|i| i.who(bearer(&headers).ok()?))
        .ok_or_else(|| ClassError::Forbidden("no instructor has this secret".into()))?;
    let classes: Vec<Value> = app
        .store
        .classes_of(name).await?
        .into_iter()
        .map(|(code, title, created, hold)| json!({ "code": code, "title": title, "created": created, "hold": hold }))
        .collect();
    Ok(Json(json!({ "instructor": name, "classes": classes })))
}
