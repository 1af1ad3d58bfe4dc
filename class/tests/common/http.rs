//! Requests to the router in-process, and a database of a test's own behind it.

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use axum::Router;
use serde_json::Value;
use tower::ServiceExt;

pub struct Db(pub super::TestDb);

impl Db {
    /// On the run's PostgreSQL server if it has one, else a SQLite file.
    pub fn new(name: &str) -> Self {
        Db(super::TestDb::new(name))
    }

    /// A SQLite file whatever the run, for what only a file has; its path.
    pub fn sqlite(name: &str) -> (Self, std::path::PathBuf) {
        let file = super::TempDb::new(name);
        let path = file.0.clone();
        (Db(super::TestDb::Sqlite(file)), path)
    }

    pub async fn store(&self) -> lab_class::Store {
        self.0.store().await
    }

    pub async fn server(&self, origin: Option<&str>) -> Router {
        lab_class::router(self.store().await, origin.map(String::from))
    }
}

/// Sends one request; (status, body as JSON, or as a string when it is not JSON).
pub async fn call(
    app: &Router,
    method: &str,
    uri: &str,
    body: Option<Value>,
    origin: Option<&str>,
) -> (StatusCode, Value) {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(o) = origin {
        req = req.header("origin", o);
    }
    let req = match body {
        Some(b) => req
            .header("content-type", "application/json")
            .body(Body::from(b.to_string())),
        None => req.body(Body::empty()),
    }
    .unwrap();
    let (status, _, body) = raw(app, req).await;
    (status, body)
}

/// Sends a request as built; (status, headers, body as JSON, or as a string when it is not JSON).
pub async fn raw(app: &Router, req: Request<Body>) -> (StatusCode, HeaderMap, Value) {
    let res = app.clone().oneshot(req).await.unwrap();
    let (status, headers) = (res.status(), res.headers().clone());
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    (
        status,
        headers,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

pub async fn post(app: &Router, uri: &str, body: Value) -> (StatusCode, Value) {
    call(app, "POST", uri, Some(body), None).await
}

pub async fn get(app: &Router, uri: &str) -> (StatusCode, Value) {
    call(app, "GET", uri, None, None).await
}

/// A GET with the instructor's `key` in its Authorization header (never in the URL).
pub async fn get_as(app: &Router, uri: &str, key: &str) -> (StatusCode, Value) {
    let req = Request::get(uri)
        .header("authorization", format!("Bearer {key}"))
        .body(Body::empty())
        .unwrap();
    let (status, _, body) = raw(app, req).await;
    (status, body)
}

/// Opens a class (anyone may, in these routers); its code and key.
pub async fn open(app: &Router, title: &str) -> (String, String) {
    let c = post(app, "/api/classes", serde_json::json!({ "title": title }))
        .await
        .1;
    (
        c["code"].as_str().unwrap().into(),
        c["key"].as_str().unwrap().into(),
    )
}

/// Joins class `code` as `nickname`; the student's token.
pub async fn join(app: &Router, code: &str, nickname: &str) -> String {
    let joined = post(
        app,
        &format!("/api/classes/{code}/join"),
        serde_json::json!({ "nickname": nickname }),
    )
    .await;
    joined.1["student"].as_str().unwrap().to_string()
}

/// A result post of `student` to class `code` (scaling-batch, section 0), named by idempotency
/// key `idem`: what a lesson page sends and retries.
pub fn result_post(code: &str, student: &str, measured: &str, idem: &str) -> Request<Body> {
    let body = serde_json::json!({ "student": student, "lesson": "scaling-batch", "section": 0, "measured": measured, "outcome": 1 });
    Request::post(format!("/api/classes/{code}/results"))
        .header("content-type", "application/json")
        .header("idempotency-key", idem)
        .body(Body::from(body.to_string()))
        .unwrap()
}
