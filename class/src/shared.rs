//! What every handler shares: the server's state (`App`), and the checks that a class exists and
//! that a request carries its instructor's key. Its own module so that the API, the live stream
//! and the guard depend on it, not on one another.

use serde::Deserialize;

use crate::db::Store;
use crate::error::ClassError;
use crate::validate as v;

/// What every handler shares.
pub struct App {
    pub store: Store,
    /// The code of each class as it changes, for the dashboards' live streams.
    pub changes: tokio::sync::broadcast::Sender<String>,
    /// What every page of a class hears (`events::live`): (code, event name, JSON data) — a
    /// reveal released, the instructor sending the class to a section.
    pub live: tokio::sync::broadcast::Sender<(String, &'static str, String)>,
    /// Becomes true when the server is told to stop: the live streams end.
    pub stopped: tokio::sync::watch::Receiver<bool>,
    /// The course ids are checked against (None: any well-formed id).
    pub lessons: Option<crate::catalogue::Catalogue>,
}

impl App {
    /// A lesson id and section, well formed and, with a catalogue, in the course.
    pub(crate) fn section<'a>(&self, lesson: &'a str, section: u32) -> Result<(&'a str, u32), ClassError> {
        let (lesson, section) = (v::lesson(lesson)?, v::index("section", section, 100)?);
        if let Some(c) = &self.lessons {
            c.section(lesson, section)?;
        }
        Ok((lesson, section))
    }

    /// A choice (or an outcome: −1 for none) of that section, in range; with a catalogue, one
    /// the section has.
    pub(crate) fn choice(
        &self,
        lesson: &str,
        section: u32,
        choice: i64,
        what: &str,
    ) -> Result<(), ClassError> {
        if !(-1..=20).contains(&choice) || (choice == -1 && what != "outcome") {
            return Err(ClassError::Invalid(format!(
                "{what}: -1 (none) or a choice, 0 to 20"
            )));
        }
        match &self.lessons {
            Some(c) => c.choice(lesson, section, choice, what),
            None => Ok(()),
        }
    }

    /// Tells every page of class `code` something (`event`, with `data` as JSON).
    pub(crate) fn tell(&self, code: &str, event: &'static str, data: serde_json::Value) {
        let _ = self.live.send((code.to_string(), event, data.to_string()));
    }

    /// Tells the dashboards watching class `code` that it changed.
    pub(crate) fn changed(&self, code: &str) {
        // No dashboard listening is no error.
        let _ = self.changes.send(code.to_string());
    }
}

/// The class `code`, checked to exist; its (key's digest, title, hold).
pub(crate) fn class(app: &App, code: &str) -> Result<(String, String, bool), ClassError> {
    app.store.class(v::code(code)?)?.ok_or_else(|| {
        ClassError::NotFound(format!(
            "no class {code}: check the code on the instructor's screen"
        ))
    })
}

/// The instructor's key checked against class `code`'s.
pub(crate) fn instructor(app: &App, code: &str, key: &str) -> Result<(String, bool), ClassError> {
    let (right, title, hold) = class(app, code)?;
    if crate::secret::digest(v::secret("key", key)?) != right {
        return Err(ClassError::Forbidden(
            "the instructor key is not this class's".into(),
        ));
    }
    Ok((title, hold))
}

/// A request that only the instructor may make: the class's key.
#[derive(Deserialize)]
pub(crate) struct KeyQuery {
    pub(crate) key: String,
}
