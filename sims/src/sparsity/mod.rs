//! The sparsity lab's studies (docs/theory.md §10): pruning masks by magnitude, globally or per
//! layer; the lottery ticket experiment with its controls; and what a pruned network costs in
//! FLOPs and bytes, unstructured (a sparse format with its indices) or structured (a smaller
//! dense network).

pub mod cost;
pub mod dynamic;
pub mod lottery;
pub mod masks;
pub mod record;
pub mod record_check;
pub mod structured;
