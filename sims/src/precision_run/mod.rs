//! The precision lab's runs (docs/theory.md §7): one network trained in several formats on the
//! same batches, each run's checks and histograms, and the record the lab saves.

mod record;
pub mod record_check;
mod run;

pub use record::PrecisionRecord;
pub use run::{run, Check, PrecisionRun, HISTOGRAM_HIGHEST, HISTOGRAM_LOWEST};
