//! The class server in a lecture hall (issue 82): hundreds of students behind one address, a
//! student's flood refused in a way their page can read, forwarded addresses believed from
//! trusted proxies only, the bench's hall, ids checked against the course, and instructors who
//! open classes and reattach from any device with keys kept out of URLs.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;
use tower::ServiceExt;

use super::common::http::{get, get_as, join, open, post, raw, Db};

/// 300 students behind one address (the router sees no peer address: one client to a per-address
/// limit) join, lock, report and ask three times whether the reveal may show: every request is
/// answered. The limit per address refused most of this.
#[tokio::test]
async fn three_hundred_students_behind_one_address_are_all_answered() {
    let db = Db::new("hall");
    let app = db.server(None).await;
    let (code, key) = open(&app, "hall").await;
    let mut refused = 0;
    for i in 0..300 {
        let joined = post(
            &app,
            &format!("/api/classes/{code}/join"),
            json!({ "nickname": format!("student {i}") }),
        )
        .await;
        assert_eq!(joined.0, StatusCode::OK, "{}", joined.1);
        let student = joined.1["student"].as_str().unwrap().to_string();
        let lock = json!({ "student": student, "lesson": "scaling-batch", "section": 0, "choice": i % 3 });
        let result = json!({ "student": student, "lesson": "scaling-batch", "section": 0, "measured": "1.0", "outcome": 1 });
        let mut answers = vec![
            post(&app, &format!("/api/classes/{code}/predictions"), lock)
                .await
                .0,
            post(&app, &format!("/api/classes/{code}/results"), result)
                .await
                .0,
        ];
        for _ in 0..3 {
            answers.push(
                get(
                    &app,
                    &format!("/api/classes/{code}/released?lesson=scaling-batch&section=0"),
                )
                .await
                .0,
            );
        }
        refused += answers.iter().filter(|s| **s != StatusCode::OK).count();
    }
    assert_eq!(refused, 0, "requests refused");
    let dash = get_as(&app, &format!("/api/classes/{code}/results"), &key)
        .await
        .1;
    assert_eq!(dash["sections"][0]["locked"], 300);
}

/// One student's page sending far too much is refused alone, with a JSON reason, a Retry-After
/// and the CORS headers its page needs to read them; the class goes on.
#[tokio::test]
async fn a_students_flood_is_refused_readably_and_the_class_goes_on() {
    let site = "https://labs.example.edu";
    let db = Db::new("student-flood");
    let app = db.server(Some(site)).await;
    let (code, _) = open(&app, "flood").await;
    let uri = format!("/api/classes/{code}/released?lesson=scaling-batch&section=0");
    let request = |student: &str| {
        Request::get(&uri)
            .header("origin", site)
            .header("x-lab-student", student)
            .body(Body::empty())
            .unwrap()
    };
    let mut refusal = None;
    for _ in 0..100 {
        let answer = raw(&app, request("a-runaway-page")).await;
        if answer.0 == StatusCode::TOO_MANY_REQUESTS {
            refusal = Some(answer);
        }
    }
    let (_, headers, body) = refusal.expect("the flood is cut off");
    assert!(
        body["error"].as_str().unwrap().contains("too many requests"),
        "{body}"
    );
    assert_eq!(headers["access-control-allow-origin"], site);
    assert_eq!(headers["retry-after"], "1");
    assert_eq!(
        raw(&app, request("another-student")).await.0,
        StatusCode::OK,
        "another student is answered"
    );
}

/// Behind a trusted reverse proxy the client is the address it forwarded: two clients behind the
/// proxy have budgets of their own. From any other peer `X-Forwarded-For` is the client's own word,
/// ignored: a flood rotating it is still one client.
#[tokio::test]
async fn forwarded_addresses_are_believed_from_trusted_proxies_only() {
    use axum::extract::ConnectInfo;
    let db = Db::new("proxy");
    let proxy: std::net::IpAddr = "10.0.0.1".parse().unwrap();
    let config = lab_class::Config {
        proxies: vec![proxy],
        ..Default::default()
    };
    let app = lab_class::api::router_stoppable(db.store().await, config).0;
    let from = |peer: &str, forwarded: &str| {
        let mut req = Request::get("/api/health")
            .header("x-forwarded-for", forwarded)
            .body(Body::empty())
            .unwrap();
        let peer: std::net::SocketAddr = format!("{peer}:5000").parse().unwrap();
        req.extensions_mut().insert(ConnectInfo(peer));
        req
    };
    let mut refused = 0;
    for i in 0..100 {
        // The proxy appends the address it heard from; what comes before it is not believed.
        refused += (raw(&app, from("10.0.0.1", &format!("6.6.6.{i}, 1.1.1.1")))
            .await
            .0
            == StatusCode::TOO_MANY_REQUESTS) as u32;
    }
    assert!(
        refused >= 30,
        "1.1.1.1's flood through the proxy: {refused} refused"
    );
    assert_eq!(
        raw(&app, from("10.0.0.1", "2.2.2.2")).await.0,
        StatusCode::OK,
        "another client behind the proxy"
    );
    let mut refused = 0;
    for i in 0..100 {
        refused += (raw(&app, from("10.0.0.9", &format!("7.7.7.{i}"))).await.0
            == StatusCode::TOO_MANY_REQUESTS) as u32;
    }
    assert!(
        refused >= 30,
        "an untrusted peer's rotating X-Forwarded-For: {refused} refused"
    );
}

/// The bench itself (`lab-class bench`): 200 students behind one address at once, each lock and
/// result acknowledged, the release heard on every page's stream — on PostgreSQL too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bench_hall_of_two_hundred_loses_nothing() {
    let db = super::common::TestDb::new("bench");
    let postgres = match &db {
        super::common::TestDb::Postgres(p) => Some(p.url.as_str()),
        super::common::TestDb::Sqlite(_) => None,
    };
    let report = lab_class::bench::run(200, postgres).await.unwrap();
    assert_eq!((report.acknowledged, report.lost), (400, 0), "{report}");
    assert_eq!(
        report.release.len(),
        200,
        "every page heard the release: {report}"
    );
    assert_eq!(lab_class::bench::quantile(&[1.0, 2.0, 3.0], 0.5), 2.0);
}

/// With the course's lessons (`--lessons`), every id a page sends is checked against them: an
/// unknown lesson, a section past the lesson's last, a choice past the section's last are refused
/// with the reason; the lessons of the site itself are read whole.
#[tokio::test]
async fn ids_are_checked_against_the_course() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../public/lessons"));
    let site = lab_class::catalogue::Catalogue::read(dir).unwrap();
    // Every lesson file: all but the course's outline and the lessons' schema.
    let files = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .count();
    assert_eq!(site.len(), files - 2, "the course's lessons");
    assert!(site.section("course", 0).is_err());
    let db = Db::new("catalogue");
    let config = lab_class::Config {
        lessons: Some(lab_class::catalogue::Catalogue::of(&[("scaling-batch", &[3, 2])])),
        ..Default::default()
    };
    let app = lab_class::api::router_stoppable(db.store().await, config).0;
    let (code, _) = open(&app, "course").await;
    let student = join(&app, &code, "Ada").await;
    let lock = |lesson: &str, section: u32, choice: u32| json!({ "student": student, "lesson": lesson, "section": section, "choice": choice });
    let uri = format!("/api/classes/{code}/predictions");
    for (body, says) in [
        (lock("course", 0, 0), "the course has no lesson course"),
        (
            lock("scaling-batch", 2, 0),
            "lesson scaling-batch has sections 0 to 1",
        ),
        (
            lock("scaling-batch", 1, 2),
            "choice: section 1 of scaling-batch has choices 0 to 1, not 2",
        ),
    ] {
        let (s, r) = post(&app, &uri, body.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {r}");
        assert!(r["error"].as_str().unwrap().contains(says), "{body}: {r}");
    }
    assert_eq!(
        post(&app, &uri, lock("scaling-batch", 1, 1)).await.0,
        StatusCode::OK
    );
    let result =
        json!({ "student": student, "lesson": "scaling-batch", "section": 0, "measured": "1", "outcome": 3 });
    let (s, r) = post(&app, &format!("/api/classes/{code}/results"), result).await;
    assert!(
        s == StatusCode::BAD_REQUEST && r["error"].as_str().unwrap().contains("outcome"),
        "{r}"
    );
    let asked = get(
        &app,
        &format!("/api/classes/{code}/released?lesson=nope&section=0"),
    )
    .await;
    assert_eq!(asked.0, StatusCode::BAD_REQUEST, "{}", asked.1);
}

/// On a campus server (`--instructors`) only an instructor opens a class, with their secret in
/// the Authorization header; the class is theirs: their secret opens its dashboard from any device
/// and lists their classes, another instructor's does not. Keys travel in headers: a key in the
/// URL opens nothing, and the dashboard's stream takes a one-use ticket.
#[tokio::test]
async fn instructors_open_classes_and_reattach_from_any_device() {
    let (ada, bo) = ("a".repeat(32), "b".repeat(32));
    let db = Db::new("instructors");
    let config = lab_class::Config {
        instructors: Some(lab_class::instructors::Instructors::of(&[
            ("ada", &ada),
            ("bo", &bo),
        ])),
        ..Default::default()
    };
    let app = lab_class::api::router_stoppable(db.store().await, config).0;
    let open_as = |secret: Option<&str>| {
        let mut req = Request::post("/api/classes").header("content-type", "application/json");
        if let Some(s) = secret {
            req = req.header("authorization", format!("Bearer {s}"));
        }
        req.body(Body::from(r#"{"title":"week 3"}"#)).unwrap()
    };
    let (s, _, r) = raw(&app, open_as(None)).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("needs an instructor's secret"),
        "{r}"
    );
    assert_eq!(
        raw(&app, open_as(Some(&"c".repeat(32)))).await.0,
        StatusCode::FORBIDDEN,
        "not an instructor"
    );
    let (s, _, class) = raw(&app, open_as(Some(&ada))).await;
    assert_eq!(s, StatusCode::OK, "{class}");
    let code = class["code"].as_str().unwrap();
    let key = class["key"].as_str().unwrap();
    // Another device: Ada's secret lists her class and opens its dashboard; Bo's does neither.
    let mine = get_as(&app, "/api/instructor/classes", &ada).await.1;
    assert_eq!(
        (mine["instructor"].as_str(), mine["classes"][0]["code"].as_str()),
        (Some("ada"), Some(code))
    );
    assert_eq!(
        get_as(&app, "/api/instructor/classes", &bo).await.1["classes"],
        json!([])
    );
    let results = format!("/api/classes/{code}/results");
    assert_eq!(get_as(&app, &results, &ada).await.0, StatusCode::OK);
    assert_eq!(
        get_as(&app, &results, key).await.0,
        StatusCode::OK,
        "the class key too"
    );
    assert_eq!(get_as(&app, &results, &bo).await.0, StatusCode::FORBIDDEN);
    let in_url = get(&app, &format!("{results}?key={key}")).await;
    assert_eq!(
        in_url.0,
        StatusCode::FORBIDDEN,
        "a key in the URL opens nothing: {}",
        in_url.1
    );
    // The stream's ticket: good once.
    let ticket = |secret: &str| {
        Request::post(format!("/api/classes/{code}/ticket"))
            .header("authorization", format!("Bearer {secret}"))
            .body(Body::empty())
            .unwrap()
    };
    let t = raw(&app, ticket(&ada)).await.2["ticket"]
        .as_str()
        .unwrap()
        .to_string();
    let events = format!("/api/classes/{code}/events?ticket={t}");
    let first = app
        .clone()
        .oneshot(Request::get(&events).body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(
        get(&app, &events).await.0,
        StatusCode::FORBIDDEN,
        "a ticket is good once"
    );
    assert_eq!(raw(&app, ticket(&bo)).await.0, StatusCode::FORBIDDEN);
}
