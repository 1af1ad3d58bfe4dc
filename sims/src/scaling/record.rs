//! A finished sweep as the scaling lab saves it: its settings and every run, read back without
//! training (refusing another file with a reason) and written as CSV.

use engine::error::Error;
use serde::{Deserialize, Serialize};

use super::{RunResult, Sweep, CSV_HEADER};

/// A finished sweep: its settings and every run, enough to redraw it without training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRecord {
    pub format: String,
    pub sweep: Sweep,
    pub runs: Vec<RunResult>,
}

/// The `format` of a [`SweepRecord`].
pub const RECORD_FORMAT: &str = "training-lab sweep v1";

impl SweepRecord {
    pub fn new(sweep: Sweep, runs: Vec<RunResult>) -> Self {
        Self {
            format: RECORD_FORMAT.into(),
            sweep,
            runs,
        }
    }

    /// Reads a record saved by the lab, refusing other files with a reason.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let r: SweepRecord = crate::record::read_json(text, "a sweep record")?;
        crate::record::check_format(&r.format, RECORD_FORMAT)?;
        crate::record::lab_file(r, Self::check)
    }

    /// Every run as CSV, with a header.
    pub fn csv(&self) -> String {
        engine::table::to_csv(
            &engine::table::header(CSV_HEADER),
            self.runs.iter().map(RunResult::csv_cells),
        )
    }
}

crate::run_record!(SweepRecord, |r| r.runs.len());
