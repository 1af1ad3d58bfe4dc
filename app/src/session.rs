//! One owner per running session: a task holds the trainer (or cluster, sweep, slice) and takes
//! commands from a mailbox, so nothing else ever borrows it. Pages send commands; the owner
//! answers each one on the page's signals (done, or refused with the reason).

use std::collections::VecDeque;

use futures::channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use futures::StreamExt;

/// Where a page sends its session commands.
pub struct Mailbox<C>(UnboundedSender<C>);

impl<C> Clone for Mailbox<C> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<C> Mailbox<C> {
    /// Queues a command; the owner takes it at its next turn (between two training chunks).
    pub fn send(&self, command: C) {
        // The owner lives as long as the page, so the mailbox is never closed while clickable.
        let _ = self.0.unbounded_send(command);
    }
}

/// The owner's side of the mailbox.
pub struct Inbox<C> {
    rx: UnboundedReceiver<C>,
    pending: VecDeque<C>,
}

impl<C> Inbox<C> {
    /// The next command, waiting for one; None when every mailbox is gone.
    pub async fn next(&mut self) -> Option<C> {
        match self.pending.pop_front() {
            Some(c) => Some(c),
            None => self.rx.next().await,
        }
    }

    /// The next command if one is already waiting.
    pub fn ready(&mut self) -> Option<C> {
        self.pending.pop_front().or_else(|| self.rx.try_recv().ok())
    }

    /// True when a command matching `which` is waiting (it stays queued): an owner about to
    /// rebuild skips the work when a newer rebuild is already on its way.
    pub fn has(&mut self, which: impl Fn(&C) -> bool) -> bool {
        while let Ok(c) = self.rx.try_recv() {
            self.pending.push_back(c);
        }
        self.pending.iter().any(which)
    }
}

pub fn mailbox<C>() -> (Mailbox<C>, Inbox<C>) {
    let (tx, rx) = unbounded();
    (
        Mailbox(tx),
        Inbox {
            rx,
            pending: VecDeque::new(),
        },
    )
}
