//! Idempotency keys: a page sends each logical request (a lock, a result) with an
//! `Idempotency-Key` header it keeps across its retries. The first answer the server gave under
//! that key (200 only) is kept for ten minutes and given again to any retry, which then changes
//! nothing — so a retry of an old result arriving after a newer one cannot overwrite it. The
//! store keeps the answers (`Store::keep`): in PostgreSQL, a retry reaching another instance of
//! the server is answered the same.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ClassError;
use crate::shared::App;

/// The header a page names a request by, and the one a replayed answer carries.
pub const HEADER: &str = "idempotency-key";
pub const REPLAYED: &str = "idempotent-replayed";

pub(crate) async fn check(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let key = req
        .headers()
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|k| (8..=64).contains(&k.len()) && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        // Scoped by path: a key names one request to one class.
        .map(|k| format!("{} {k}", req.uri().path()));
    let Some(key) = key.filter(|_| req.method() == axum::http::Method::POST) else {
        return next.run(req).await;
    };
    let kept = match app.store.kept(&key).await {
        Ok(kept) => kept,
        Err(e) => return e.into_response(),
    };
    if let Some(body) = kept {
        let mut r = (
            StatusCode::OK,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response();
        r.headers_mut().insert(REPLAYED, HeaderValue::from_static("true"));
        return r;
    }
    let response = next.run(req).await;
    if response.status() != StatusCode::OK {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return ClassError::Database("an answer could not be kept for its retries".into()).into_response();
    };
    // The request took effect: its answer goes out even if it could not be kept.
    if let Err(e) = app.store.keep(&key, &bytes).await {
        eprintln!("lab-class: an answer not kept for its retries: {e}");
    }
    Response::from_parts(parts, Body::from(bytes))
}
