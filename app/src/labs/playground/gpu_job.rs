//! The background job that prepares WebGPU while a run starts on the CPU path (`handover` runs
//! it; the session holds it): what it is for, and what it leaves.

use std::cell::RefCell;
use std::rc::Rc;

use engine::data::Dataset;
use engine::gpu::GpuContext;
use engine::train::{TrainConfig, Trainer};

/// What a finished job leaves: the GPU trainer to move to (None: stay on the CPU), the reason
/// to show, and for "auto" its measurement to remember.
pub struct Ready {
    pub(super) trainer: Option<Trainer>,
    pub(super) reason: String,
    pub(super) auto: Option<(String, bool, String)>,
}

/// A job in flight, for the settings of one generation of the session's trainer.
pub struct GpuJob {
    pub(super) generation: u64,
    pub(super) result: Rc<RefCell<Option<Ready>>>,
}

/// A job waiting for the run's first chunk.
pub struct PendingJob {
    pub(super) goal: Goal,
    pub(super) job: (TrainConfig, Dataset, usize),
    pub(super) gpu: Rc<GpuContext>,
}

/// What the job does.
pub enum Goal {
    /// WebGPU was chosen: build there.
    Build,
    /// "auto": time both backends on this model (under `key`), build on WebGPU if it wins.
    Measure { key: String },
}
