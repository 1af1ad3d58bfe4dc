//! Reduced-precision training (docs/theory.md §7): number formats emulated by rounding fp32
//! values, which tensors a step keeps in which format, and loss scaling.

mod format;

pub use format::{noise, round_slice, Format, Rounding, Spec, ALL};
