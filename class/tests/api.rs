//! The class server's API against a real SQLite file: a class opened, two students joining,
//! locking and reporting, the dashboard's counts and the CSV export; the server restarted in the
//! middle of the class (nothing lost, the locks still first-come); bad input refused with what is
//! wrong; a flood cut off; another site's pages refused. Requests go to the router in-process.

use axum::http::StatusCode;
use serde_json::json;

use super::common::http::{call, get, get_as, join, post, Db};

#[tokio::test]
async fn a_class_locks_reports_and_exports_and_survives_a_restart() {
    let db = Db::new("class");
    let app = db.server(None).await;
    let (s, class) = post(&app, "/api/classes", json!({ "title": "ML systems, week 3" })).await;
    assert_eq!(s, StatusCode::OK, "{class}");
    let (code, key) = (
        class["code"].as_str().unwrap().to_string(),
        class["key"].as_str().unwrap().to_string(),
    );
    assert_eq!(code.len(), 6);
    let join = |nick: &'static str| {
        let (app, code) = (app.clone(), code.clone());
        async move {
            post(
                &app,
                &format!("/api/classes/{code}/join"),
                json!({ "nickname": nick }),
            )
            .await
            .1["student"]
                .as_str()
                .unwrap()
                .to_string()
        }
    };
    let (ada, bo) = (join("Ada").await, join("Bo").await);
    let lock = |student: String, choice: u32| {
        let (app, code) = (app.clone(), code.clone());
        async move {
            post(&app, &format!("/api/classes/{code}/predictions"), json!({ "student": student, "lesson": "optimizers-momentum", "section": 0, "choice": choice, "state": "kappa=100" })).await
        }
    };
    assert_eq!(lock(ada.clone(), 1).await.1["choice"], 1);
    assert_eq!(lock(bo.clone(), 2).await.1["choice"], 2);

    // The server stops in the middle of the class and starts again on the same file.
    drop(app);
    let app = db.server(None).await;
    // A second lock does not change the first.
    let (s, again) = post(
        &app,
        &format!("/api/classes/{code}/predictions"),
        json!({ "student": ada, "lesson": "optimizers-momentum", "section": 0, "choice": 0 }),
    )
    .await;
    assert_eq!((s, again["choice"].as_u64()), (StatusCode::OK, Some(1)));
    let report = |student: &str, measured: &str, outcome: i64| json!({ "student": student, "lesson": "optimizers-momentum", "section": 0, "measured": measured, "outcome": outcome });
    let (s, r) = post(
        &app,
        &format!("/api/classes/{code}/results"),
        report(&ada, "9.3 ×", 1),
    )
    .await;
    assert_eq!(
        (s, r["released"].as_bool()),
        (StatusCode::OK, Some(true)),
        "a class that does not hold reveals shows them"
    );
    post(
        &app,
        &format!("/api/classes/{code}/results"),
        report(&bo, "9.1 ×", 1),
    )
    .await;

    let (s, dash) = get_as(&app, &format!("/api/classes/{code}/results"), &key).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(dash["title"], "ML systems, week 3");
    let section = &dash["sections"][0];
    assert_eq!(
        (section["lesson"].as_str(), section["locked"].as_u64()),
        (Some("optimizers-momentum"), Some(2))
    );
    assert_eq!(
        section["counts"],
        json!([0, 1, 1]),
        "one student chose 1, one chose 2"
    );
    assert_eq!(
        section["results"],
        json!([["Ada", "9.3 ×", 1], ["Bo", "9.1 ×", 1]])
    );

    let (s, csv) = get_as(&app, &format!("/api/classes/{code}/export.csv"), &key).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        csv.as_str().unwrap(),
        "lesson,section,nickname,predicted,measured,outcome\noptimizers-momentum,1,\"Ada\",2,\"9.3 ×\",2\noptimizers-momentum,1,\"Bo\",3,\"9.1 ×\",2\n",
        "sections and choices numbered from 1, as the page shows them"
    );
    // Without the instructor's key: nothing.
    let wrong = "0".repeat(32);
    assert_eq!(
        get_as(&app, &format!("/api/classes/{code}/results"), &wrong)
            .await
            .0,
        StatusCode::FORBIDDEN
    );
}

#[tokio::test]
async fn a_held_reveal_shows_once_the_instructor_releases_it() {
    let db = Db::new("hold");
    let app = db.server(None).await;
    let class = post(&app, "/api/classes", json!({ "title": "held", "hold": true }))
        .await
        .1;
    let (code, key) = (class["code"].as_str().unwrap(), class["key"].as_str().unwrap());
    let uri = format!("/api/classes/{code}/released?lesson=scaling-batch&section=1");
    assert_eq!(get(&app, &uri).await.1["released"], false);
    let (s, _) = post(
        &app,
        &format!("/api/classes/{code}/release"),
        json!({ "key": key, "lesson": "scaling-batch", "section": 1 }),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(get(&app, &uri).await.1["released"], true);
    assert_eq!(
        get(
            &app,
            &format!("/api/classes/{code}/released?lesson=scaling-batch&section=0")
        )
        .await
        .1["released"],
        false
    );
}

#[tokio::test]
async fn bad_input_is_refused_with_what_is_wrong() {
    let db = Db::new("bad");
    let app = db.server(None).await;
    let class = post(&app, "/api/classes", json!({ "title": "t" })).await.1;
    let code = class["code"].as_str().unwrap();
    let student = join(&app, code, "Ada").await;
    let cases = [
        (
            "/api/classes",
            json!({ "title": "" }),
            StatusCode::BAD_REQUEST,
            "title: 1 to 80 characters",
        ),
        (
            "/api/classes",
            json!({ "title": "t", "admin": true }),
            StatusCode::BAD_REQUEST,
            "unknown field `admin`",
        ),
        (
            "/api/classes/abc/join",
            json!({ "nickname": "x" }),
            StatusCode::BAD_REQUEST,
            "class code",
        ),
        (
            "/api/classes/ZZZZZZ/join",
            json!({ "nickname": "x" }),
            StatusCode::NOT_FOUND,
            "no class ZZZZZZ",
        ),
        (
            &format!("/api/classes/{code}/join"),
            json!({ "nickname": "x".repeat(41) }),
            StatusCode::BAD_REQUEST,
            "nickname: 1 to 40 characters",
        ),
        (
            &format!("/api/classes/{code}/predictions"),
            json!({ "student": student, "lesson": "../x", "section": 0, "choice": 0 }),
            StatusCode::BAD_REQUEST,
            "lesson: a lesson id",
        ),
        (
            &format!("/api/classes/{code}/predictions"),
            json!({ "student": student, "lesson": "a", "section": 0, "choice": 99 }),
            StatusCode::BAD_REQUEST,
            "choice: 0 to 20",
        ),
        (
            &format!("/api/classes/{code}/predictions"),
            json!({ "student": "f".repeat(32), "lesson": "a", "section": 0, "choice": 0 }),
            StatusCode::NOT_FOUND,
            "no such student",
        ),
        (
            &format!("/api/classes/{code}/results"),
            json!({ "student": student, "lesson": "a", "section": 0, "measured": "", "outcome": 0 }),
            StatusCode::BAD_REQUEST,
            "measured: 1 to 64 characters",
        ),
        (
            &format!("/api/classes/{code}/results"),
            json!({ "student": student, "lesson": "a", "section": 0, "measured": "1", "outcome": 50 }),
            StatusCode::BAD_REQUEST,
            "outcome",
        ),
    ];
    for (uri, body, status, says) in cases {
        let (s, r) = post(&app, uri, body.clone()).await;
        assert_eq!(s, status, "{uri} {body}: {r}");
        assert!(
            r["error"].as_str().unwrap_or("").contains(says),
            "{uri} {body}: {r}"
        );
    }
    // Not JSON, and too large a body.
    let (s, r) = call(&app, "POST", "/api/classes", None, None).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{r}");
    let (s, _) = post(
        &app,
        &format!("/api/classes/{code}/predictions"),
        json!({ "student": student, "lesson": "a", "section": 0, "choice": 0, "state": "x".repeat(20_000) }),
    )
    .await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn a_flood_is_cut_off_and_another_sites_pages_are_refused() {
    let db = Db::new("flood");
    let app = db.server(Some("http://127.0.0.1:8080")).await;
    let mut limited = 0;
    for _ in 0..100 {
        if get(&app, "/api/health").await.0 == StatusCode::TOO_MANY_REQUESTS {
            limited += 1;
        }
    }
    // A bucket of 60 refilling 20 a second: most of a burst of 100 past the 60th is refused.
    assert!(limited >= 30, "{limited} of 100 refused");
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let (s, _) = call(&app, "GET", "/api/health", None, Some("http://127.0.0.1:8080")).await;
    assert_eq!(s, StatusCode::OK, "the configured site, after a pause");
    let (s, r) = call(
        &app,
        "GET",
        "/api/health",
        None,
        Some("https://elsewhere.example"),
    )
    .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert!(r["error"].as_str().unwrap().contains("https://elsewhere.example"));
}
