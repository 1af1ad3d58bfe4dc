//! The class's records behind one interface, in one of two databases:
//!
//! - **SQLite** (`sqlite`), the default: one file, one server process. What only that process
//!   needs to share with itself — the live notices, the dashboards' stream tickets, the answers
//!   kept for retries — stays in its memory.
//! - **PostgreSQL** (`postgres`), for a department running several server instances behind one
//!   proxy: everything the instances share is in the database — tickets and kept answers in
//!   tables, the live notices through `NOTIFY`, which every instance `LISTEN`s for — so a student
//!   whose requests reach two instances, or a dashboard on one watching a lock posted to another,
//!   sees one class.
//!
//! Every write is committed before its request is answered; keys and tokens arrive as digests.

pub mod memory;
pub mod postgres;
pub mod sqlite;

use std::path::Path;

use tokio::sync::broadcast;

use crate::error::ClassError;

pub use sqlite::SCHEMA_VERSION;

/// Something every page or dashboard of class `code` hears: `change` (the dashboards: the class
/// got a student, a lock, a result or a release), `release` or `pace` (the students' pages, with
/// `data` as JSON), or `resync` (ask again: notices may have been missed).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Notice {
    pub code: String,
    pub event: String,
    pub data: String,
}

/// The class code a notice for every class carries.
pub const EVERY_CLASS: &str = "*";

/// How many notices a slow stream may fall behind before it is told to resync.
const HUB_CAPACITY: usize = 1024;

fn hub() -> broadcast::Sender<Notice> {
    broadcast::channel(HUB_CAPACITY).0
}

/// One section's answers: who locked what, and what their runs measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SectionRecord {
    pub lesson: String,
    pub section: u32,
    /// (nickname, choice) for each locked prediction.
    pub predictions: Vec<(String, u32)>,
    /// (nickname, measured, outcome) for each result.
    pub results: Vec<(String, String, i64)>,
    /// Whether the instructor has released the reveal (when the class holds reveals).
    pub released: bool,
}

/// A class as its instructor's list shows it: (code, title, created, hold).
pub type ClassRow = (String, String, i64, bool);

/// The rows `records` reads, whichever database: predictions (lesson, section, nickname,
/// choice), results (lesson, section, nickname, measured, outcome), released (lesson, section).
pub(crate) struct Rows {
    pub predictions: Vec<(String, u32, String, u32)>,
    pub results: Vec<(String, u32, String, String, i64)>,
    pub released: Vec<(String, u32)>,
}

impl Rows {
    /// The rows by section, in lesson and section order (rows in the order read within each).
    pub(crate) fn into_sections(self) -> Vec<SectionRecord> {
        let mut out: std::collections::BTreeMap<(String, u32), SectionRecord> = Default::default();
        fn entry<'a>(
            out: &'a mut std::collections::BTreeMap<(String, u32), SectionRecord>,
            lesson: &str,
            section: u32,
        ) -> &'a mut SectionRecord {
            out.entry((lesson.to_string(), section))
                .or_insert_with(|| SectionRecord {
                    lesson: lesson.to_string(),
                    section,
                    predictions: Vec::new(),
                    results: Vec::new(),
                    released: false,
                })
        }
        for (lesson, section, nick, choice) in self.predictions {
            entry(&mut out, &lesson, section).predictions.push((nick, choice));
        }
        for (lesson, section, nick, measured, outcome) in self.results {
            entry(&mut out, &lesson, section)
                .results
                .push((nick, measured, outcome));
        }
        for (lesson, section) in self.released {
            if let Some(s) = out.get_mut(&(lesson, section)) {
                s.released = true;
            }
        }
        out.into_values().collect()
    }
}

/// The records, in SQLite or PostgreSQL.
pub enum Store {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

/// Calls the same method on whichever database the store is (PostgreSQL's awaited).
macro_rules! either {
    ($self:ident . $method:ident ( $($arg:expr),* )) => {
        match $self {
            Store::Sqlite(s) => s.$method($($arg),*),
            Store::Postgres(p) => p.$method($($arg),*).await,
        }
    };
}

impl Store {
    /// The SQLite file at `path`, created or migrated.
    pub fn open(path: &Path) -> Result<Self, ClassError> {
        Ok(Store::Sqlite(sqlite::Sqlite::open(path, hub())?))
    }

    /// `target` a `postgres://` (or `postgresql://`) URL: that database, its tables created or
    /// checked; anything else: a SQLite file's path.
    pub async fn connect(target: &str) -> Result<Self, ClassError> {
        if postgres::is_url(target) {
            Ok(Store::Postgres(postgres::Postgres::connect(target, hub()).await?))
        } else {
            Self::open(Path::new(target))
        }
    }

    /// Which database, for the server's first line (never the URL: it may hold a password).
    pub fn describe(&self) -> String {
        match self {
            Store::Sqlite(s) => format!("SQLite {}", s.path().display()),
            Store::Postgres(p) => format!("PostgreSQL {}", p.describe()),
        }
    }

    /// The notices of every class, as this server hears them.
    pub fn notices(&self) -> broadcast::Receiver<Notice> {
        match self {
            Store::Sqlite(s) => s.hub().subscribe(),
            Store::Postgres(p) => p.hub().subscribe(),
        }
    }

    /// Tells every server instance's streams of the class (one process: its own).
    pub async fn publish(&self, notice: Notice) -> Result<(), ClassError> {
        match self {
            Store::Sqlite(s) => {
                // No stream listening is no error.
                let _ = s.hub().send(notice);
                Ok(())
            }
            Store::Postgres(p) => p.publish(&notice).await,
        }
    }

    /// Opens class `code` with its key's digest, for instructor `owner` ('' for none).
    pub async fn create_class(
        &self,
        code: &str,
        key: &str,
        title: &str,
        hold: bool,
        owner: &str,
    ) -> Result<(), ClassError> {
        either!(self.create_class(code, key, title, hold, owner))
    }

    /// The classes instructor `owner` opened, newest first.
    pub async fn classes_of(&self, owner: &str) -> Result<Vec<ClassRow>, ClassError> {
        either!(self.classes_of(owner))
    }

    /// Class `code`'s instructor ('' for none), if the class exists.
    pub async fn owner(&self, code: &str) -> Result<Option<String>, ClassError> {
        either!(self.owner(code))
    }

    /// The class's key digest, title and whether it holds reveals; None: no such class.
    pub async fn class(&self, code: &str) -> Result<Option<(String, String, bool)>, ClassError> {
        either!(self.class(code))
    }

    /// Adds student `token` (a digest) as `nickname`, unless a student of the class has a
    /// nickname of the same `key` (`validate::nickname_key`): then that student's nickname.
    /// Checked and written at once, so two joins — on two instances too — cannot both take a name.
    pub async fn join(
        &self,
        code: &str,
        token: &str,
        nickname: &str,
        key: &str,
    ) -> Result<Option<String>, ClassError> {
        either!(self.join(code, token, nickname, key))
    }

    /// Every student of class `code`, by nickname, in the order they joined.
    pub async fn nicknames(&self, code: &str) -> Result<Vec<String>, ClassError> {
        either!(self.nicknames(code))
    }

    /// The nickname of student `token` of class `code`, if they joined.
    pub async fn student(&self, code: &str, token: &str) -> Result<Option<String>, ClassError> {
        either!(self.student(code, token))
    }

    /// Locks a prediction; the first lock stands. The choice locked (an earlier one if any).
    pub async fn lock(
        &self,
        code: &str,
        token: &str,
        lesson: &str,
        section: u32,
        choice: u32,
        state: &str,
    ) -> Result<u32, ClassError> {
        either!(self.lock(code, token, lesson, section, choice, state))
    }

    /// Records what a student's run measured (a later run replaces an earlier one).
    pub async fn result(
        &self,
        code: &str,
        token: &str,
        lesson: &str,
        section: u32,
        measured: &str,
        outcome: i64,
    ) -> Result<(), ClassError> {
        either!(self.result(code, token, lesson, section, measured, outcome))
    }

    pub async fn release(&self, code: &str, lesson: &str, section: u32) -> Result<(), ClassError> {
        either!(self.release(code, lesson, section))
    }

    pub async fn is_released(&self, code: &str, lesson: &str, section: u32) -> Result<bool, ClassError> {
        either!(self.is_released(code, lesson, section))
    }

    /// Every section anyone answered in class `code`, in lesson and section order.
    pub async fn records(&self, code: &str) -> Result<Vec<SectionRecord>, ClassError> {
        Ok(either!(self.rows(code))?.into_sections())
    }

    /// Keeps a dashboard's stream ticket (its digest) for class `code`.
    pub async fn issue_ticket(&self, ticket: &str, code: &str) -> Result<(), ClassError> {
        either!(self.issue_ticket(ticket, code))
    }

    /// The class a ticket (its digest) was issued for, if it is still good; used up either way.
    pub async fn take_ticket(&self, ticket: &str) -> Result<Option<String>, ClassError> {
        either!(self.take_ticket(ticket))
    }

    /// The answer kept under idempotency key `key`, if it is still kept.
    pub async fn kept(&self, key: &str) -> Result<Option<Vec<u8>>, ClassError> {
        either!(self.kept(key))
    }

    /// Keeps `answer` under `key` for its retries (the first kept stands).
    pub async fn keep(&self, key: &str, answer: &[u8]) -> Result<(), ClassError> {
        either!(self.keep(key, answer))
    }
}

/// Seconds since 1970, the time every record and ticket is stamped with.
pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// How long a dashboard's stream ticket stays good, in seconds.
pub(crate) const TICKET_LIFE: i64 = 60;
/// How long an answer is kept for its retries, in seconds.
pub(crate) const KEPT_FOR: i64 = 600;
