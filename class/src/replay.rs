//! Idempotency keys: a page sends each logical request (a lock, a result) with an
//! `Idempotency-Key` header it keeps across its retries. The first answer the server gave under
//! that key (200 only) is kept for ten minutes and given again to any retry, which then changes
//! nothing — so a retry of an old result arriving after a newer one cannot overwrite it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ClassError;

/// How long an answer is kept for its retries.
const KEPT: Duration = Duration::from_secs(600);
/// Answers kept at most (the oldest go first when full).
const MOST: usize = 200_000;
/// The header a page names a request by, and the one a replayed answer carries.
pub const HEADER: &str = "idempotency-key";
pub const REPLAYED: &str = "idempotent-replayed";

#[derive(Default)]
pub struct Replays {
    answers: Mutex<HashMap<String, (Instant, axum::body::Bytes)>>,
}

pub async fn check(State(replays): State<Arc<Replays>>, req: Request, next: Next) -> Response {
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
    if let Some(body) = replays.answers.lock().ok().and_then(|a| {
        a.get(&key)
            .filter(|(at, _)| at.elapsed() < KEPT)
            .map(|(_, b)| b.clone())
    }) {
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
    if let Ok(mut answers) = replays.answers.lock() {
        if answers.len() >= MOST {
            answers.retain(|_, (at, _)| at.elapsed() < KEPT);
        }
        if answers.len() < MOST {
            answers.insert(key, (Instant::now(), bytes.clone()));
        }
    }
    Response::from_parts(parts, Body::from(bytes))
}
