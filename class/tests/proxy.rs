//! The reverse-proxy recipe of the instructor's book (`scripts/class-nginx.conf`) run as written
//! in Debian's nginx (set-up installs it), its listen address, certificate and upstream replaced:
//! nginx terminates TLS and forwards to `lab-class --trusted-proxy 127.0.0.1`; a class opened
//! through it, and a dashboard's live stream passed through unbuffered.

use std::process::Command;

use super::common;
use super::process::start_with;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn the_books_nginx_recipe_terminates_tls_and_passes_the_live_stream() {
    let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let nginx = nginx.expect("nginx is missing: scripts/setup.sh installs Debian's nginx-light");
    let (dir, cert, key) = common::certificate("proxy");
    let db = common::TestDb::new("proxy");
    let (mut class, url) = start_with(&db.target(), &["--trusted-proxy", "127.0.0.1"]);
    let port = free_port();
    let recipe = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/class-nginx.conf"
    ))
    .unwrap();
    let server = recipe
        .replace("listen 443 ssl;", &format!("listen 127.0.0.1:{port} ssl;"))
        .replace("/etc/ssl/class/fullchain.pem", cert.to_str().unwrap())
        .replace("/etc/ssl/class/privkey.pem", key.to_str().unwrap())
        .replace("http://127.0.0.1:8090", &url);
    assert_ne!(
        server, recipe,
        "the recipe's placeholders are where the test expects them"
    );
    let d = dir.display();
    let conf = format!(
        "daemon off; master_process off; pid {d}/nginx.pid; error_log {d}/error.log;\nevents {{}}\nhttp {{ access_log off; \
         client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;\n{server}\n}}\n"
    );
    std::fs::write(dir.join("nginx.conf"), conf).unwrap();
    let mut proxy = Command::new(nginx)
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .spawn()
        .unwrap();
    let base = format!("https://127.0.0.1:{port}");
    let curl = |args: &[&str]| {
        let out = Command::new("curl")
            .args(["-s", "--cacert", cert.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let mut health = String::new();
    for _ in 0..50 {
        health = curl(&["--max-time", "2", &format!("{base}/api/health")]);
        if health == "ok" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let opened = curl(&[
        "--max-time",
        "5",
        "-H",
        "content-type: application/json",
        "-d",
        r#"{"title":"proxied"}"#,
        &format!("{base}/api/classes"),
    ]);
    let stream = serde_json::from_str::<serde_json::Value>(&opened).ok().map(|c| {
        let (code, key) = (c["code"].as_str().unwrap_or(""), c["key"].as_str().unwrap_or(""));
        let auth = format!("authorization: Bearer {key}");
        let t = curl(&[
            "--max-time",
            "5",
            "-X",
            "POST",
            "-H",
            &auth,
            &format!("{base}/api/classes/{code}/ticket"),
        ]);
        let ticket = serde_json::from_str::<serde_json::Value>(&t)
            .map_or(String::new(), |v| v["ticket"].as_str().unwrap_or("").to_string());
        // The stream stays open: curl gives up after 3 s with what came through by then.
        curl(&[
            "-N",
            "--max-time",
            "3",
            &format!("{base}/api/classes/{code}/events?ticket={ticket}"),
        ])
    });
    let _ = proxy.kill();
    let _ = proxy.wait();
    class.kill().unwrap();
    class.wait().unwrap();
    let log = std::fs::read_to_string(dir.join("error.log")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(health, "ok", "through nginx over TLS; its log: {log}");
    assert!(
        stream.as_deref().is_some_and(|s| s.contains("event: change")),
        "{opened} / {stream:?}"
    );
}
