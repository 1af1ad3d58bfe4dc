//! Compiling a model's GPU pipelines before its trainer exists: a page can do it while the
//! student reads the settings, so the first trained step does not wait for the compiler.

use super::{DataConfig, TrainConfig, Trainer};
use crate::error::Error;
use crate::gpu::GpuContext;
use crate::plan::{Loss, Plan, PlanConfig};

impl Trainer {
    /// The product kernels' tile shape on a GPU (`autotune::autotune`); None on the CPU path.
    pub fn tiles(&self) -> Option<crate::tiles::TilePlan> {
        self.backend.tiles()
    }

    /// Compiles on `ctx` the pipelines a trainer for `config` (on data of `classes` classes)
    /// would run for training and prediction, and returns how many kernels they serve. No
    /// buffers are made: the pipelines wait in the context's cache for the trainer.
    pub fn warm_pipelines(ctx: &GpuContext, config: &TrainConfig, classes: usize) -> Result<usize, Error> {
        let spec = config.spec(classes);
        let compiled = spec.compile().map_err(Error::from)?;
        let plan = Plan::new(&PlanConfig {
            data_packed: matches!(config.data, DataConfig::Images(_)) && config.features.is_empty(),
            regression: config.loss == Loss::Mse && classes == 1,
            ..config.plan_config(&compiled)
        });
        let mut plan = plan;
        let mut kernels: Vec<_> = plan.fused.iter_mut().chain(&mut plan.predict).collect();
        for k in kernels.iter_mut() {
            // The pipelines these kernels will run on this device (its tiles among them).
            k.fit_device(ctx.fit());
            ctx.kernel_pipeline(k.as_ref());
        }
        Ok(kernels.len())
    }
}
