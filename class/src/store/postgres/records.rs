//! The records' queries on PostgreSQL: the same answers as the SQLite file's (`sqlite`), with
//! the checks that must hold across instances made by the database (unique keys, one `DELETE …
//! RETURNING`).

use std::sync::atomic::Ordering;

use super::{pg, Postgres};
use crate::error::ClassError;
use crate::store::{now, ClassRow, Rows, KEPT_FOR, TICKET_LIFE};

impl Postgres {
    pub async fn create_class(
        &self,
        code: &str,
        key: &str,
        title: &str,
        hold: bool,
        owner: &str,
    ) -> Result<(), ClassError> {
        self.execute(
            "INSERT INTO classes (code, key, title, created, hold, owner) VALUES ($1, $2, $3, $4, $5, $6)",
            &[&code, &key, &title, &now(), &hold, &owner],
        )
        .await?;
        Ok(())
    }

    pub async fn classes_of(&self, owner: &str) -> Result<Vec<ClassRow>, ClassError> {
        let rows = self.query(
                "SELECT code, title, created, hold FROM classes WHERE owner = $1 ORDER BY created DESC, id DESC",
                &[&owner],
            ).await?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect())
    }

    pub async fn owner(&self, code: &str) -> Result<Option<String>, ClassError> {
        let row = self
            .query_opt("SELECT owner FROM classes WHERE code = $1", &[&code])
            .await?;
        Ok(row.map(|r| r.get(0)))
    }

    pub async fn class(&self, code: &str) -> Result<Option<(String, String, bool)>, ClassError> {
        let row = self
            .query_opt("SELECT key, title, hold FROM classes WHERE code = $1", &[&code])
            .await?;
        Ok(row.map(|r| (r.get(0), r.get(1), r.get(2))))
    }

    /// The unique (class, nickname key) makes the check and the write one, across instances.
    pub async fn join(
        &self,
        code: &str,
        token: &str,
        nickname: &str,
        key: &str,
    ) -> Result<Option<String>, ClassError> {
        let client = self.client().await?;
        let added = client
            .execute(
                "INSERT INTO students (class, token, nickname, nickname_key) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (class, nickname_key) DO NOTHING",
                &[&code, &token, &nickname, &key],
            )
            .await
            .map_err(pg)?;
        if added == 1 {
            return Ok(None);
        }
        let row = client
            .query_one(
                "SELECT nickname FROM students WHERE class = $1 AND nickname_key = $2",
                &[&code, &key],
            )
            .await
            .map_err(pg)?;
        Ok(Some(row.get(0)))
    }

    pub async fn nicknames(&self, code: &str) -> Result<Vec<String>, ClassError> {
        let rows = self
            .query(
                "SELECT nickname FROM students WHERE class = $1 ORDER BY id",
                &[&code],
            )
            .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub async fn student(&self, code: &str, token: &str) -> Result<Option<String>, ClassError> {
        let row = self
            .query_opt(
                "SELECT nickname FROM students WHERE class = $1 AND token = $2",
                &[&code, &token],
            )
            .await?;
        Ok(row.map(|r| r.get(0)))
    }

    pub async fn lock(
        &self,
        code: &str,
        token: &str,
        lesson: &str,
        section: u32,
        choice: u32,
        state: &str,
    ) -> Result<u32, ClassError> {
        let client = self.client().await?;
        let (section, choice) = (section as i32, choice as i32);
        client
            .execute(
                "INSERT INTO predictions (class, student, lesson, section, choice, state, at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
                &[&code, &token, &lesson, &section, &choice, &state, &now()],
            )
            .await
            .map_err(pg)?;
        let row = client
            .query_one(
                "SELECT choice FROM predictions WHERE class = $1 AND student = $2 AND lesson = $3 AND section = $4",
                &[&code, &token, &lesson, &section],
            )
            .await
            .map_err(pg)?;
        Ok(row.get::<_, i32>(0) as u32)
    }

    pub async fn result(
        &self,
        code: &str,
        token: &str,
        lesson: &str,
        section: u32,
        measured: &str,
        outcome: i64,
    ) -> Result<(), ClassError> {
        self.execute(
            "INSERT INTO results (class, student, lesson, section, measured, outcome, at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (class, student, lesson, section)
                 DO UPDATE SET measured = excluded.measured, outcome = excluded.outcome, at = excluded.at",
            &[
                &code,
                &token,
                &lesson,
                &(section as i32),
                &measured,
                &outcome,
                &now(),
            ],
        )
        .await?;
        Ok(())
    }

    pub async fn release(&self, code: &str, lesson: &str, section: u32) -> Result<(), ClassError> {
        self.execute(
            "INSERT INTO released (class, lesson, section) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[&code, &lesson, &(section as i32)],
        )
        .await?;
        Ok(())
    }

    pub async fn is_released(&self, code: &str, lesson: &str, section: u32) -> Result<bool, ClassError> {
        let row = self
            .query_opt(
                "SELECT 1 FROM released WHERE class = $1 AND lesson = $2 AND section = $3",
                &[&code, &lesson, &(section as i32)],
            )
            .await?;
        Ok(row.is_some())
    }

    /// As SQLite orders them: text by its bytes (`COLLATE "C"`), not by the server's locale.
    pub(crate) async fn rows(&self, code: &str) -> Result<Rows, ClassError> {
        let client = self.client().await?;
        let predictions = client
            .query(
                r#"SELECT p.lesson, p.section, s.nickname, p.choice FROM predictions p
                   JOIN students s ON s.class = p.class AND s.token = p.student
                   WHERE p.class = $1
                   ORDER BY p.lesson COLLATE "C", p.section, p.at, s.nickname COLLATE "C""#,
                &[&code],
            )
            .await
            .map_err(pg)?
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    r.get::<_, i32>(1) as u32,
                    r.get(2),
                    r.get::<_, i32>(3) as u32,
                )
            })
            .collect();
        let results = client
            .query(
                r#"SELECT r.lesson, r.section, s.nickname, r.measured, r.outcome FROM results r
                   JOIN students s ON s.class = r.class AND s.token = r.student
                   WHERE r.class = $1
                   ORDER BY r.lesson COLLATE "C", r.section, r.at, s.nickname COLLATE "C""#,
                &[&code],
            )
            .await
            .map_err(pg)?
            .iter()
            .map(|r| (r.get(0), r.get::<_, i32>(1) as u32, r.get(2), r.get(3), r.get(4)))
            .collect();
        let released = client
            .query("SELECT lesson, section FROM released WHERE class = $1", &[&code])
            .await
            .map_err(pg)?
            .iter()
            .map(|r| (r.get(0), r.get::<_, i32>(1) as u32))
            .collect();
        Ok(Rows {
            predictions,
            results,
            released,
        })
    }

    pub async fn issue_ticket(&self, ticket: &str, code: &str) -> Result<(), ClassError> {
        let client = self.client().await?;
        client
            .execute("DELETE FROM tickets WHERE issued < $1", &[&(now() - TICKET_LIFE)])
            .await
            .map_err(pg)?;
        client
            .execute(
                "INSERT INTO tickets (ticket, class, issued) VALUES ($1, $2, $3)",
                &[&ticket, &code, &now()],
            )
            .await
            .map_err(pg)?;
        Ok(())
    }

    /// Deleted as it is read: two instances cannot both use one ticket.
    pub async fn take_ticket(&self, ticket: &str) -> Result<Option<String>, ClassError> {
        let row = self
            .query_opt(
                "DELETE FROM tickets WHERE ticket = $1 RETURNING class, issued",
                &[&ticket],
            )
            .await?;
        Ok(row
            .filter(|r| now() - r.get::<_, i64>(1) < TICKET_LIFE)
            .map(|r| r.get(0)))
    }

    pub async fn kept(&self, key: &str) -> Result<Option<Vec<u8>>, ClassError> {
        let row = self
            .query_opt(
                "SELECT answer FROM kept_answers WHERE key = $1 AND at >= $2",
                &[&key, &(now() - KEPT_FOR)],
            )
            .await?;
        Ok(row.map(|r| r.get(0)))
    }

    pub async fn keep(&self, key: &str, answer: &[u8]) -> Result<(), ClassError> {
        let client = self.client().await?;
        // The expired go every thousand answers: a lecture's worth, not each request.
        if self.kept.fetch_add(1, Ordering::Relaxed).is_multiple_of(1000) {
            client
                .execute("DELETE FROM kept_answers WHERE at < $1", &[&(now() - KEPT_FOR)])
                .await
                .map_err(pg)?;
        }
        client
            .execute(
                "INSERT INTO kept_answers (key, answer, at) VALUES ($1, $2, $3) ON CONFLICT (key)
                 DO UPDATE SET answer = excluded.answer, at = excluded.at WHERE kept_answers.at < $4",
                &[&key, &answer, &now(), &(now() - KEPT_FOR)],
            )
            .await
            .map_err(pg)?;
        Ok(())
    }
}
