//! The dashboard's live view: `GET /api/classes/{code}/events?key=…` is a stream of server-sent
//! events, one `change` whenever the class gets a student, a lock, a result or a release (and one
//! at once, so a dashboard that connects late reads the class). The dashboard then reads
//! `results`; it never polls faster than the class changes. A server told to stop ends them.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast::error::RecvError;

use crate::error::ClassError;
use crate::shared::{instructor, App, KeyQuery};

pub(crate) async fn stream(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
    crate::extract::StrictQuery(q): crate::extract::StrictQuery<KeyQuery>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ClassError> {
    instructor(&app, &code, &q.key)?;
    let change = |code: &str| Ok(Event::default().event("change").data(code));
    let first = stream::once({
        let code = code.clone();
        async move { change(&code) }
    });
    let later = stream::unfold(
        (app.changes.subscribe(), code),
        move |(mut rx, code)| async move {
            loop {
                match rx.recv().await {
                    Ok(changed) if changed == code => return Some((change(&code), (rx, code))),
                    Ok(_) => continue,
                    // Fell behind a burst: one change covers it.
                    Err(RecvError::Lagged(_)) => return Some((change(&code), (rx, code))),
                    Err(RecvError::Closed) => return None,
                }
            }
        },
    );
    // The stream ends when the server stops (a switch never thrown, in a router without one).
    let mut stopped = app.stopped.clone();
    let stop = async move {
        if stopped.wait_for(|s| *s).await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    let events = futures_util::StreamExt::take_until(futures_util::StreamExt::chain(first, later), stop);
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}
