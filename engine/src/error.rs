//! What can go wrong in the engine, by kind, so that callers and tests tell cases apart by
//! variant; each message is written for a student and says what to do where there is something.

/// A GPU device that stopped answering.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DeviceError {
    #[error("the GPU device went away during a readback")]
    Gone,
    #[error("readback failed: {0}")]
    Readback(String),
    #[error("GPU poll failed: {0}")]
    Poll(String),
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Error {
    /// No WebGPU in this browser, or no adapter or device: the CPU path is the way on.
    #[error("{0}")]
    NoGpu(String),
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The GPU refused the model (out of memory, a limit of the device).
    #[error("{0}")]
    GpuRefused(String),
    /// The model needs more memory than the CPU path allows itself.
    #[error("{0}")]
    TooLarge(String),
    /// Settings that cannot train: a learning rate, a batch size, a layer line.
    #[error("{0}")]
    Config(String),
    /// A model and data that do not fit each other (classes, features, sizes).
    #[error("{0}")]
    Mismatch(String),
    /// A replica of a split step (a Web Worker of the CPU path) that failed or went away: the
    /// run carries on unsplit.
    #[error("a replica of the split step failed ({0}); training carries on on one core")]
    Replica(String),
    /// A file the caller's reader could not give (its message names the file).
    #[error("{0}")]
    Unreadable(String),
    /// A data file that could not be parsed.
    #[error("{file}: {why}")]
    Data { file: String, why: String },
    /// A file that is not what it was given as: `what` says what it should be, with its article
    /// ("a saved model", "an attention record").
    #[error("not {what}: {why}")]
    NotA { what: &'static str, why: String },
    /// A file of another format or version than this engine writes.
    #[error("format '{found}' is not '{expected}'")]
    WrongFormat { found: String, expected: &'static str },
    /// The loss became NaN or infinite at this step.
    #[error("training diverged at step {step}: the loss became NaN or infinite. Lower the learning rate and reset.")]
    Diverged { step: u64 },
    #[error("{rows} points exceed the {max} this trainer predicts at once")]
    TooManyPoints { rows: usize, max: usize },
    #[error("{given} values given for {expected} parameters")]
    ParamCount { given: usize, expected: usize },
    #[error("this trainer was built without a landscape evaluation")]
    NoEvaluation,
    #[error("no evaluation data: call set_eval_data first")]
    NoEvaluationData,
}

/// Why a training chunk stopped (`train::Trainer::train`).
#[derive(Clone, Debug, PartialEq)]
pub enum TrainError {
    /// The loss became NaN or infinite at this step; training stops there.
    Diverged {
        step: u64,
    },
    Device(Error),
}

impl std::fmt::Display for TrainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrainError::Diverged { step } => write!(
                f,
                "training diverged at step {step}: the loss became NaN or infinite. Lower the learning rate and reset."
            ),
            TrainError::Device(e) => write!(f, "device error: {e}"),
        }
    }
}

impl std::error::Error for TrainError {}

impl From<TrainError> for Error {
    fn from(e: TrainError) -> Self {
        match e {
            TrainError::Diverged { step } => Error::Diverged { step },
            TrainError::Device(e) => e,
        }
    }
}

/// Why a model spec does not compile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("the input shape has a zero dimension")]
    ZeroInput,
    #[error("the last layer must output at least one value")]
    NoOutput,
    #[error("the model has no layer with parameters")]
    NoParameters,
    /// Layers are numbered from 1, as a student counts them in a layer line.
    #[error("layer {number} ({layer}): {why}")]
    Layer {
        number: usize,
        layer: String,
        why: String,
    },
}

/// A model that does not compile is a setting that cannot train.
impl From<ModelError> for Error {
    fn from(e: ModelError) -> Self {
        Error::Config(e.to_string())
    }
}

/// Modules whose own errors are still sentences take an engine error as its message.
impl From<Error> for String {
    fn from(e: Error) -> String {
        e.to_string()
    }
}

/// A file's JSON as a `T` (a saved model, a lab's results record), or refused as not `what`
/// (with its article: "an attention record").
pub fn read_json<T: serde::de::DeserializeOwned>(text: &str, what: &'static str) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|e| Error::NotA {
        what,
        why: e.to_string(),
    })
}

/// A file's format line against the one this version writes.
pub fn check_format(found: &str, expected: &'static str) -> Result<(), Error> {
    match found == expected {
        true => Ok(()),
        false => Err(Error::WrongFormat {
            found: found.to_string(),
            expected,
        }),
    }
}
