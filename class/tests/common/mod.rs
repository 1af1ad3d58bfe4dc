//! A database of its own for one test: a SQLite file, or — where `LAB_CLASS_PG` names a
//! PostgreSQL server (`scripts/test.sh` starts one and runs these tests again on it) — a database
//! created on it. None is left from an earlier run, and it is gone when the test ends, passed or
//! not.

pub mod http;

/// The PostgreSQL server the tests run on, if any: a URL whose user may create databases.
pub const PG: &str = "LAB_CLASS_PG";

pub fn postgres_url() -> Option<String> {
    std::env::var(PG).ok().filter(|u| !u.is_empty())
}

/// The test's database: a SQLite file, or a PostgreSQL database.
pub enum TestDb {
    Sqlite(TempDb),
    Postgres(PgDb),
}

impl TestDb {
    /// On PostgreSQL where the run has one, otherwise a SQLite file.
    pub fn new(name: &str) -> Self {
        match postgres_url() {
            Some(url) => TestDb::Postgres(PgDb::new(&url, name)),
            None => TestDb::Sqlite(TempDb::new(name)),
        }
    }

    /// What `lab-class --db` takes: the file's path or the database's URL.
    pub fn target(&self) -> String {
        match self {
            TestDb::Sqlite(f) => f.0.display().to_string(),
            TestDb::Postgres(p) => p.url.clone(),
        }
    }

    pub async fn store(&self) -> lab_class::Store {
        lab_class::Store::connect(&self.target()).await.unwrap()
    }
}

/// A database created for one test on the run's PostgreSQL server, dropped after it.
pub struct PgDb {
    admin: String,
    name: String,
    pub url: String,
}

/// Runs SQL on the server as the admin URL's user, from a thread of its own (a test may be
/// inside a runtime already, or not).
fn admin_sql(admin: &str, sql: Vec<String>) {
    let admin = admin.to_string();
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                let (client, connection) = tokio_postgres::connect(&admin, tokio_postgres::NoTls)
                    .await
                    .expect("the PostgreSQL server of LAB_CLASS_PG answers");
                tokio::spawn(connection);
                // One at a time: a database is not created or dropped inside a transaction.
                for sql in &sql {
                    client.batch_execute(sql).await.expect(sql);
                }
            })
    })
    .join()
    .unwrap();
}

impl PgDb {
    pub fn new(admin: &str, test: &str) -> Self {
        let name = format!("lab_{}_{}", test.replace('-', "_"), std::process::id()).to_lowercase();
        let (base, query) = admin.split_once('?').map_or((admin, ""), |(b, q)| (b, q));
        let server = base.rsplit_once('/').map_or(base, |(s, _)| s);
        let url = match query {
            "" => format!("{server}/{name}"),
            q => format!("{server}/{name}?{q}"),
        };
        admin_sql(
            admin,
            vec![
                format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
                format!("CREATE DATABASE {name}"),
            ],
        );
        PgDb {
            admin: admin.to_string(),
            name,
            url,
        }
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        admin_sql(
            &self.admin,
            vec![format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)],
        );
    }
}

/// A SQLite file, with its write-ahead log.
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
