//! The class as the cluster (issue 84): every joined student's page is a worker of one
//! synchronous data-parallel run. This crate is what the pages and the class server say to each
//! other and how a step's gradients are combined, with no I/O of its own, so that the server, the
//! pages (wasm) and the tests share one definition:
//!
//! - [`shards`]: which rows of a step's global batch each worker computes, by rank, and how the
//!   rows of a worker that left are given to the others (elastic);
//! - [`frame`]: a worker's gradient for one step as a binary frame (a WebSocket message), checked
//!   for size before it is read;
//! - [`reduce`]: the step's reduction: frames refused with their reason (another step, an unknown
//!   or repeated rank, the wrong size, a non-finite value), the rest summed in rank order, so that
//!   a run on K workers equals the one-worker run within fp32 summation's rounding
//!   (docs/theory.md §6.1: the mean of the shards' sums is the batch's mean).
//!
//! It depends on nothing in the workspace: the class server stands apart from the engine.

pub mod frame;
pub mod reduce;
pub mod shards;
