//! What stops a CPU team, by kind: a helper (a Web Worker) that fails or falls silent, a browser
//! call that throws, or a run that does not split. The page shows it in words (`Display`), as the
//! reason the run trains on one core.

use thiserror::Error;

/// What went wrong with one helper.
#[derive(Debug, Error)]
pub enum HelperError {
    #[error("this browser would not start a Web Worker ({0})")]
    NoWorker(String),
    #[error("the page does not name its wasm glue")]
    NoGlue,
    /// A browser call that threw (a message that would not post, a blob, an atomic): its words.
    #[error("{0}")]
    Browser(String),
    /// The helper's own report of its failure (it crosses the worker boundary as text).
    #[error("{0}")]
    Said(String),
    #[error("a share of {params} weights and {rows} rows does not fit the shared buffer")]
    ShareTooBig { params: usize, rows: usize },
    #[error("a hidden-unit step does not fit the shared buffer")]
    StepTooBig,
    #[error("a share failed")]
    ShareFailed,
    #[error("an unexpected message")]
    Unexpected,
    #[error("it gave no answer for {0} s")]
    Silent(f64),
    #[error("the helper went away")]
    Gone,
}

impl HelperError {
    /// A JavaScript exception, in the words the browser gives it.
    pub fn browser(e: wasm_bindgen::JsValue) -> HelperError {
        HelperError::Browser(format!("{e:?}"))
    }
}

/// Why a run trains on one core instead of a team.
#[derive(Debug, Error)]
pub enum TeamError {
    /// The trainer's own reason (`Trainer::split_blocker`).
    #[error("{0}")]
    Blocked(&'static str),
    #[error("a batch of {batch} does not split into equal shares of {min}+ rows over {wanted} cores")]
    Unsplittable { batch: usize, min: usize, wanted: usize },
    #[error(transparent)]
    Engine(#[from] engine::error::Error),
    #[error(transparent)]
    Train(#[from] engine::train::TrainError),
    #[error("the replica's settings do not write ({0})")]
    Json(#[from] serde_json::Error),
    #[error("a CPU helper would not start: {0}")]
    NotPosted(HelperError),
    #[error("a helper failed to start ({0})")]
    NotStarted(HelperError),
    #[error(transparent)]
    Helper(#[from] HelperError),
}

/// What fails inside a helper; it posts the words to the leader (`HelperError::Said`).
#[derive(Debug, Error)]
pub enum ReplicaError {
    #[error("the replica's settings do not read: {0}")]
    Settings(serde_json::Error),
    #[error(transparent)]
    Engine(#[from] engine::error::Error),
    #[error(transparent)]
    Train(#[from] engine::train::TrainError),
    #[error("this helper holds no shard of hidden units")]
    NoShard,
    #[error("this shard's part of the logits does not fit the shared buffer")]
    LogitsTooBig,
}
