//! What every lab's saved results file is: its runs, its CSV, and how it reads back (checked for
//! meaning by the record's own `from_json`). Each record says so beside its type with
//! `run_record!`, so the page's file controls (`app::layout::record_files`) serve every lab
//! without a list of them.

use engine::error::Error;
use serde::de::DeserializeOwned;

/// A lab's record of runs, as its results file holds it.
pub trait RunRecord: Sized {
    /// The record as CSV, one row a run (or a point), for a spreadsheet.
    fn csv(&self) -> String;
    /// Reads a results file back, refusing with a reason what is not one.
    fn from_json(text: &str) -> Result<Self, Error>;
    /// How many runs the record holds (what "loaded …: N runs" says).
    fn runs(&self) -> usize;
}

/// A results file's JSON as a `T`, or refused as not `what` (with its article: "an attention
/// record").
pub fn read_json<T: DeserializeOwned>(text: &str, what: &'static str) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|e| Error::NotA {
        what,
        why: e.to_string(),
    })
}

/// A record's format line against the one this version writes.
pub fn check_format(found: &str, expected: &'static str) -> Result<(), Error> {
    match found == expected {
        true => Ok(()),
        false => Err(Error::WrongFormat {
            found: found.to_string(),
            expected,
        }),
    }
}

/// A count of a results file within [lo, hi], or why not ("heads from 1 to 16, not 0"): the
/// records' meaning checks (`*/record_check.rs`) say their bounds in these words.
pub fn within(what: &str, n: usize, lo: usize, hi: usize) -> Result<(), String> {
    match (lo..=hi).contains(&n) {
        true => Ok(()),
        false => Err(format!("{what} from {lo} to {hi}, not {n}")),
    }
}

/// `RunRecord` for a record type with inherent `csv` and `from_json`; `$runs` counts its runs.
#[macro_export]
macro_rules! run_record {
    ($record:ty, $runs:expr) => {
        impl $crate::record::RunRecord for $record {
            fn csv(&self) -> String {
                <$record>::csv(self)
            }
            fn from_json(text: &str) -> Result<Self, engine::error::Error> {
                <$record>::from_json(text)
            }
            fn runs(&self) -> usize {
                let count: fn(&$record) -> usize = $runs;
                count(self)
            }
        }
    };
}
