//! Below the framework (the hardware lab; docs/theory.md §11): a matrix product on a systolic
//! array, cycle by cycle, in two dataflows; and what the lab keeps of a device's roofline and a
//! training step's kernels under it.

pub mod distributed;
pub mod record;
pub mod record_check;
pub mod systolic;
pub mod tiling;
