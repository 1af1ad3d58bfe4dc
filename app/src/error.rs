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
