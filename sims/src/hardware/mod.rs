//! Below the framework (the hardware lab; docs/theory.md §11): a matrix product on a systolic
//! array, cycle by cycle, in two dataflows.

pub mod systolic;
