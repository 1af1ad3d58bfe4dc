//! The class's records in one SQLite file: classes, students, locked predictions and measured
//! results. The schema is created and migrated here (`PRAGMA user_version`), so a file from an
//! older server opens in a newer one; every write is committed before its request is answered,
//! so nothing is lost when the server stops. The file is the server's alone (0600), and it keeps
//! keys and tokens only as their SHA-256 (`secret`): the callers hand in digests. One process
//! serves it: its notices, tickets and kept answers stay in that process (`memory`).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::broadcast;

use super::memory::Memory;
use super::{now, ClassRow, Notice, Rows};
use crate::error::ClassError;

/// One step of the schema: SQL, or Rust where SQLite cannot do it.
enum Step {
    Sql(&'static str),
    Rust(fn(&Connection) -> rusqlite::Result<()>),
}

/// The schema, one step per version: step k brings a file from version k to k + 1.
const STEPS: &[Step] = &[
    Step::Sql(MIGRATIONS[0]),
    Step::Sql(MIGRATIONS[1]),
    // Version 3: keys and tokens hashed (SQLite has no hash function).
    Step::Rust(hash_secrets),
    // Version 4: each class's instructor (by name, from `--instructors`; '' before).
    Step::Sql("ALTER TABLE classes ADD COLUMN owner TEXT NOT NULL DEFAULT '';"),
];

const MIGRATIONS: &[&str] = &[
    "CREATE TABLE classes (
        code TEXT PRIMARY KEY, key TEXT NOT NULL, title TEXT NOT NULL, created INTEGER NOT NULL
     );
     CREATE TABLE students (
        class TEXT NOT NULL REFERENCES classes(code), token TEXT NOT NULL, nickname TEXT NOT NULL,
        PRIMARY KEY (class, token)
     );
     CREATE TABLE predictions (
        class TEXT NOT NULL, student TEXT NOT NULL, lesson TEXT NOT NULL, section INTEGER NOT NULL,
        choice INTEGER NOT NULL, state TEXT NOT NULL, at INTEGER NOT NULL,
        PRIMARY KEY (class, student, lesson, section)
     );
     CREATE TABLE results (
        class TEXT NOT NULL, student TEXT NOT NULL, lesson TEXT NOT NULL, section INTEGER NOT NULL,
        measured TEXT NOT NULL, outcome INTEGER NOT NULL, at INTEGER NOT NULL,
        PRIMARY KEY (class, student, lesson, section)
     );",
    "CREATE TABLE released (
        class TEXT NOT NULL, lesson TEXT NOT NULL, section INTEGER NOT NULL,
        PRIMARY KEY (class, lesson, section)
     );
     ALTER TABLE classes ADD COLUMN hold INTEGER NOT NULL DEFAULT 0;",
];

/// The schema version a file has once `Store::open` has migrated it.
pub const SCHEMA_VERSION: usize = STEPS.len();

/// Version 3: every key and token still in clear replaced by its digest, in every table.
fn hash_secrets(c: &Connection) -> rusqlite::Result<()> {
    for (table, column) in [
        ("classes", "key"),
        ("students", "token"),
        ("predictions", "student"),
        ("results", "student"),
    ] {
        let clear: Vec<String> = c
            .prepare(&format!("SELECT DISTINCT {column} FROM {table}"))?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?
            .into_iter()
            .filter(|v| crate::secret::is_clear(v))
            .collect();
        for v in clear {
            c.execute(
                &format!("UPDATE {table} SET {column} = ?1 WHERE {column} = ?2"),
                [crate::secret::digest(&v), v],
            )?;
        }
    }
    Ok(())
}

/// Creates `path` readable and writable by its owner only, or narrows an existing file to that
/// (SQLite gives its journal files the database's permissions).
fn private_file(path: &Path) -> Result<(), ClassError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let io = |e: std::io::Error| ClassError::Database(format!("{}: {e}", path.display()));
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path)
            .map_err(io)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io)?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

pub struct Sqlite {
    conn: Mutex<Connection>,
    path: PathBuf,
    hub: broadcast::Sender<Notice>,
    memory: Memory,
}

impl Sqlite {
    /// Opens (or creates) the file at `path` and brings its schema up to date.
    pub fn open(path: &Path, hub: broadcast::Sender<Notice>) -> Result<Self, ClassError> {
        private_file(path)?;
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let version: usize = conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))? as usize;
        if version > SCHEMA_VERSION {
            return Err(ClassError::Database(format!(
                "{} has schema version {version}, newer than this server's {SCHEMA_VERSION}",
                path.display()
            )));
        }
        for (k, step) in STEPS.iter().enumerate().skip(version) {
            let tx = conn.unchecked_transaction()?;
            match step {
                Step::Sql(sql) => tx.execute_batch(sql)?,
                Step::Rust(run) => run(&tx)?,
            }
            tx.pragma_update(None, "user_version", (k + 1) as i64)?;
            tx.commit()?;
        }
        Ok(Self {
            conn: Mutex::new(conn),
            path: path.to_path_buf(),
            hub,
            memory: Memory::default(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn hub(&self) -> &broadcast::Sender<Notice> {
        &self.hub
    }

    fn with<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, ClassError> {
        let conn = self
            .conn
            .lock()
            .map_err(|_| ClassError::Database("the database lock was poisoned".into()))?;
        Ok(f(&conn)?)
    }

    /// Opens class `code` with its key's digest, for instructor `owner` ('' for none).
    pub fn create_class(
        &self,
        code: &str,
        key: &str,
        title: &str,
        hold: bool,
        owner: &str,
    ) -> Result<(), ClassError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO classes (code, key, title, created, hold, owner) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![code, key, title, now(), hold, owner],
            )
            .map(|_| ())
        })
    }

    /// The classes instructor `owner` opened, newest first: (code, title, created, hold).
    pub fn classes_of(&self, owner: &str) -> Result<Vec<ClassRow>, ClassError> {
        self.with(|c| {
            c.prepare("SELECT code, title, created, hold FROM classes WHERE owner = ?1 ORDER BY created DESC, rowid DESC")?
                .query_map([owner], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                .collect()
        })
    }

    /// Class `code`'s instructor ('' for none), if the class exists.
    pub fn owner(&self, code: &str) -> Result<Option<String>, ClassError> {
        self.with(|c| {
            c.query_row("SELECT owner FROM classes WHERE code = ?1", [code], |r| r.get(0))
                .optional()
        })
    }

    /// The class's instructor key, title and whether it holds reveals; None: no such class.
    pub fn class(&self, code: &str) -> Result<Option<(String, String, bool)>, ClassError> {
        self.with(|c| {
            c.query_row(
                "SELECT key, title, hold FROM classes WHERE code = ?1",
                [code],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
        })
    }

    /// Adds student `token` as `nickname` unless its `key` is taken (`Store::join`): checked and
    /// written under one lock.
    pub fn join(
        &self,
        code: &str,
        token: &str,
        nickname: &str,
        key: &str,
    ) -> Result<Option<String>, ClassError> {
        self.with(|c| {
            let taken = c
                .prepare("SELECT nickname FROM students WHERE class = ?1")?
                .query_map([code], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?
                .into_iter()
                .find(|n| crate::validate::nickname_key(n) == key);
            if taken.is_none() {
                c.execute(
                    "INSERT INTO students (class, token, nickname) VALUES (?1, ?2, ?3)",
                    params![code, token, nickname],
                )?;
            }
            Ok(taken)
        })
    }

    /// Every student of class `code`, by nickname, in the order they joined.
    pub fn nicknames(&self, code: &str) -> Result<Vec<String>, ClassError> {
        self.with(|c| {
            c.prepare("SELECT nickname FROM students WHERE class = ?1 ORDER BY rowid")?
                .query_map([code], |r| r.get(0))?
                .collect()
        })
    }

    /// The nickname of student `token` of class `code`, if they joined.
    pub fn student(&self, code: &str, token: &str) -> Result<Option<String>, ClassError> {
        self.with(|c| {
            c.query_row(
                "SELECT nickname FROM students WHERE class = ?1 AND token = ?2",
                [code, token],
                |r| r.get(0),
            )
            .optional()
        })
    }

    /// Locks a prediction; the first lock stands. Returns the choice locked (an earlier one if
    /// there was one).
    pub fn lock(
        &self,
        code: &str,
        token: &str,
        lesson: &str,
        section: u32,
        choice: u32,
        state: &str,
    ) -> Result<u32, ClassError> {
        self.with(|c| {
            c.execute(
                "INSERT OR IGNORE INTO predictions (class, student, lesson, section, choice, state, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![code, token, lesson, section, choice, state, now()],
            )?;
            c.query_row(
                "SELECT choice FROM predictions WHERE class = ?1 AND student = ?2 AND lesson = ?3 AND section = ?4",
                params![code, token, lesson, section],
                |r| r.get(0),
            )
        })
    }

    /// Records what a student's run measured (a later run replaces an earlier one).
    pub fn result(
        &self,
        code: &str,
        token: &str,
        lesson: &str,
        section: u32,
        measured: &str,
        outcome: i64,
    ) -> Result<(), ClassError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO results (class, student, lesson, section, measured, outcome, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (class, student, lesson, section)
                 DO UPDATE SET measured = excluded.measured, outcome = excluded.outcome, at = excluded.at",
                params![code, token, lesson, section, measured, outcome, now()],
            )
            .map(|_| ())
        })
    }

    pub fn release(&self, code: &str, lesson: &str, section: u32) -> Result<(), ClassError> {
        self.with(|c| {
            c.execute(
                "INSERT OR IGNORE INTO released (class, lesson, section) VALUES (?1, ?2, ?3)",
                params![code, lesson, section],
            )
            .map(|_| ())
        })
    }

    pub fn is_released(&self, code: &str, lesson: &str, section: u32) -> Result<bool, ClassError> {
        self.with(|c| {
            c.query_row(
                "SELECT COUNT(*) FROM released WHERE class = ?1 AND lesson = ?2 AND section = ?3",
                params![code, lesson, section],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
        })
    }

    /// Every prediction, result and release of class `code` (`Store::records` groups them).
    pub(crate) fn rows(&self, code: &str) -> Result<Rows, ClassError> {
        self.with(|c| {
            let predictions = c
                .prepare(
                    "SELECT p.lesson, p.section, s.nickname, p.choice FROM predictions p
                     JOIN students s ON s.class = p.class AND s.token = p.student
                     WHERE p.class = ?1 ORDER BY p.lesson, p.section, p.at, s.nickname",
                )?
                .query_map([code], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                .collect::<rusqlite::Result<_>>()?;
            let results = c
                .prepare(
                    "SELECT r.lesson, r.section, s.nickname, r.measured, r.outcome FROM results r
                     JOIN students s ON s.class = r.class AND s.token = r.student
                     WHERE r.class = ?1 ORDER BY r.lesson, r.section, r.at, s.nickname",
                )?
                .query_map([code], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })?
                .collect::<rusqlite::Result<_>>()?;
            let released = c
                .prepare("SELECT lesson, section FROM released WHERE class = ?1")?
                .query_map([code], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?;
            Ok(Rows {
                predictions,
                results,
                released,
            })
        })
    }

    pub fn issue_ticket(&self, ticket: &str, code: &str) -> Result<(), ClassError> {
        self.memory.issue_ticket(ticket, code)
    }

    pub fn take_ticket(&self, ticket: &str) -> Result<Option<String>, ClassError> {
        self.memory.take_ticket(ticket)
    }

    pub fn kept(&self, key: &str) -> Result<Option<Vec<u8>>, ClassError> {
        self.memory.kept(key)
    }

    pub fn keep(&self, key: &str, answer: &[u8]) -> Result<(), ClassError> {
        self.memory.keep(key, answer)
    }
}
