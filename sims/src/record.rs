//! What every lab's saved results file is: its runs, its CSV, and how it reads back (checked for
//! meaning by the record's own `from_json`). Each record says so beside its type with
//! `run_record!`, so the page's file controls (`app::layout::record_files`) serve every lab
//! without a list of them.

use engine::error::Error;
pub use engine::error::{check_format, read_json};

/// A lab's record of runs, as its results file holds it.
pub trait RunRecord: Sized {
    /// The record as CSV, one row a run (or a point), for a spreadsheet.
    fn csv(&self) -> String;
    /// Reads a results file back, refusing with a reason what is not one.
    fn from_json(text: &str) -> Result<Self, Error>;
    /// How many runs the record holds (what "loaded …: N runs" says).
    fn runs(&self) -> usize;
}

/// Why a results file cannot be the lab's own: a count outside what the lab writes, values that
/// do not fit together, or either of them in a named part (run 3, layout 2). Its words are the
/// refusal's ("not a results file of this lab: run 2: workers from 1 to 64, not 0").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordFault {
    /// A count outside its bounds.
    #[error("{what} from {lo} to {hi}, not {n}")]
    Count {
        what: String,
        lo: usize,
        hi: usize,
        n: usize,
    },
    /// Values the lab could not have written together, in words.
    #[error("{0}")]
    Meaning(String),
    /// A fault of one part of the record, counted from 1.
    #[error("{part} {index}: {fault}")]
    In {
        part: &'static str,
        index: usize,
        fault: Box<RecordFault>,
    },
}

impl RecordFault {
    /// This fault, as one of the record's `part` numbered `index` (from 1).
    pub fn at(self, part: &'static str, index: usize) -> Self {
        Self::In {
            part,
            index,
            fault: Box::new(self),
        }
    }
}

impl From<String> for RecordFault {
    fn from(why: String) -> Self {
        Self::Meaning(why)
    }
}

impl From<&str> for RecordFault {
    fn from(why: &str) -> Self {
        Self::Meaning(why.to_string())
    }
}

/// A record that reads as JSON, refused unless the lab could have written it (`check`: its
/// `record_check.rs`), in the words every lab's file refusal uses.
pub fn lab_file<T>(record: T, check: impl Fn(&T) -> Result<(), RecordFault>) -> Result<T, Error> {
    check(&record).map_err(|why| Error::Config(format!("not a results file of this lab: {why}")))?;
    Ok(record)
}

/// A count of a results file within [lo, hi], or why not ("heads from 1 to 16, not 0"): the
/// records' meaning checks (`*/record_check.rs`) say their bounds with it.
pub fn within(what: &str, n: usize, lo: usize, hi: usize) -> Result<(), RecordFault> {
    match (lo..=hi).contains(&n) {
        true => Ok(()),
        false => Err(RecordFault::Count {
            what: what.to_string(),
            lo,
            hi,
            n,
        }),
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
