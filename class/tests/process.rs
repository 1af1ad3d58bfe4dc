//! The server as an instructor starts it (`lab-class`, what `scripts/class.sh` runs): on a
//! loopback port, with its database file; stopped and started again in the middle of a class,
//! it still has the class. Plain HTTP/1.1 over a TCP socket to 127.0.0.1.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use super::common;

/// A server process, stopped when dropped: a failing test leaves none behind (one left running
/// would hold the test run's output open, and the run would never end).
pub struct Running(pub Child);

impl std::ops::Deref for Running {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Running {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the server on a free loopback port; the child and its address.
fn start(db: &str) -> (Running, String) {
    let (child, url) = start_with(db, &[]);
    (child, url.trim_start_matches("http://").to_string())
}

/// Starts the server with `extra` arguments; the child and the URL it announced.
pub fn start_with(db: &str, extra: &[&str]) -> (Running, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lab-class"))
        .args(["--db", db, "--address", "127.0.0.1", "--port", "0"])
        .arg("--anyone-opens-classes")
        .args(extra)
        // From the repository's root, as scripts/class.sh runs it: the site's lessons are there.
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stdout(Stdio::piped())
        .spawn()
        .expect("lab-class starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // "lab-class: http://127.0.0.1:PORT (database …)"
    let url = line.split_whitespace().nth(1).unwrap_or_default().to_string();
    (Running(child), url)
}

/// One request; (status code, body).
fn request(addr: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    request_as(addr, method, path, body, None)
}

/// One request, with an instructor's key (or secret) in its Authorization header when given.
fn request_as(addr: &str, method: &str, path: &str, body: &str, key: Option<&str>) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    let auth = key.map_or(String::new(), |k| format!("Authorization: Bearer {k}\r\n"));
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, out.split("\r\n\r\n").nth(1).unwrap_or("").to_string())
}

/// Opens class `code`'s dashboard stream, with a ticket asked for with the key.
fn open_events(addr: &str, code: &str, key: &str) -> TcpStream {
    let (status, t) = request_as(
        addr,
        "POST",
        &format!("/api/classes/{code}/ticket"),
        "",
        Some(key),
    );
    assert_eq!(status, 200, "{t}");
    let ticket = serde_json::from_str::<serde_json::Value>(&t).unwrap()["ticket"]
        .as_str()
        .unwrap()
        .to_string();
    let mut events = TcpStream::connect(addr).unwrap();
    write!(events, "GET /api/classes/{code}/events?ticket={ticket} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n").unwrap();
    events
}

#[test]
fn the_server_keeps_its_class_across_a_restart() {
    let file = common::TestDb::new("process");
    let db = &file.target();
    let (mut server, addr) = start(db);
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let (status, class) = request(&addr, "POST", "/api/classes", r#"{"title":"restart"}"#);
    assert_eq!(status, 200, "{class}");
    let class: serde_json::Value = serde_json::from_str(&class).unwrap();
    let (code, key) = (class["code"].as_str().unwrap(), class["key"].as_str().unwrap());
    let (_, joined) = request(
        &addr,
        "POST",
        &format!("/api/classes/{code}/join"),
        r#"{"nickname":"Ada"}"#,
    );
    let student = serde_json::from_str::<serde_json::Value>(&joined).unwrap()["student"]
        .as_str()
        .unwrap()
        .to_string();
    let lock = format!(r#"{{"student":"{student}","lesson":"scaling-batch","section":0,"choice":2}}"#);
    assert_eq!(
        request(&addr, "POST", &format!("/api/classes/{code}/predictions"), &lock).0,
        200
    );
    server.kill().unwrap();
    server.wait().unwrap();

    let (mut server, addr) = start(db);
    let (status, dash) = request_as(
        &addr,
        "GET",
        &format!("/api/classes/{code}/results"),
        "",
        Some(key),
    );
    server.kill().unwrap();
    server.wait().unwrap();
    assert_eq!(status, 200, "{dash}");
    let dash: serde_json::Value = serde_json::from_str(&dash).unwrap();
    assert_eq!(
        dash["sections"][0]["predictions"],
        serde_json::json!([["Ada", 2]])
    );
}

/// The dashboard's live stream: a `change` event at once, and another when a student joins.
#[test]
fn the_dashboard_hears_each_change_as_it_happens() {
    use std::time::Duration;
    let file = common::TestDb::new("events");
    let (mut server, addr) = start(&file.target());
    let (_, class) = request(&addr, "POST", "/api/classes", r#"{"title":"live"}"#);
    let class: serde_json::Value = serde_json::from_str(&class).unwrap();
    let (code, key) = (class["code"].as_str().unwrap(), class["key"].as_str().unwrap());
    let mut events = open_events(&addr, code, key);
    events.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut seen = String::new();
    read_changes(&mut events, &mut seen, 1);
    assert!(seen.contains("text/event-stream"), "{seen}");
    request(
        &addr,
        "POST",
        &format!("/api/classes/{code}/join"),
        r#"{"nickname":"Ada"}"#,
    );
    read_changes(&mut events, &mut seen, 2);
    assert!(seen.contains(&format!("data: {code}")), "{seen}");
    server.kill().unwrap();
    server.wait().unwrap();
}

/// Reads the stream into `seen` until `want` change events have come (or the read times out).
fn read_changes(events: &mut TcpStream, seen: &mut String, want: usize) {
    let mut buf = [0u8; 4096];
    while seen.matches("event: change").count() < want {
        let n = events.read(&mut buf).expect("an event within 10 s");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
}

/// Told to stop (SIGTERM from a service manager, SIGINT from Ctrl-C) while a dashboard's stream is
/// open, the server ends within 2 s, cleanly, and the class is all there when it starts again. It
/// used to wait on the open stream for ever.
#[cfg(unix)]
#[test]
fn a_stop_signal_ends_the_server_within_two_seconds_with_a_stream_open() {
    use std::time::{Duration, Instant};
    for signal in ["-TERM", "-INT"] {
        let file = common::TestDb::new(&format!("stop{signal}"));
        let (mut server, addr) = start(&file.target());
        let (_, class) = request(&addr, "POST", "/api/classes", r#"{"title":"stop"}"#);
        let class: serde_json::Value = serde_json::from_str(&class).unwrap();
        let (code, key) = (class["code"].as_str().unwrap(), class["key"].as_str().unwrap());
        let mut events = open_events(&addr, code, key);
        events.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        read_changes(&mut events, &mut String::new(), 1);
        let asked = Instant::now();
        let sent = Command::new("kill")
            .args([signal, &server.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = loop {
            if let Some(s) = server.try_wait().unwrap() {
                break s;
            }
            assert!(
                asked.elapsed() < Duration::from_secs(3),
                "{signal}: still running after 3 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let took = asked.elapsed();
        assert!(
            status.success() && took < Duration::from_millis(2500),
            "{signal}: {status} after {took:?}"
        );
        let (mut again, addr) = start(&file.target());
        let (s, _) = request_as(
            &addr,
            "GET",
            &format!("/api/classes/{code}/results"),
            "",
            Some(key),
        );
        again.kill().unwrap();
        again.wait().unwrap();
        assert_eq!(s, 200, "{signal}: the class is kept");
    }
}

/// With a certificate the server speaks HTTPS (what a page on an HTTPS site needs): curl, trusting
/// that certificate, gets an answer; plain HTTP to the same port gets none; a missing key file
/// stops the server at once with the reason.
#[test]
fn with_a_certificate_the_server_speaks_https() {
    let (dir, cert, key) = common::certificate("tls");
    let file = common::TestDb::new("tls");
    let (mut server, url) = start_with(
        &file.target(),
        &[
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    let curl = |args: &[&str]| {
        Command::new("curl")
            .args(["-s", "--max-time", "5"])
            .args(args)
            .output()
            .expect("curl runs")
    };
    let ok = curl(&["--cacert", cert.to_str().unwrap(), &format!("{url}/api/health")]);
    assert_eq!(
        String::from_utf8_lossy(&ok.stdout),
        "ok",
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let plain = curl(&[&format!("{}/api/health", url.replace("https://", "http://"))]);
    assert!(
        !plain.status.success() || plain.stdout.is_empty(),
        "plain HTTP is not answered"
    );
    server.kill().unwrap();
    server.wait().unwrap();

    let refused = Command::new(env!("CARGO_BIN_EXE_lab-class"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args([
            "--db",
            &file.target(),
            "--port",
            "0",
            "--tls-cert",
            cert.to_str().unwrap(),
        ])
        .args([
            "--tls-key",
            dir.join("missing.pem").to_str().unwrap(),
            "--anyone-opens-classes",
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("missing.pem"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A student page's one stream: `hello` at once, then the release of a held reveal and the
/// instructor sending the class to a section, as they happen — no polling, no token in the URL.
#[test]
fn a_students_page_hears_releases_and_pacing_on_one_stream() {
    use std::time::Duration;
    let file = common::TestDb::new("live");
    let (mut server, addr) = start(&file.target());
    let (_, class) = request(&addr, "POST", "/api/classes", r#"{"title":"live","hold":true}"#);
    let class: serde_json::Value = serde_json::from_str(&class).unwrap();
    let (code, key) = (class["code"].as_str().unwrap(), class["key"].as_str().unwrap());
    let mut live = TcpStream::connect(&addr).unwrap();
    write!(
        live,
        "GET /api/classes/{code}/live HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();
    live.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut seen = String::new();
    read_until(&mut live, &mut seen, "event: hello");
    let body = format!(r#"{{"key":"{key}","lesson":"scaling-batch","section":1}}"#);
    assert_eq!(
        request(&addr, "POST", &format!("/api/classes/{code}/release"), &body).0,
        200
    );
    read_until(&mut live, &mut seen, "event: release");
    assert_eq!(
        request(&addr, "POST", &format!("/api/classes/{code}/pace"), &body).0,
        200
    );
    read_until(&mut live, &mut seen, "event: pace");
    assert!(
        seen.contains(r#"data: {"lesson":"scaling-batch","section":1}"#),
        "{seen}"
    );
    let wrong = format!(
        r#"{{"key":"{}","lesson":"scaling-batch","section":1}}"#,
        "0".repeat(32)
    );
    assert_eq!(
        request(&addr, "POST", &format!("/api/classes/{code}/pace"), &wrong).0,
        403,
        "only the instructor paces"
    );
    server.kill().unwrap();
    server.wait().unwrap();
}

/// Reads the stream into `seen` until it holds `want` (or the read times out).
fn read_until(events: &mut TcpStream, seen: &mut String, want: &str) {
    let mut buf = [0u8; 4096];
    while !seen.contains(want) {
        let n = events.read(&mut buf).expect("the event within 10 s");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
}
