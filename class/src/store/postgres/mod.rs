//! The class's records in PostgreSQL, for several server instances behind one proxy: the tables
//! of the SQLite file, and also the dashboards' stream tickets and the answers kept for retries
//! (a retry may reach another instance than its first try). The instances hear one another's
//! notices through `NOTIFY lab_class`: each `LISTEN`s on a connection of its own, forwarding what
//! it hears to its streams, and reconnects (telling its streams to resync) if that connection
//! drops. Queries share one connection (tokio-postgres pipelines them), opened again if it closes.

use std::str::FromStr;
use std::sync::atomic::AtomicU32;
use std::sync::Arc;

use tokio::sync::{broadcast, RwLock};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Config, NoTls, Row};

use super::Notice;
use crate::error::ClassError;

/// The channel every instance listens on.
pub(crate) const CHANNEL: &str = "lab_class";
/// The advisory lock two instances starting at once take to create the tables one at a time.
const SCHEMA_LOCK: i64 = 0x6c61_625f_636c_6173;
/// The tables' version (a database of a newer server is refused, not misread).
pub const SCHEMA_VERSION: i32 = 1;

const SCHEMA: &str = "
CREATE TABLE classes (
    id BIGSERIAL, code TEXT PRIMARY KEY, key TEXT NOT NULL, title TEXT NOT NULL,
    created BIGINT NOT NULL, hold BOOLEAN NOT NULL DEFAULT FALSE, owner TEXT NOT NULL DEFAULT ''
);
CREATE INDEX classes_owner ON classes (owner);
CREATE TABLE students (
    id BIGSERIAL, class TEXT NOT NULL REFERENCES classes(code), token TEXT NOT NULL,
    nickname TEXT NOT NULL, nickname_key TEXT NOT NULL,
    PRIMARY KEY (class, token), UNIQUE (class, nickname_key)
);
CREATE TABLE predictions (
    class TEXT NOT NULL, student TEXT NOT NULL, lesson TEXT NOT NULL, section INTEGER NOT NULL,
    choice INTEGER NOT NULL, state TEXT NOT NULL, at BIGINT NOT NULL,
    PRIMARY KEY (class, student, lesson, section)
);
CREATE TABLE results (
    class TEXT NOT NULL, student TEXT NOT NULL, lesson TEXT NOT NULL, section INTEGER NOT NULL,
    measured TEXT NOT NULL, outcome BIGINT NOT NULL, at BIGINT NOT NULL,
    PRIMARY KEY (class, student, lesson, section)
);
CREATE TABLE released (
    class TEXT NOT NULL, lesson TEXT NOT NULL, section INTEGER NOT NULL,
    PRIMARY KEY (class, lesson, section)
);
CREATE TABLE tickets (ticket TEXT PRIMARY KEY, class TEXT NOT NULL, issued BIGINT NOT NULL);
CREATE TABLE kept_answers (key TEXT PRIMARY KEY, answer BYTEA NOT NULL, at BIGINT NOT NULL);
CREATE INDEX kept_answers_at ON kept_answers (at);
";

/// Whether `target` names a PostgreSQL database rather than a SQLite file.
pub fn is_url(target: &str) -> bool {
    target.starts_with("postgres://") || target.starts_with("postgresql://")
}

mod notices;
mod records;

pub struct Postgres {
    config: Config,
    client: RwLock<Arc<Client>>,
    hub: broadcast::Sender<Notice>,
    /// Answers kept so far, to clear the expired every so many.
    pub(crate) kept: AtomicU32,
}

pub(crate) fn pg(e: tokio_postgres::Error) -> ClassError {
    ClassError::Database(match e.as_db_error() {
        Some(db) => format!("PostgreSQL: {}", db.message()),
        None => format!("PostgreSQL: {e}"),
    })
}

/// A connection for queries, driven by a task of its own.
async fn open(config: &Config) -> Result<Client, ClassError> {
    let (client, connection) = config.connect(NoTls).await.map_err(pg)?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            eprintln!("lab-class: the PostgreSQL connection ended: {e}");
        }
    });
    Ok(client)
}

/// Creates the tables, once, whichever instance starts first; refuses a newer server's.
async fn create_tables(client: &mut Client) -> Result<(), ClassError> {
    let tx = client.transaction().await.map_err(pg)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
        .await
        .map_err(pg)?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS lab_class_schema (version INTEGER NOT NULL)")
        .await
        .map_err(pg)?;
    let version: Option<i32> = tx
        .query_opt("SELECT max(version) FROM lab_class_schema", &[])
        .await
        .map_err(pg)?
        .and_then(|r| r.get(0));
    match version {
        None => {
            tx.batch_execute(SCHEMA).await.map_err(pg)?;
            tx.execute(
                "INSERT INTO lab_class_schema (version) VALUES ($1)",
                &[&SCHEMA_VERSION],
            )
            .await
            .map_err(pg)?;
        }
        Some(v) if v > SCHEMA_VERSION => {
            return Err(ClassError::Database(format!(
                "the database has schema version {v}, newer than this server's {SCHEMA_VERSION}"
            )))
        }
        Some(_) => {}
    }
    tx.commit().await.map_err(pg)
}

impl Postgres {
    /// Connects to the database at `url`, creates its tables if it has none, and starts
    /// listening (before answering anything, so no notice is missed).
    pub async fn connect(url: &str, hub: broadcast::Sender<Notice>) -> Result<Self, ClassError> {
        let config =
            Config::from_str(url).map_err(|e| ClassError::Database(format!("the PostgreSQL URL: {e}")))?;
        let mut client = open(&config).await?;
        create_tables(&mut client).await?;
        notices::keep_listening(
            config.clone(),
            hub.clone(),
            notices::listen(&config, hub.clone()).await?,
        );
        Ok(Self {
            config,
            client: RwLock::new(Arc::new(client)),
            hub,
            kept: AtomicU32::new(0),
        })
    }

    /// Database, user and host, never the password.
    pub fn describe(&self) -> String {
        let host = match self.config.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
            #[cfg(unix)]
            Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
            None => "localhost".into(),
        };
        format!(
            "database {} as {} on {host}",
            self.config.get_dbname().unwrap_or("(default)"),
            self.config.get_user().unwrap_or("(default)")
        )
    }

    pub fn hub(&self) -> &broadcast::Sender<Notice> {
        &self.hub
    }

    /// The query connection, opened again if it has closed (the database restarted).
    async fn client(&self) -> Result<Arc<Client>, ClassError> {
        let client = self.client.read().await.clone();
        if !client.is_closed() {
            return Ok(client);
        }
        let mut held = self.client.write().await;
        if held.is_closed() {
            *held = Arc::new(open(&self.config).await?);
        }
        Ok(held.clone())
    }

    pub async fn publish(&self, notice: &Notice) -> Result<(), ClassError> {
        let payload = serde_json::to_string(notice).map_err(|e| ClassError::Database(e.to_string()))?;
        self.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &payload])
            .await?;
        Ok(())
    }

    pub(super) async fn execute(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, ClassError> {
        self.client().await?.execute(sql, params).await.map_err(pg)
    }

    pub(super) async fn query(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, ClassError> {
        self.client().await?.query(sql, params).await.map_err(pg)
    }

    pub(super) async fn query_opt(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, ClassError> {
        self.client().await?.query_opt(sql, params).await.map_err(pg)
    }
}
