//! Before any handler: a page from another site than the configured one is refused (and the
//! configured one gets its CORS headers, a preflight its answer), and each client gets a budget
//! of requests — a bucket of `BURST` that refills `PER_SECOND` a second — so one runaway page
//! cannot flood the class.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ClassError;

/// Requests a client may make at once, and how many it gets back each second.
pub const BURST: f64 = 60.0;
pub const PER_SECOND: f64 = 20.0;

pub struct Guard {
    origin: Option<String>,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Guard {
    pub fn new(origin: Option<String>) -> Self {
        Self {
            origin: origin.map(|o| o.trim_end_matches('/').to_string()),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from `client`'s budget; false when it is spent.
    fn admit(&self, client: IpAddr) -> bool {
        let Ok(mut buckets) = self.buckets.lock() else {
            return true;
        };
        let now = Instant::now();
        let (tokens, at) = buckets.entry(client).or_insert((BURST, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * PER_SECOND).min(BURST);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

pub async fn check(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let origin = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .map(str::to_string);
    if let (Some(sent), Some(allowed)) = (&origin, &guard.origin) {
        if sent != allowed {
            return ClassError::Origin(sent.clone()).into_response();
        }
    }
    // Without a peer address (a test calling the router directly), all requests share a bucket.
    let client = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |c| c.0.ip());
    if !guard.admit(client) {
        return ClassError::TooMany.into_response();
    }
    let preflight = req.method() == Method::OPTIONS;
    let mut response = if preflight {
        StatusCode::NO_CONTENT.into_response()
    } else {
        next.run(req).await
    };
    if let Some(o) = origin.and_then(|o| HeaderValue::from_str(&o).ok()) {
        let h = response.headers_mut();
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, o);
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST"),
        );
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("content-type"),
        );
        h.insert(header::VARY, HeaderValue::from_static("origin"));
    }
    response
}
