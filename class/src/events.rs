//! The dashboard's live view: `GET /api/classes/{code}/events?ticket=…` (a one-use ticket: no key in a URL) is a stream of server-sent
//! events, one `change` whenever the class gets a student, a lock, a result or a release (and one
//! at once, so a dashboard that connects late reads the class). The dashboard then reads
//! `results`; it never polls faster than the class changes. `GET /api/classes/{code}/live` is
//! the students' pages' stream: `release` when a held reveal is released, `pace` when the
//! instructor sends the class to a section — one stream each, instead of polling, so a lecture
//! hall's pages cost the server nothing while they wait. A server told to stop ends them all.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast::error::RecvError;

use crate::error::ClassError;
use crate::shared::App;
use crate::store::EVERY_CLASS;

#[derive(serde::Deserialize)]
pub(crate) struct TicketQuery {
    ticket: String,
}

pub(crate) async fn stream(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
    crate::extract::StrictQuery(q): crate::extract::StrictQuery<TicketQuery>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ClassError> {
    // A ticket is good once, for its class, within a minute of being issued.
    let issued = app.store.take_ticket(&crate::secret::digest(&q.ticket)).await?;
    if issued.as_deref() != Some(code.as_str()) {
        return Err(ClassError::Forbidden(
            "no such ticket: ask for another (POST …/ticket)".into(),
        ));
    }
    let change = |code: &str| Ok(Event::default().event("change").data(code));
    let first = stream::once({
        let code = code.clone();
        async move { change(&code) }
    });
    let later = stream::unfold((app.store.notices(), code), move |(mut rx, code)| async move {
        loop {
            match rx.recv().await {
                Ok(n) if n.event == "change" && n.code == code => return Some((change(&code), (rx, code))),
                // Fell behind a burst, or notices were missed: one change covers it.
                Ok(n) if n.event == "resync" && n.code == EVERY_CLASS => {
                    return Some((change(&code), (rx, code)))
                }
                Ok(_) => continue,
                Err(RecvError::Lagged(_)) => return Some((change(&code), (rx, code))),
                Err(RecvError::Closed) => return None,
            }
        }
    });
    let events =
        futures_util::StreamExt::take_until(futures_util::StreamExt::chain(first, later), stopping(&app));
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}

/// Resolves when the server is told to stop (never, in a router without the switch).
fn stopping(app: &App) -> impl std::future::Future<Output = ()> {
    let mut stopped = app.stopped.clone();
    async move {
        if stopped.wait_for(|s| *s).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// A student page's stream of class `code`: a `hello` at once (the page knows it is connected),
/// then each `release` and `pace` of the class. No token: what it tells is the class's own news.
pub(crate) async fn live(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ClassError> {
    crate::shared::class(&app, &code).await?;
    let first = stream::once(async { Ok(Event::default().event("hello").data("{}")) });
    let resync = || Ok(Event::default().event("resync").data("{}"));
    let later = stream::unfold((app.store.notices(), code), move |(mut rx, code)| async move {
        loop {
            match rx.recv().await {
                Ok(n) if n.event == "resync" && n.code == EVERY_CLASS => return Some((resync(), (rx, code))),
                Ok(n) if n.code == code && n.event != "change" => {
                    return Some((Ok(Event::default().event(n.event).data(n.data)), (rx, code)));
                }
                Ok(_) => continue,
                // Fell behind: the page asks again whether its reveal may show.
                Err(RecvError::Lagged(_)) => return Some((resync(), (rx, code))),
                Err(RecvError::Closed) => return None,
            }
        }
    });
    let events =
        futures_util::StreamExt::take_until(futures_util::StreamExt::chain(first, later), stopping(&app));
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}
