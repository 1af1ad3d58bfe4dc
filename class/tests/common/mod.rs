//! A SQLite file of its own for one test: none left from an earlier run, and gone (with its
//! write-ahead log) when the test ends, passed or not.

pub mod http;

pub struct TempDb(pub std::path::PathBuf);

impl TempDb {
    pub fn new(name: &str) -> Self {
        let db = TempDb(std::env::temp_dir().join(format!("lab-class-{name}-{}.sqlite", std::process::id())));
        db.remove();
        db
    }

    fn remove(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0.display()));
        }
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        self.remove();
    }
}

/// A folder of the test's own holding a self-signed certificate for 127.0.0.1 and its key, made
/// by Debian's openssl: (folder, cert.pem, key.pem). The caller removes the folder.
pub fn certificate(name: &str) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("lab-class-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"])
        .args(["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("openssl (Debian's) makes a certificate");
    assert!(made.success());
    (dir, cert, key)
}
