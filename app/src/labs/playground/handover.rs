//! Starting on the CPU path while WebGPU gets ready. Building a GPU trainer waits for its
//! pipelines to compile (seconds on an emulated GPU, where the compiler can hold the page's
//! thread), and "auto" also times a few steps on each backend; neither should hold back the
//! first trained step. So the session builds the CPU trainer at once and trains its first chunk
//! there; then a background job builds the GPU trainer (and for "auto" measures), and when it
//! is done the session carries the run over to it: weights, step, batch order and the
//! optimizer's state, as a change of training settings does.

use leptos::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;

use engine::data::Dataset;
use engine::gpu::GpuContext;
use engine::train::{TrainConfig, Trainer};

use super::command::Command;
use super::gpu_job::{GpuJob, Goal, PendingJob, Ready};
use super::session::Session;
use crate::frame::now_ms;

/// Steps per second of `config` on `gpu` (None: the CPU), after a warm-up.
pub async fn rate(config: &TrainConfig, train: &Dataset, gpu: Option<Rc<GpuContext>>) -> Option<f64> {
    let mut t = Trainer::with_data(config.clone(), train.clone(), gpu, 1)
        .await
        .ok()?;
    t.train(3).await.ok()?; // warm-up: pipelines and buffers
    let t0 = now_ms();
    t.train(20).await.ok()?;
    Some(20.0 * 1000.0 / (now_ms() - t0).max(0.1))
}

impl Session {
    /// Sets the job up for the current settings, to start after the first chunk on the CPU.
    pub fn plan_gpu_job(&mut self, goal: Goal, job: (TrainConfig, Dataset, usize), gpu: Rc<GpuContext>) {
        self.gpu_job = None;
        self.pending_gpu = Some(PendingJob { goal, job, gpu });
    }

    /// Starts the planned job, if there is one; the session hears of its end as
    /// `Command::GpuReady`.
    pub fn launch_gpu_job(&mut self) {
        if let Some(PendingJob { goal, job, gpu }) = self.pending_gpu.take() {
            self.start_gpu_job(goal, job, gpu);
        }
    }

    fn start_gpu_job(
        &mut self,
        goal: Goal,
        (config, train, rows): (TrainConfig, Dataset, usize),
        gpu: Rc<GpuContext>,
    ) {
        let result = Rc::new(RefCell::new(None));
        self.gpu_job = Some(GpuJob {
            generation: self.generation,
            result: result.clone(),
        });
        let lab = Rc::downgrade(&self.lab);
        leptos::task::spawn_local(async move {
            let (use_gpu, reason, auto) = match goal {
                Goal::Build => (true, "chosen: WebGPU".to_string(), None),
                Goal::Measure { key } => {
                    let on_gpu = rate(&config, &train, Some(gpu.clone())).await.unwrap_or(0.0);
                    let on_cpu = rate(&config, &train, None).await.unwrap_or(0.0);
                    let reason = format!(
                        "auto: measured {on_cpu:.0} steps/s on the CPU, {on_gpu:.0} on WebGPU for this model"
                    );
                    let use_gpu = on_gpu > on_cpu;
                    (use_gpu, reason.clone(), Some((key, use_gpu, reason)))
                }
            };
            let trainer = if use_gpu {
                match Trainer::with_data(config, train, Some(gpu), rows).await {
                    Ok(t) => Some(t),
                    Err(e) => {
                        crate::frame::log_warning(&format!("WebGPU trainer not built: {e}"));
                        None
                    }
                }
            } else {
                None
            };
            *result.borrow_mut() = Some(Ready {
                trainer,
                reason,
                auto,
            });
            if let Some(lab) = lab.upgrade() {
                lab.notify(Command::GpuReady);
            }
        });
    }

    /// Moves the run to the finished job's GPU trainer, if it is for the current settings.
    pub async fn adopt_gpu(&mut self) {
        let Some(job) = &self.gpu_job else { return };
        let Some(ready) = job.result.borrow_mut().take() else {
            return;
        };
        let current = job.generation == self.generation;
        self.gpu_job = None;
        if !current {
            return;
        }
        if ready.auto.is_some() {
            self.auto_choice = ready.auto;
        }
        let r = self.lab.readouts;
        let Some(mut gpu) = ready.trainer else {
            r.backend_reason.set(Some(ready.reason));
            return;
        };
        if let Some(old) = &self.trainer {
            if let Err(e) = gpu.carry_on_from(old).await {
                crate::frame::log_warning(&format!("the run stays on the CPU: {e}"));
                return;
            }
        }
        r.backend_reason.set(Some(ready.reason));
        r.backend.set(gpu.backend_name());
        self.trainer = Some(gpu);
    }
}
