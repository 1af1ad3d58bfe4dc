//! What can go wrong, each with the HTTP status and the message the client is given.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug, Clone, PartialEq)]
pub enum ClassError {
    /// A value the server does not accept, with what is wrong with it.
    Invalid(String),
    /// No such class (or student): the code or token is wrong.
    NotFound(String),
    /// The instructor key is missing or wrong.
    Forbidden(String),
    /// Taken already (a nickname in the class), with what to do instead.
    Conflict(String),
    /// Too many requests from one client.
    TooMany,
    /// A body over the size any request needs.
    TooLarge(String),
    /// A page from another site than the one configured.
    Origin(String),
    /// The database failed; the request changed nothing.
    Database(String),
}

impl std::fmt::Display for ClassError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClassError::Invalid(why)
            | ClassError::NotFound(why)
            | ClassError::Forbidden(why)
            | ClassError::Conflict(why)
            | ClassError::TooLarge(why) => f.write_str(why),
            ClassError::TooMany => f.write_str("too many requests: wait a second and try again"),
            ClassError::Origin(o) => write!(f, "requests from {o} are not accepted by this class server"),
            ClassError::Database(why) => write!(f, "the class database failed: {why}"),
        }
    }
}

impl std::error::Error for ClassError {}

impl From<rusqlite::Error> for ClassError {
    fn from(e: rusqlite::Error) -> Self {
        ClassError::Database(e.to_string())
    }
}

impl ClassError {
    pub fn status(&self) -> StatusCode {
        match self {
            ClassError::Invalid(_) => StatusCode::BAD_REQUEST,
            ClassError::NotFound(_) => StatusCode::NOT_FOUND,
            ClassError::Forbidden(_) | ClassError::Origin(_) => StatusCode::FORBIDDEN,
            ClassError::Conflict(_) => StatusCode::CONFLICT,
            ClassError::TooMany => StatusCode::TOO_MANY_REQUESTS,
            ClassError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ClassError::Database(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// Every error answers `{"error": "<what is wrong>"}` with its status; a 429 says when to retry.
impl IntoResponse for ClassError {
    fn into_response(self) -> Response {
        let mut r = (
            self.status(),
            axum::Json(serde_json::json!({ "error": self.to_string() })),
        )
            .into_response();
        if self == ClassError::TooMany {
            r.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("1"),
            );
        }
        r
    }
}
