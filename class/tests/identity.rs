//! Identities and records that hold (issue 82): nicknames normalized and unique, a rejoin keeping
//! its locks; strict requests answered in JSON; a spreadsheet-safe export and the gradebook's
//! layout; a database file that is the server's alone and holds no secret.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{json, Value};

use super::common::http::{get_as, join, open, post, raw, result_post, Db};

/// Nicknames are labels: normalized (NFC), unique in the class ignoring case, and free of
/// invisible or direction-changing characters. Identity is the token: a browser that rejoins with
/// its token gets it back, and its first lock still stands.
#[tokio::test]
async fn nicknames_are_labels_and_a_rejoin_keeps_its_locks() {
    let db = Db::new("identity");
    let app = db.server(None).await;
    let (code, key) = open(&app, "identity").await;
    let join = |body: Value| {
        let (app, code) = (app.clone(), code.clone());
        async move { post(&app, &format!("/api/classes/{code}/join"), body).await }
    };
    let (s, ada) = join(json!({ "nickname": "Ada" })).await;
    assert_eq!(s, StatusCode::OK);
    let token = ada["student"].as_str().unwrap().to_string();
    let (s, again) = join(json!({ "nickname": "ADA" })).await;
    assert_eq!(s, StatusCode::CONFLICT, "{again}");
    assert!(
        again["error"].as_str().unwrap().contains("Ada is taken"),
        "{again}"
    );
    for hidden in ["Ad\u{200B}a", "\u{202E}adA", "Bo\u{2069}"] {
        let (s, r) = join(json!({ "nickname": hidden })).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{hidden:?}: {r}");
    }
    // "Rene" + a combining accent is stored as "René", so the precomposed spelling is taken.
    assert_eq!(join(json!({ "nickname": "Rene\u{301}" })).await.0, StatusCode::OK);
    assert_eq!(
        join(json!({ "nickname": "Ren\u{e9}" })).await.0,
        StatusCode::CONFLICT
    );

    let lock =
        |choice: u32| json!({ "student": token, "lesson": "scaling-batch", "section": 2, "choice": choice });
    assert_eq!(
        post(&app, &format!("/api/classes/{code}/predictions"), lock(1))
            .await
            .1["choice"],
        1
    );
    let (s, back) = join(json!({ "nickname": "Ada", "student": token })).await;
    assert_eq!(
        (s, back["student"].as_str()),
        (StatusCode::OK, Some(token.as_str())),
        "{back}"
    );
    assert_eq!(
        post(&app, &format!("/api/classes/{code}/predictions"), lock(0))
            .await
            .1["choice"],
        1
    );
    let dash = get_as(&app, &format!("/api/classes/{code}/results"), &key)
        .await
        .1;
    assert_eq!(dash["sections"][0]["locked"], 1, "one student, one lock");
}

/// Requests are JSON and only JSON, and every refusal is a JSON reason: trailing bytes after the
/// body, a body not sent as JSON, a query missing a field, a path that is no request.
#[tokio::test]
async fn strict_requests_and_json_refusals() {
    let db = Db::new("strict");
    let app = db.server(None).await;
    let (code, _) = open(&app, "strict").await;
    let post_text = |body: &str, kind: &str| {
        Request::post("/api/classes")
            .header("content-type", kind)
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let cases = [
        (
            post_text(r#"{"title":"t"} trailing"#, "application/json"),
            StatusCode::BAD_REQUEST,
            "trailing characters",
        ),
        (
            post_text(r#"{"title":"t"}"#, "text/plain"),
            StatusCode::BAD_REQUEST,
            "sent as application/json",
        ),
        (
            Request::get(format!("/api/classes/{code}/released?lesson=scaling-batch"))
                .body(Body::empty())
                .unwrap(),
            StatusCode::BAD_REQUEST,
            "missing field `section`",
        ),
        (
            Request::get("/api/nothing-here").body(Body::empty()).unwrap(),
            StatusCode::NOT_FOUND,
            "no such request",
        ),
    ];
    for (req, status, says) in cases {
        let what = format!("{} {}", req.method(), req.uri());
        let (s, _, body) = raw(&app, req).await;
        assert_eq!(s, status, "{what}: {body}");
        assert!(
            body["error"].as_str().is_some_and(|e| e.contains(says)),
            "{what}: {body}"
        );
    }
}

/// A nickname a spreadsheet would run as a formula reaches it as text.
#[tokio::test]
async fn the_export_keeps_formulas_out_of_the_spreadsheet() {
    assert_eq!(
        lab_class::export::csv_cell("=HYPERLINK(\"x\")"),
        "\"'=HYPERLINK(\"\"x\"\")\""
    );
    for risky in ["+1", "-1", "@SUM(A1)", "\tx"] {
        assert!(lab_class::export::csv_cell(risky).starts_with("\"'"), "{risky:?}");
    }
    assert_eq!(lab_class::export::csv_cell("Ada"), "\"Ada\"");
    let db = Db::new("formula");
    let app = db.server(None).await;
    let (code, key) = open(&app, "formula").await;
    let student = post(
        &app,
        &format!("/api/classes/{code}/join"),
        json!({ "nickname": "=1+1" }),
    )
    .await
    .1["student"]
        .as_str()
        .unwrap()
        .to_string();
    post(
        &app,
        &format!("/api/classes/{code}/predictions"),
        json!({ "student": student, "lesson": "scaling-batch", "section": 0, "choice": 0 }),
    )
    .await;
    let csv = get_as(&app, &format!("/api/classes/{code}/export.csv"), &key)
        .await
        .1;
    assert!(csv.as_str().unwrap().contains(",\"'=1+1\",1,\"\","), "{csv}");
}

/// The database file is its owner's alone, and holds no key or token: a copy of it opens no class.
/// A file from before keeps working: its clear secrets are replaced by their digests on opening.
#[tokio::test]
async fn the_database_is_private_and_holds_no_secret() {
    let (db, file) = Db::sqlite("private");
    let app = db.server(None).await;
    let (code, key) = open(&app, "private").await;
    let token = join(&app, &code, "Ada").await;
    drop(app);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{mode:o}");
    }
    let files: Vec<u8> = ["", "-wal"]
        .iter()
        .flat_map(|s| std::fs::read(format!("{}{s}", file.display())).unwrap_or_default())
        .collect();
    let text = String::from_utf8_lossy(&files);
    assert!(
        !text.contains(&key) && !text.contains(&token),
        "a secret in the file"
    );
    assert!(
        text.contains(&lab_class::secret::digest(&key)),
        "the key's digest is"
    );

    // A version-2 file (secrets in clear) opens, and its key and token still work.
    let (old, old_file) = Db::sqlite("version-2");
    {
        let c = rusqlite::Connection::open(&old_file).unwrap();
        c.execute_batch(
            "CREATE TABLE classes (code TEXT PRIMARY KEY, key TEXT NOT NULL, title TEXT NOT NULL, created INTEGER NOT NULL, hold INTEGER NOT NULL DEFAULT 0);
             CREATE TABLE students (class TEXT NOT NULL, token TEXT NOT NULL, nickname TEXT NOT NULL, PRIMARY KEY (class, token));
             CREATE TABLE predictions (class TEXT NOT NULL, student TEXT NOT NULL, lesson TEXT NOT NULL, section INTEGER NOT NULL, choice INTEGER NOT NULL, state TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (class, student, lesson, section));
             CREATE TABLE results (class TEXT NOT NULL, student TEXT NOT NULL, lesson TEXT NOT NULL, section INTEGER NOT NULL, measured TEXT NOT NULL, outcome INTEGER NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (class, student, lesson, section));
             CREATE TABLE released (class TEXT NOT NULL, lesson TEXT NOT NULL, section INTEGER NOT NULL, PRIMARY KEY (class, lesson, section));
             INSERT INTO classes VALUES ('K7QX2M', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'old', 0, 0);
             INSERT INTO students VALUES ('K7QX2M', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'Bo');
             INSERT INTO predictions VALUES ('K7QX2M', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'scaling-batch', 0, 2, '', 0);
             PRAGMA user_version = 2;",
        )
        .unwrap();
    }
    let app = old.server(None).await;
    let dash = get_as(&app, "/api/classes/K7QX2M/results", &"a".repeat(32)).await;
    assert_eq!(dash.0, StatusCode::OK, "{}", dash.1);
    assert_eq!(dash.1["sections"][0]["predictions"], json!([["Bo", 2]]));
    let lock = json!({ "student": "b".repeat(32), "lesson": "scaling-batch", "section": 0, "choice": 0 });
    assert_eq!(
        post(&app, "/api/classes/K7QX2M/predictions", lock).await.1["choice"],
        2,
        "Bo's first lock stands"
    );
}

/// The gradebook layout: a row per student of the class (one who never answered too), three
/// columns per section — the choice predicted and the measured value as the page numbers and
/// shows them, and whether the measurement fell in the predicted choice.
#[tokio::test]
async fn the_gradebook_export_has_a_row_per_student_and_columns_per_section() {
    let db = Db::new("gradebook");
    let app = db.server(None).await;
    let (code, key) = open(&app, "gradebook").await;
    let mut tokens = Vec::new();
    for nick in ["Ada", "Bo", "Cy"] {
        let joined = post(
            &app,
            &format!("/api/classes/{code}/join"),
            json!({ "nickname": nick }),
        )
        .await
        .1;
        tokens.push(joined["student"].as_str().unwrap().to_string());
    }
    let send = |what: &str, body: Value| {
        let (app, uri) = (app.clone(), format!("/api/classes/{code}/{what}"));
        async move { post(&app, &uri, body).await }
    };
    // Ada predicts choice 1 (shown as 2) and measures into it; Bo predicts 0 and measures into 2.
    for (t, choice, outcome) in [(&tokens[0], 1, 1), (&tokens[1], 0, 2)] {
        send(
            "predictions",
            json!({ "student": t, "lesson": "scaling-batch", "section": 1, "choice": choice }),
        )
        .await;
        send("results", json!({ "student": t, "lesson": "scaling-batch", "section": 1, "measured": "0.9", "outcome": outcome })).await;
    }
    let csv = get_as(
        &app,
        &format!("/api/classes/{code}/export.csv?layout=gradebook"),
        &key,
    )
    .await
    .1;
    assert_eq!(
        csv.as_str().unwrap(),
        "nickname,\"scaling-batch 2 predicted\",\"scaling-batch 2 measured\",\"scaling-batch 2 correct\"\n\
         \"Ada\",2,\"0.9\",yes\n\"Bo\",1,\"0.9\",no\n\"Cy\",,\"\",\n"
    );
    let bad = get_as(&app, &format!("/api/classes/{code}/export.csv?layout=wide"), &key).await;
    assert_eq!(bad.0, StatusCode::BAD_REQUEST, "{}", bad.1);
}

/// A page names each post by an idempotency key kept across its retries: a retry is answered as
/// the first try was and changes nothing — an old result's retry arriving after a newer result
/// does not overwrite it.
#[tokio::test]
async fn a_retried_post_changes_nothing() {
    let db = Db::new("replay");
    let app = db.server(None).await;
    let (code, key) = open(&app, "replay").await;
    let student = join(&app, &code, "Ada").await;
    let result = |measured: &str, idem: &str| result_post(&code, &student, measured, idem);
    assert_eq!(
        raw(&app, result("first run", "run-one-0001")).await.0,
        StatusCode::OK
    );
    assert_eq!(
        raw(&app, result("second run", "run-two-0002")).await.0,
        StatusCode::OK
    );
    let (s, headers, _) = raw(&app, result("first run", "run-one-0001")).await;
    assert_eq!(
        (s, headers.get("idempotent-replayed").map(|v| v.to_str().unwrap())),
        (StatusCode::OK, Some("true"))
    );
    let dash = get_as(&app, &format!("/api/classes/{code}/results"), &key)
        .await
        .1;
    assert_eq!(
        dash["sections"][0]["results"],
        json!([["Ada", "second run", 1]]),
        "the newer run stands"
    );
}
