//! `lab-class bench --students N`: a lecture hall against a real server. The server runs on a
//! loopback port over a temporary database, and N students — all from one address, as behind a
//! campus NAT — join at once, open their page's live stream, lock a prediction, report a result
//! (each retried as the page retries: after 1, 2, 4, 8 s on no answer, 429 or 5xx), drop and
//! reopen their stream (a reconnect storm), and wait on it for the instructor's release. It
//! prints what it held: answers acknowledged and lost, request latency, how long the release took
//! to reach every page, and the process's processor time and peak memory (server and students
//! together: they share the process).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// What a run measured.
#[derive(Debug, Default)]
pub struct Report {
    /// Which database the server ran on.
    pub database: String,
    pub students: usize,
    /// Locks and results the server acknowledged (two a student).
    pub acknowledged: usize,
    /// Locks and results never acknowledged, retries spent.
    pub lost: usize,
    pub retries: usize,
    /// Request latencies, ms (each request's last try), sorted.
    pub latencies: Vec<f64>,
    /// From the release to each page hearing it, ms, sorted; pages that never heard are missing.
    pub release: Vec<f64>,
    pub seconds: f64,
    pub cpu_seconds: f64,
    pub peak_mb: f64,
}

/// The value at quantile `q` of sorted `v` (0 when empty).
pub fn quantile(v: &[f64], q: f64) -> f64 {
    v.get(((v.len() as f64 - 1.0) * q).round().max(0.0) as usize)
        .copied()
        .unwrap_or(0.0)
}

/// One HTTP/1.1 request on a connection of its own, named by idempotency key `idem`; (status,
/// body; status 0: no answer).
async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    idem: &str,
) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(addr).await?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nIdempotency-Key: {idem}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(head.as_bytes()).await?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).await?;
    let text = String::from_utf8_lossy(&out);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Ok((status, text.split("\r\n\r\n").nth(1).unwrap_or("").to_string()))
}

/// A request retried as a lesson page (`class-link.js`) retries it — no answer, 429 or 5xx,
/// after 1, 2, 4, 8 s, under one idempotency key; its body and (last try's ms, retries), or None.
async fn call(addr: SocketAddr, method: &str, path: &str, body: &str) -> (Option<String>, f64, usize) {
    let waits = [1, 2, 4, 8];
    let idem = crate::api::random_hex().unwrap_or_default();
    for attempt in 0..=waits.len() {
        let t = Instant::now();
        let answer =
            tokio::time::timeout(Duration::from_secs(8), send(addr, method, path, body, &idem)).await;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match answer {
            Ok(Ok((200, body))) => return (Some(body), ms, attempt),
            Ok(Ok((status, _))) if status != 0 && status != 429 && status < 500 => {
                return (None, ms, attempt)
            }
            _ if attempt < waits.len() => tokio::time::sleep(Duration::from_secs(waits[attempt])).await,
            _ => return (None, ms, attempt),
        }
    }
    (None, 0.0, waits.len())
}

/// Opens class `code`'s live stream and reads until its `hello`.
async fn open_stream(addr: SocketAddr, code: &str) -> std::io::Result<TcpStream> {
    let mut s = TcpStream::connect(addr).await?;
    let head =
        format!("GET /api/classes/{code}/live HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    s.write_all(head.as_bytes()).await?;
    read_until(&mut s, "event: hello").await?;
    Ok(s)
}

async fn read_until(s: &mut TcpStream, want: &str) -> std::io::Result<()> {
    let (mut seen, mut buf) = (String::new(), [0u8; 2048]);
    while !seen.contains(want) {
        let n = tokio::time::timeout(Duration::from_secs(30), s.read(&mut buf)).await??;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    Ok(())
}

/// One student: join, stream, lock, report, reconnect; then wait for the release.
async fn student(
    addr: SocketAddr,
    code: Arc<String>,
    i: usize,
    ready: Arc<tokio::sync::Barrier>,
    released: Arc<tokio::sync::OnceCell<Instant>>,
) -> (usize, usize, Vec<f64>, Option<f64>) {
    let (mut acked, mut retries, mut latencies) = (0, 0, Vec::new());
    let url = |what: &str| format!("/api/classes/{code}/{what}");
    let (joined, ms, r) = call(
        addr,
        "POST",
        &url("join"),
        &format!(r#"{{"nickname":"student {i}"}}"#),
    )
    .await;
    latencies.push(ms);
    retries += r;
    let token = joined
        .and_then(|b| serde_json::from_str::<serde_json::Value>(&b).ok())
        .and_then(|v| v["student"].as_str().map(String::from))
        .unwrap_or_default();
    let first = open_stream(addr, &code).await;
    let posts = [
        (
            "predictions",
            format!(
                r#"{{"student":"{token}","lesson":"scaling-batch","section":0,"choice":{}}}"#,
                i % 3
            ),
        ),
        (
            "results",
            format!(
                r#"{{"student":"{token}","lesson":"scaling-batch","section":0,"measured":"1.0","outcome":1}}"#
            ),
        ),
    ];
    for (what, body) in &posts {
        let (answer, ms, r) = call(addr, "POST", &url(what), body).await;
        acked += usize::from(answer.is_some());
        latencies.push(ms);
        retries += r;
    }
    // The reconnect storm: every page drops its stream and opens another.
    drop(first);
    let mut stream = open_stream(addr, &code).await;
    ready.wait().await;
    let heard = match stream.as_mut() {
        Ok(s) => read_until(s, "event: release").await.ok(),
        Err(_) => None,
    };
    let heard = heard.and_then(|()| released.get().map(|t| t.elapsed().as_secs_f64() * 1e3));
    (acked, retries, latencies, heard)
}

/// The process's processor seconds and peak resident memory (MB), from /proc (0 elsewhere).
fn usage() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |k: usize| fields.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime, the 14th and 15th fields (11 and 12 after the name), at 100 ticks a second.
    let cpu = (ticks(11) + ticks(12)) / 100.0;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .unwrap_or(0.0);
    (cpu, kb / 1024.0)
}

/// Runs the hall of `students` against a server on a temporary SQLite file or, given its URL, a
/// PostgreSQL database (the bench's class is left in it).
pub async fn run(students: usize, postgres: Option<&str>) -> Result<Report, String> {
    let db = std::env::temp_dir().join(format!("lab-class-bench-{}.sqlite", std::process::id()));
    let store = match postgres {
        Some(url) => crate::Store::connect(url).await,
        None => crate::Store::open(&db),
    }
    .map_err(|e| e.to_string())?;
    let database = store.describe();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let app = crate::router(store, None).into_make_service_with_connect_info::<SocketAddr>();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let start = Instant::now();
    let (opened, _, _) = call(addr, "POST", "/api/classes", r#"{"title":"bench","hold":true}"#).await;
    let class: serde_json::Value =
        serde_json::from_str(&opened.unwrap_or_default()).map_err(|e| e.to_string())?;
    let (code, key) = (
        class["code"].as_str().unwrap_or("").to_string(),
        class["key"].as_str().unwrap_or("").to_string(),
    );
    let ready = Arc::new(tokio::sync::Barrier::new(students + 1));
    let released = Arc::new(tokio::sync::OnceCell::new());
    let code = Arc::new(code);
    let hall: Vec<_> = (0..students)
        .map(|i| tokio::spawn(student(addr, code.clone(), i, ready.clone(), released.clone())))
        .collect();
    ready.wait().await;
    let _ = released.set(Instant::now());
    let body = format!(r#"{{"key":"{key}","lesson":"scaling-batch","section":0}}"#);
    call(addr, "POST", &format!("/api/classes/{code}/release"), &body).await;
    let mut report = Report {
        students,
        database,
        ..Report::default()
    };
    for h in hall {
        let (acked, retries, latencies, heard) = h.await.map_err(|e| e.to_string())?;
        report.acknowledged += acked;
        report.retries += retries;
        report.latencies.extend(latencies);
        report.release.extend(heard);
    }
    report.lost = 2 * students - report.acknowledged;
    report.seconds = start.elapsed().as_secs_f64();
    (report.cpu_seconds, report.peak_mb) = usage();
    report.latencies.sort_by(f64::total_cmp);
    report.release.sort_by(f64::total_cmp);
    server.abort();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    Ok(report)
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let q = |v: &[f64], x| quantile(v, x);
        writeln!(f, "database                    {}", self.database)?;
        writeln!(f, "students (one address)      {}", self.students)?;
        writeln!(
            f,
            "locks and results acked     {} of {}",
            self.acknowledged,
            2 * self.students
        )?;
        writeln!(f, "lost                        {}", self.lost)?;
        writeln!(f, "retries                     {}", self.retries)?;
        writeln!(
            f,
            "request latency p50 / p99   {:.1} / {:.1} ms",
            q(&self.latencies, 0.5),
            q(&self.latencies, 0.99)
        )?;
        writeln!(
            f,
            "release heard by            {} pages, p50 / p99 / last {:.1} / {:.1} / {:.1} ms",
            self.release.len(),
            q(&self.release, 0.5),
            q(&self.release, 0.99),
            self.release.last().copied().unwrap_or(0.0)
        )?;
        writeln!(f, "wall time                   {:.2} s", self.seconds)?;
        write!(
            f,
            "processor / peak memory     {:.2} s / {:.0} MB (server and students together)",
            self.cpu_seconds, self.peak_mb
        )
    }
}
