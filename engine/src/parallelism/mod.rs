//! When the model does not fit one device (docs/theory.md §9): pipeline schedules and the
//! memory each way of splitting the work leaves on a device.

pub mod pipeline;
pub mod zero;

#[cfg(test)]
mod tests;
