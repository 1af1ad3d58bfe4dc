//! Two server instances on one PostgreSQL database, as a department runs them behind one proxy
//! that sends each request to either: they are one class. A nickname is taken once across them,
//! a stream on one hears what was posted to the other (`NOTIFY`), a dashboard's ticket from one
//! opens a stream on the other once, and a retry reaching the other instance is answered as the
//! first try was. Only where the run has a PostgreSQL server (`LAB_CLASS_PG`: `scripts/test.sh`
//! starts one); skipped, saying so, elsewhere.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use futures_util::StreamExt;
use serde_json::json;
use tower::ServiceExt;

use super::common::http::{get_as, join, open, post, raw, result_post, Db};

/// Reads a server-sent-event stream until an event named `event` arrives (at most 10 s).
async fn hears(
    body: &mut (impl futures_util::Stream<Item = Result<axum::body::Bytes, axum::Error>> + Unpin),
    event: &str,
) -> String {
    let mut text = String::new();
    let wanted = format!("event: {event}\n");
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while !text.contains(&wanted) {
        let chunk = tokio::time::timeout_at(deadline, body.next())
            .await
            .unwrap_or_else(|_| panic!("no `{event}` within 10 s; heard {text:?}"))
            .expect("the stream goes on")
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    text
}

/// A GET left open: its body, a stream.
async fn stream(
    app: &Router,
    uri: &str,
) -> impl futures_util::Stream<Item = Result<axum::body::Bytes, axum::Error>> + Unpin {
    let res = app
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK, "{uri}");
    res.into_body().into_data_stream()
}

#[tokio::test]
async fn two_instances_on_one_postgres_database_are_one_class() {
    if super::common::postgres_url().is_none() {
        eprintln!(
            "skipped: {} is not set (scripts/test.sh starts PostgreSQL and runs this)",
            super::common::PG
        );
        return;
    }
    let db = Db::new("instances");
    let (a, b) = (db.server(None).await, db.server(None).await);
    let (code, key) = open(&a, "two instances").await;
    let ada = join(&a, &code, "Ada").await;
    let taken = post(
        &b,
        &format!("/api/classes/{code}/join"),
        json!({ "nickname": "ADA" }),
    )
    .await;
    assert_eq!(taken.0, StatusCode::CONFLICT, "{}", taken.1);
    let bo = join(&b, &code, "Bo").await;

    // A student's page streaming from B hears the instructor's pacing sent to A.
    let mut live = stream(&b, &format!("/api/classes/{code}/live")).await;
    hears(&mut live, "hello").await;
    let pace = json!({ "key": key, "lesson": "scaling-batch", "section": 1 });
    assert_eq!(
        post(&a, &format!("/api/classes/{code}/pace"), pace).await.0,
        StatusCode::OK
    );
    let heard = hears(&mut live, "pace").await;
    assert!(heard.contains(r#""section":1"#), "{heard}");

    // The dashboard's ticket, from A, opens one stream on B, which hears a lock posted to A.
    let ticket = raw(
        &a,
        Request::post(format!("/api/classes/{code}/ticket"))
            .header("authorization", format!("Bearer {key}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await
    .2["ticket"]
        .as_str()
        .unwrap()
        .to_string();
    let events = format!("/api/classes/{code}/events?ticket={ticket}");
    let mut dashboard = stream(&b, &events).await;
    hears(&mut dashboard, "change").await;
    let reused = raw(&a, Request::get(&events).body(Body::empty()).unwrap()).await;
    assert_eq!(reused.0, StatusCode::FORBIDDEN, "a ticket opens one stream");
    let lock = json!({ "student": ada, "lesson": "scaling-batch", "section": 0, "choice": 2 });
    assert_eq!(
        post(&a, &format!("/api/classes/{code}/predictions"), lock)
            .await
            .0,
        StatusCode::OK
    );
    hears(&mut dashboard, "change").await;

    // A result's retry reaching B after a newer result is answered as its first try, changing nothing.
    let result = |measured: &str, idem: &str| result_post(&code, &bo, measured, idem);
    assert_eq!(
        raw(&a, result("first run", "run-one-0001")).await.0,
        StatusCode::OK
    );
    assert_eq!(
        raw(&a, result("second run", "run-two-0002")).await.0,
        StatusCode::OK
    );
    let (s, headers, _) = raw(&b, result("first run", "run-one-0001")).await;
    assert_eq!(
        (s, headers.get("idempotent-replayed").map(|v| v.to_str().unwrap())),
        (StatusCode::OK, Some("true"))
    );
    let dash = get_as(&b, &format!("/api/classes/{code}/results"), &key).await.1;
    assert_eq!(dash["sections"][0]["predictions"], json!([["Ada", 2]]));
    assert_eq!(dash["sections"][0]["results"], json!([["Bo", "second run", 1]]));
}
