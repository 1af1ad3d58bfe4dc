//! What can go wrong fetching the site's data files and reading a file the student chose, by kind:
//! the page says it in words where it shows it (`Display`; `From<…> for String` at the banner).

use engine::data::images::DataError;
use thiserror::Error;

/// A data file that could not be fetched or read.
#[derive(Debug, Error)]
pub enum FetchError {
    #[error("no window to fetch from")]
    NoWindow,
    /// The network or the browser refused (its own words).
    #[error("{url}: {why}")]
    Network { url: String, why: String },
    #[error("{url}: HTTP {status} (did setup prepare the data?)")]
    Status { url: String, status: u16 },
    #[error("{url}: not a slice manifest ({why})")]
    Manifest { url: String, why: String },
    /// An image file or slice that is not one.
    #[error("{url}: {source}")]
    Images { url: String, source: DataError },
    /// What the engine refuses of the loaded data.
    #[error(transparent)]
    Engine(#[from] engine::error::Error),
}

/// A file chosen in an `<input type=file>` that could not be read.
#[derive(Debug, Error)]
pub enum FileError {
    #[error("no file chosen")]
    NoneChosen,
    #[error("{0}: could not be read")]
    Unreadable(String),
    /// Refused before it is read: a file this large would hold the page and its memory.
    #[error(
        "{name} is {megabytes:.0} MB: the lab reads files of at most {most} MB (its own are far smaller)"
    )]
    TooLarge { name: String, megabytes: f64, most: u32 },
}

impl From<FetchError> for String {
    fn from(e: FetchError) -> String {
        e.to_string()
    }
}

impl From<FileError> for String {
    fn from(e: FileError) -> String {
        e.to_string()
    }
}

/// What stops a lab's run, by kind; the page says it in words where it shows it (the error
/// banner, through `Job`).
#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    Engine(#[from] engine::error::Error),
    #[error(transparent)]
    Train(#[from] engine::train::TrainError),
    /// A network the engine cannot build (layers that do not fit together).
    #[error(transparent)]
    Model(#[from] engine::error::ModelError),
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Setup(#[from] lab_state::error::SetupError),
    #[error(transparent)]
    Team(#[from] crate::cpu_team::TeamError),
    /// A model file the student loaded that does not hold what the lab needs: its name and why.
    #[error("{name}: {source}")]
    BadModel {
        name: String,
        source: engine::error::Error,
    },
    #[error("{0}: not an image model (the vision lab loads MNIST and Fashion-MNIST models)")]
    NotImages(String),
    #[error("no layout of at most {devices} devices fits {memory} MB per device: nothing to train (raise the memory or the devices)")]
    NoLayoutFits { devices: usize, memory: f64 },
    #[error("the loss became NaN or infinite at step {0}: training stopped (try a smaller learning rate)")]
    Diverged(usize),
    #[error("{0}")]
    NoWebgpu(String),
    #[error("no runs to train")]
    NoRuns,
    #[error("unknown workload '{0}'")]
    UnknownWorkload(String),
    #[error(transparent)]
    Layout(#[from] lab_sims::parallelism::layout::LayoutError),
}
