//! Reduced-precision training (docs/theory.md §7): number formats emulated by rounding fp32
//! values, which tensors a step keeps in which format, and loss scaling. The lab's runs of one
//! network in several formats are `precision_run`'s.

mod delayed;
mod format;
mod policy;
mod scaler;
mod stats;

pub use delayed::{scale_exponent, DelayedScaler, HISTORY, MARGIN, MAX_EXPONENT};
pub use format::{noise, round_scaled_slice, round_slice, Format, Rounding, Spec, ALL};
pub use policy::{
    tensor_bytes, LossScaling, Precision, Preset, TensorBytes, TensorFormats, DYNAMIC_INITIAL,
    DYNAMIC_INTERVAL, PRESETS,
};
pub use scaler::{LossScaler, ScaleEvent};
pub use stats::{
    exponent, exponent_histogram, lost_updates, range_shares, range_shares_by, ExponentHistogram, RangeShares,
};
