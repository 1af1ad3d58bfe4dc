//! When the model does not fit one device (docs/theory.md §8): pipeline schedules, tensor-parallel
//! dense layers executed shard by shard, and the memory each way of splitting leaves on a device.

pub mod layout;
pub mod layout_run;
pub mod memory;
pub mod pipeline;
pub mod profile;
pub mod record;
pub mod record_check;
pub mod remat;
pub mod tensor;
pub mod tensor_block;
pub mod zero;
pub mod zero_run;

#[cfg(test)]
mod tests;
