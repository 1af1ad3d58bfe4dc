//! Where the session trains: WebGPU when there is one (or the student's choice), the auto
//! choice's measurement, building the trainer, and carrying on after a lost GPU device.

use leptos::prelude::*;
use std::rc::Rc;

use engine::data::Dataset;
use engine::gpu::GpuContext;
use engine::train::{TrainConfig, Trainer};
use lab_state::playground::BackendChoice;

use super::gpu_job::Goal;
use super::lab::GpuStatus;
use super::command::Command;
use super::session::Session;
use super::GRID;

impl Session {
    /// Looks for WebGPU once; without it the lab says so and uses the CPU path.
    pub async fn detect_gpu(&mut self) {
        match crate::gpu::context().await {
            Ok(ctx) => {
                self.lab.readouts.gpu.set(GpuStatus::Ready(ctx.adapter.label()));
                // Compile this model's pipelines now, while the page is read, not after Train.
                let classes = self.lab.data.borrow().0.classes;
                if let Err(e) = Trainer::warm_pipelines(&ctx, &self.lab.config(), classes) {
                    crate::frame::log_warning(&format!("pipelines not compiled ahead: {e}"));
                }
                self.gpu = Some(ctx);
            }
            Err(e) => {
                crate::frame::log_warning(&format!("WebGPU unavailable: {e}"));
                self.lab.readouts.gpu.set(GpuStatus::Unavailable(e.to_string()));
            }
        }
        self.install_device_loss_hook();
    }

    /// `window.__labLoseGpu()` destroys the current GPU device, as a driver reset would: how
    /// the end-to-end tests (and a curious teacher) check that the lab recovers.
    fn install_device_loss_hook(&self) {
        use wasm_bindgen::prelude::*;
        let lab = Rc::downgrade(&self.lab);
        let hook = Closure::<dyn Fn()>::new(move || {
            if let Some(lab) = lab.upgrade() {
                lab.send(Command::LoseDevice);
            }
        });
        if let Some(w) = web_sys::window() {
            let _ = js_sys::Reflect::set(&w, &"__labLoseGpu".into(), hook.as_ref());
        }
        hook.forget();
    }

    /// The backend for this model: the student's choice, or for "auto" the faster of the two,
    /// measured on a few steps of this very model (small networks usually train faster on the
    /// CPU: a GPU step has a fixed cost that only large layers amortize). Where WebGPU needs
    /// building or measuring first, the run starts on the CPU and, after its first chunk, a
    /// background job prepares WebGPU (`handover`). Returns the GPU to build on now (None: the
    /// CPU path) and why.
    fn pick_gpu(
        &mut self,
        config: &TrainConfig,
        train: &Dataset,
        rows: usize,
    ) -> (Option<Rc<GpuContext>>, String) {
        let Some(gpu) = self.gpu.clone() else {
            return (None, "WebGPU is unavailable: CPU".into());
        };
        let job = (config.clone(), train.clone(), rows);
        match self.lab.state.get_untracked().backend {
            BackendChoice::Cpu => (None, "chosen: CPU".into()),
            BackendChoice::Webgpu => {
                self.plan_gpu_job(Goal::Build, job, gpu);
                (
                    None,
                    "chosen: WebGPU — the first steps run on the CPU while WebGPU compiles".into(),
                )
            }
            BackendChoice::Auto => {
                let key = format!("{:?}|{:?}|{}", config.model, config.features, config.batch);
                if let Some((k, use_gpu, reason)) = self.auto_choice.clone() {
                    if k == key {
                        return (use_gpu.then_some(gpu), reason);
                    }
                }
                self.plan_gpu_job(Goal::Measure { key }, job, gpu);
                (None, "auto: starting on the CPU while WebGPU is measured".into())
            }
        }
    }

    /// Builds the trainer for the current settings if there is none; false when it cannot be
    /// built (the error is shown and kept as the reason to refuse training).
    pub async fn ensure_trainer(&mut self) -> bool {
        if self.trainer.is_some() {
            return true;
        }
        if self.broken.is_some() {
            return false;
        }
        let config = self.lab.config();
        let (train, test_rows) = {
            let data = self.lab.data.borrow();
            (data.0.clone(), data.1.as_ref().map_or(0, |t| t.len()))
        };
        // The heatmap's grid and the test points are predicted together (see `show_prediction`).
        let rows = GRID * GRID + test_rows;
        let (gpu, reason) = self.pick_gpu(&config, &train, rows);
        let r = self.lab.readouts;
        r.backend_reason.set(Some(reason));
        match Trainer::with_data(config, train, gpu, rows).await {
            Ok(t) => {
                r.backend.set(t.backend_name());
                self.trainer = Some(t);
                true
            }
            Err(e) => {
                r.error.set(Some(e.to_string()));
                self.broken = Some(e.to_string());
                false
            }
        }
    }

    /// After the GPU device was lost: a new device (or the CPU path when none can be had), the
    /// session rebuilt there from the last weights read back, and a banner saying so.
    pub async fn recover_device(&mut self, why: String) -> bool {
        crate::frame::log_warning(&format!("GPU device lost: {why}"));
        let checkpoint = self.checkpoint.take();
        self.trainer = None;
        self.auto_choice = None;
        self.generation += 1;
        self.pending_gpu = None;
        let r = self.lab.readouts;
        let device = match crate::gpu::context().await {
            Ok(ctx) => {
                r.gpu.set(GpuStatus::Ready(ctx.adapter.label()));
                self.gpu = Some(ctx);
                "made a new one"
            }
            Err(e) => {
                r.gpu.set(GpuStatus::Unavailable(e.to_string()));
                self.gpu = None;
                "could not get another, so training moves to the CPU path"
            }
        };
        if !self.ensure_trainer().await {
            return false;
        }
        let restored = match (checkpoint, self.trainer.as_mut()) {
            (Some((step, params)), Some(t)) => t.set_params(&params).is_ok().then(|| {
                t.set_step(step);
                step
            }),
            _ => None,
        };
        let resumed = match restored {
            Some(step) => {
                {
                    let mut h = self.lab.history.borrow_mut();
                    h.train.truncate_after(step);
                    h.test.truncate_after(step);
                }
                r.step.set(step);
                format!("carries on from step {step} (the optimizer's running averages start afresh)")
            }
            None => "starts again from fresh weights (none had been saved yet)".to_string(),
        };
        r.error.set(Some(format!(
            "The GPU device was lost ({why}). The lab {device} and {resumed}."
        )));
        true
    }
}
