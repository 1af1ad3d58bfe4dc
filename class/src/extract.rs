//! The request's parts as the API takes them, each refused with a JSON error (and so with the
//! guard's CORS headers) rather than axum's plain-text rejections: a body that is JSON and only
//! JSON (no trailing bytes: axum's own extractor stops at the first value), sent as
//! `application/json` (which a cross-site form cannot send without a preflight), and a query
//! string that parses.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::{header, request::Parts, StatusCode};
use serde::de::DeserializeOwned;

use crate::error::ClassError;

/// The largest body a request may carry: a lesson state is the largest value.
pub const BODY_LIMIT: usize = 16 * 1024;

/// A JSON body, strictly: the whole body one value of `T`.
pub struct Strict<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Strict<T> {
    type Rejection = ClassError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ClassError> {
        let json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(';')
                    .next()
                    .is_some_and(|m| m.trim() == "application/json")
            });
        if !json {
            return Err(ClassError::Invalid(
                "the body must be JSON, sent as application/json".into(),
            ));
        }
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|e| match e.status() {
                StatusCode::PAYLOAD_TOO_LARGE => {
                    ClassError::TooLarge(format!("the request is over {BODY_LIMIT} bytes"))
                }
                _ => ClassError::Invalid(e.body_text()),
            })?;
        // `from_slice` reads to the end: anything after the value is refused.
        serde_json::from_slice(&bytes)
            .map(Strict)
            .map_err(|e| ClassError::Invalid(format!("the body: {e}")))
    }
}

/// A query string of `T`'s fields.
pub struct StrictQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for StrictQuery<T> {
    type Rejection = ClassError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ClassError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| StrictQuery(q.0))
            .map_err(|e| ClassError::Invalid(format!("the query: {}", e.body_text())))
    }
}
