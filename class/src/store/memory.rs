//! What a single server process keeps in memory beside its SQLite file: the dashboards' stream
//! tickets and the answers kept for retries (PostgreSQL keeps both in tables, for every
//! instance to see).

use std::collections::HashMap;
use std::sync::Mutex;

use super::{now, KEPT_FOR, TICKET_LIFE};
use crate::error::ClassError;

/// Answers kept at most (the expired go first when full; none is kept past that).
const MOST_KEPT: usize = 200_000;

#[derive(Default)]
pub struct Memory {
    /// Ticket digest → (class, issued).
    tickets: Mutex<HashMap<String, (String, i64)>>,
    /// Idempotency key → (kept at, answer).
    answers: Mutex<HashMap<String, (i64, Vec<u8>)>>,
}

fn poisoned<T>(_: T) -> ClassError {
    ClassError::Database("a lock of the server's memory was poisoned".into())
}

impl Memory {
    pub fn issue_ticket(&self, ticket: &str, code: &str) -> Result<(), ClassError> {
        let mut tickets = self.tickets.lock().map_err(poisoned)?;
        let now = now();
        tickets.retain(|_, (_, at)| now - *at < TICKET_LIFE);
        tickets.insert(ticket.to_string(), (code.to_string(), now));
        Ok(())
    }

    pub fn take_ticket(&self, ticket: &str) -> Result<Option<String>, ClassError> {
        let issued = self.tickets.lock().map_err(poisoned)?.remove(ticket);
        Ok(issued
            .filter(|(_, at)| now() - *at < TICKET_LIFE)
            .map(|(code, _)| code))
    }

    pub fn kept(&self, key: &str) -> Result<Option<Vec<u8>>, ClassError> {
        Ok(self
            .answers
            .lock()
            .map_err(poisoned)?
            .get(key)
            .filter(|(at, _)| now() - *at < KEPT_FOR)
            .map(|(_, a)| a.clone()))
    }

    pub fn keep(&self, key: &str, answer: &[u8]) -> Result<(), ClassError> {
        let mut answers = self.answers.lock().map_err(poisoned)?;
        let now = now();
        if answers.len() >= MOST_KEPT {
            answers.retain(|_, (at, _)| now - *at < KEPT_FOR);
        }
        if answers.len() < MOST_KEPT {
            answers
                .entry(key.to_string())
                .or_insert_with(|| (now, answer.to_vec()));
        }
        Ok(())
    }
}
