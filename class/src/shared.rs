//! What every handler shares: the server's state (`App`), and the checks that a class exists and
//! that a request carries its instructor's key. Its own module so that the API, the live stream
//! and the guard depend on it, not on one another.

use crate::error::ClassError;
use crate::store::{Notice, Store};
use crate::validate as v;

/// What every handler shares.
pub struct App {
    pub store: Store,
    /// Becomes true when the server is told to stop: the live streams end.
    pub stopped: tokio::sync::watch::Receiver<bool>,
    /// The course ids are checked against (None: any well-formed id).
    pub lessons: Option<crate::catalogue::Catalogue>,
    /// Who may open classes (None: any page, a class on one machine).
    pub instructors: Option<crate::instructors::Instructors>,
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

    /// Tells every page of class `code` something (`event`, with `data` as JSON), through every
    /// server instance.
    pub(crate) async fn tell(
        &self,
        code: &str,
        event: &str,
        data: serde_json::Value,
    ) -> Result<(), ClassError> {
        self.store
            .publish(Notice {
                code: code.to_string(),
                event: event.to_string(),
                data: data.to_string(),
            })
            .await
    }

    /// Tells the dashboards watching class `code` that it changed.
    pub(crate) async fn changed(&self, code: &str) -> Result<(), ClassError> {
        self.tell(code, "change", serde_json::Value::Null).await
    }
}

/// The class `code`, checked to exist; its (key's digest, title, hold).
pub(crate) async fn class(app: &App, code: &str) -> Result<(String, String, bool), ClassError> {
    app.store.class(v::code(code)?).await?.ok_or_else(|| {
        ClassError::NotFound(format!(
            "no class {code}: check the code on the instructor's screen"
        ))
    })
}

/// The secret a request carries in its `Authorization: Bearer` header.
pub(crate) fn bearer(headers: &axum::http::HeaderMap) -> Result<&str, ClassError> {
    headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .ok_or_else(|| {
            ClassError::Forbidden("the instructor's key goes in an Authorization: Bearer header".into())
        })
}

/// `secret` checked against class `code`: the class's own key, or the secret of the instructor
/// who opened it (from any device). The class's title and whether it holds reveals.
pub(crate) async fn instructor(app: &App, code: &str, secret: &str) -> Result<(String, bool), ClassError> {
    let (right, title, hold) = class(app, code).await?;
    let key = v::secret("key", secret)?;
    let owner = app.store.owner(code).await?.unwrap_or_default();
    let by_owner =
        !owner.is_empty() && app.instructors.as_ref().and_then(|i| i.who(key)) == Some(owner.as_str());
    if crate::secret::digest(key) != right && !by_owner {
        return Err(ClassError::Forbidden(
            "the instructor key is not this class's".into(),
        ));
    }
    Ok((title, hold))
}
