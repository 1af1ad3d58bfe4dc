//! The class-training protocol's tests, one binary: the shards and frames by hand, the reduction's
//! refusals and order, and a run on K workers against the one-worker run on the engine's trainer.

mod equality;
mod frames;
mod reduction;
