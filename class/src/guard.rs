//! Before any handler: a page from another site than the configured one is refused (and the
//! configured one gets its CORS headers, a preflight its answer — on every response, refusals
//! included, so a page can read why), and each request is charged to budgets — buckets of
//! `burst` that refill `per_second` a second — sized for a lecture hall behind one address:
//! a class's requests share the class's budget, a student's (named by the `x-lab-student`
//! header their page sends) their own too; only requests outside a class (opening one) are
//! budgeted by address — the peer's, or behind a configured reverse proxy the client's as the
//! proxy forwarded it (`X-Forwarded-For`, believed only from those proxies). One runaway page
//! cannot flood the class, and 500 students behind one NAT are not one client.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ClassError;

/// A budget: requests at once, and how many come back each second.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub burst: f64,
    pub per_second: f64,
}

/// One client address outside any class (opening classes, the health check).
pub const ADDRESS: Budget = Budget {
    burst: 60.0,
    per_second: 20.0,
};
/// One student's page: a lock, a result and a stream per section need a handful.
pub const STUDENT: Budget = Budget {
    burst: 60.0,
    per_second: 20.0,
};
/// A whole class: 2,000 students joining, locking and reporting within seconds of each other.
pub const CLASS: Budget = Budget {
    burst: 10_000.0,
    per_second: 2_000.0,
};

/// The header a student's page names itself by (its token; a budget's key, not an identity).
pub const STUDENT_HEADER: &str = "x-lab-student";

/// Buckets kept before idle full ones are dropped.
const MOST_BUCKETS: usize = 100_000;

pub struct Guard {
    origin: Option<String>,
    /// Reverse proxies whose `X-Forwarded-For` is believed.
    proxies: Vec<IpAddr>,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl Guard {
    pub fn new(origin: Option<String>, proxies: Vec<IpAddr>) -> Self {
        Self {
            origin: origin.map(|o| o.trim_end_matches('/').to_string()),
            proxies,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// The client a request comes from: its peer, unless the peer is a trusted proxy — then the
    /// nearest address in `X-Forwarded-For` that is not one (each proxy appends the address it
    /// heard from, so the entries before it are the client's word and not believed).
    pub fn client(&self, req: &Request) -> IpAddr {
        // Without a peer address (a test calling the router directly), one shared client.
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |c| c.0.ip());
        if !self.proxies.contains(&peer) {
            return peer;
        }
        let forwarded: Vec<&str> = req
            .headers()
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .collect();
        let mut nearest = peer;
        for hop in forwarded.iter().rev() {
            match hop.trim().parse::<IpAddr>() {
                Ok(ip) if self.proxies.contains(&ip) => nearest = ip,
                Ok(ip) => return ip,
                Err(_) => break,
            }
        }
        nearest
    }

    /// Takes one request from each of `keys`' budgets; false when one is spent (then none is
    /// charged).
    fn admit(&self, keys: &[(String, Budget)]) -> bool {
        let Ok(mut buckets) = self.buckets.lock() else {
            return true;
        };
        let now = Instant::now();
        if buckets.len() > MOST_BUCKETS {
            buckets.retain(|_, (_, at)| now.duration_since(*at).as_secs() < 10);
        }
        let mut refilled = Vec::with_capacity(keys.len());
        for (key, b) in keys {
            let (tokens, at) = buckets.get(key).copied().unwrap_or((b.burst, now));
            let tokens = (tokens + now.duration_since(at).as_secs_f64() * b.per_second).min(b.burst);
            if tokens < 1.0 {
                return false;
            }
            refilled.push((key.clone(), tokens - 1.0));
        }
        for (key, tokens) in refilled {
            buckets.insert(key, (tokens, now));
        }
        true
    }
}

/// The budgets a request is charged to.
fn budgets(guard: &Guard, req: &Request) -> Vec<(String, Budget)> {
    let class = req
        .uri()
        .path()
        .strip_prefix("/api/classes/")
        .and_then(|rest| rest.split('/').next())
        .filter(|code| !code.is_empty());
    let Some(code) = class else {
        return vec![(format!("address {}", guard.client(req)), ADDRESS)];
    };
    let code: String = code.chars().take(16).collect();
    let mut keys = vec![(format!("class {code}"), CLASS)];
    if let Some(student) = req.headers().get(STUDENT_HEADER).and_then(|s| s.to_str().ok()) {
        let student: String = student.chars().take(64).collect();
        keys.push((format!("student {code} {student}"), STUDENT));
    }
    keys
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
    let mut response = if req.method() == Method::OPTIONS {
        // A preflight costs nothing: the request it announces is charged.
        StatusCode::NO_CONTENT.into_response()
    } else if !guard.admit(&budgets(&guard, &req)) {
        ClassError::TooMany.into_response()
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
            HeaderValue::from_static("authorization, content-type, idempotency-key, x-lab-student"),
        );
        h.insert(header::VARY, HeaderValue::from_static("origin"));
    }
    response
}
