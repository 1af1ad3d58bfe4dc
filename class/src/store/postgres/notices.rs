//! Hearing the other instances: a connection of its own `LISTEN`s on the channel and forwards
//! each notice to this server's streams; if it drops, it is opened again and the streams are told
//! to resync (they may have missed notices meanwhile).

use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::broadcast;
use tokio_postgres::{AsyncMessage, Client, Config, NoTls};

use super::{pg, CHANNEL};
use crate::error::ClassError;
use crate::store::Notice;

/// A connection that listens on the channel and forwards each notice to `hub`; the task that
/// drives it ends when the connection does.
pub(super) async fn listen(
    config: &Config,
    hub: broadcast::Sender<Notice>,
) -> Result<(Client, tokio::task::JoinHandle<()>), ClassError> {
    let (client, mut connection) = config.connect(NoTls).await.map_err(pg)?;
    let pump = tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(n)) => {
                    if let Ok(notice) = serde_json::from_str::<Notice>(n.payload()) {
                        let _ = hub.send(notice);
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    eprintln!("lab-class: the PostgreSQL listening connection ended: {e}");
                    break;
                }
            }
        }
    });
    client
        .batch_execute(&format!("LISTEN {CHANNEL}"))
        .await
        .map_err(pg)?;
    Ok((client, pump))
}

/// Listens again whenever the listening connection ends, and tells every stream to resync (it
/// may have missed notices meanwhile).
pub(super) fn keep_listening(
    config: Config,
    hub: broadcast::Sender<Notice>,
    first: (Client, tokio::task::JoinHandle<()>),
) {
    tokio::spawn(async move {
        let (mut _client, mut pump) = first;
        loop {
            let _ = pump.await;
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                match listen(&config, hub.clone()).await {
                    Ok(again) => {
                        (_client, pump) = again;
                        break;
                    }
                    Err(e) => eprintln!("lab-class: listening again: {e}"),
                }
            }
            let _ = hub.send(Notice {
                code: crate::store::EVERY_CLASS.into(),
                event: "resync".into(),
                data: "{}".into(),
            });
        }
    });
}
