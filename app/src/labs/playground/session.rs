//! The one task that owns the playground's trainer. The page sends it commands (train, pause,
//! step, reset, export, lose the device); it runs a chunk of steps per animation frame while
//! training and takes the next command between chunks, so every command is answered — done,
//! or refused with the reason in `Readouts::refusal` — and nothing else ever holds the trainer.

use leptos::prelude::*;
use std::rc::Rc;

use engine::gpu::GpuContext;
use engine::train::StepRunner;
use engine::train::Trainer;

use super::command::Command;
use super::gpu_job::{GpuJob, PendingJob};
use super::lab::{Lab, Speed};
use crate::browser;
use crate::frame::{next_frame, now_ms};
use crate::session::Inbox;

/// What the owner holds.
pub struct Session {
    pub lab: Rc<Lab>,
    pub trainer: Option<Trainer>,
    pub gpu: Option<Rc<GpuContext>>,
    /// The auto backend's last measurement: (model key, use WebGPU, reason).
    pub auto_choice: Option<(String, bool, String)>,
    /// The job preparing WebGPU while the run starts on the CPU (`handover`).
    pub gpu_job: Option<GpuJob>,
    /// Counts trainers built from new settings: a job for older ones is dropped.
    pub generation: u64,
    /// The job to start after the run's first chunk on the CPU.
    pub pending_gpu: Option<PendingJob>,
    /// The last weights read back, with their step: what a lost GPU device resumes from.
    pub checkpoint: Option<(u64, Vec<f32>)>,
    /// Why no trainer could be built for the settings (None: it was, or is being built).
    pub broken: Option<String>,
    /// Chunks since the diagram was last rebuilt (it costs a readback per layer).
    pub since_diagram: u32,
    /// How the CPU path spreads the current trainer's steps over cores, for the generation it
    /// was chosen for.
    cores: Option<(u64, crate::cpu_team::Cores)>,
    steps_per_frame: usize,
    running: bool,
    rate: crate::frame::RateMeter,
}

/// The session task: detects WebGPU, builds the first model, then serves commands until the page
/// goes away.
pub async fn own(lab: Rc<Lab>, mut inbox: Inbox<Command>) {
    let mut s = Session {
        lab,
        trainer: None,
        gpu: None,
        auto_choice: None,
        gpu_job: None,
        generation: 0,
        pending_gpu: None,
        checkpoint: None,
        broken: None,
        since_diagram: u32::MAX,
        cores: None,
        steps_per_frame: 4,
        running: false,
        rate: Default::default(),
    };
    s.detect_gpu().await;
    s.reset(&mut inbox).await;
    loop {
        let command = if s.running {
            inbox.ready()
        } else {
            match inbox.next().await {
                Some(c) => Some(c),
                None => return,
            }
        };
        match command {
            Some(c) => s.handle(c, &mut inbox).await,
            None => {
                let steps = match s.lab.speed() {
                    Speed::Steps(n) => n,
                    Speed::Max => s.steps_per_frame,
                };
                if !s.chunk(steps).await {
                    s.set_running(false);
                }
                s.launch_gpu_job();
                next_frame().await;
            }
        }
    }
}

impl Session {
    fn set_running(&mut self, on: bool) {
        self.running = on;
        self.rate.clear();
        self.lab.readouts.running.set(on);
    }

    fn refuse(&self, why: String) {
        self.lab.readouts.refusal.set(Some(why));
    }

    async fn handle(&mut self, command: Command, inbox: &mut Inbox<Command>) {
        match command {
            Command::Train => match &self.broken {
                Some(why) => self.refuse(format!("Cannot train these settings: {why}")),
                None => {
                    self.lab.readouts.error.set(None);
                    self.set_running(true);
                }
            },
            Command::Pause => self.set_running(false),
            Command::Step if self.broken.is_some() => {
                let why = self.broken.clone().unwrap_or_default();
                self.refuse(format!("Cannot train these settings: {why}"))
            }
            Command::Step if self.running => {
                self.refuse("Training is running: pause it to step one at a time.".into())
            }
            Command::Step => {
                self.chunk(1).await;
            }
            Command::Reset => self.reset(inbox).await,
            Command::Retune => self.retune(inbox).await,
            Command::ExportWeights => self.export_weights().await,
            Command::LoseDevice => match &self.gpu {
                Some(ctx) => ctx.device.destroy(),
                None => self.refuse("There is no GPU device to lose: the lab runs on the CPU.".into()),
            },
            Command::GpuReady => self.adopt_gpu().await,
        }
    }

    /// Stops, forgets the model, and shows a fresh one's boundary — unless a newer reset is
    /// already queued (a slider dragged), which will do it.
    async fn reset(&mut self, inbox: &mut Inbox<Command>) {
        self.set_running(false);
        self.trainer = None;
        self.generation += 1;
        self.pending_gpu = None;
        self.checkpoint = None;
        self.broken = None;
        self.since_diagram = u32::MAX;
        self.lab.clear_views();
        self.lab.readouts.applied.set(None);
        if inbox.has(|c| *c == Command::Reset) {
            return;
        }
        if self.ensure_trainer().await {
            self.show_prediction().await;
        }
    }

    /// Rebuilds the trainer for the new training settings and carries the run over: weights,
    /// step, batch order, and the optimizer's averages when its kind is unchanged. A model that
    /// was never built (or could not be) is simply built afresh.
    async fn retune(&mut self, inbox: &mut Inbox<Command>) {
        if inbox.has(|c| matches!(c, Command::Reset | Command::Retune)) {
            return; // a newer change follows (a slider dragged): it will do this
        }
        let Some(old) = self.trainer.take() else {
            return self.reset(inbox).await;
        };
        self.generation += 1;
        self.pending_gpu = None;
        self.broken = None;
        self.since_diagram = u32::MAX;
        let step = old.step();
        let r = self.lab.readouts;
        if !self.ensure_trainer().await {
            // The run is kept, paused, until the settings are fixed (the error says what).
            self.set_running(false);
            self.trainer = Some(old);
            r.applied.set(Some(format!(
                "not applied at step {step}: the run is kept, paused"
            )));
            return;
        }
        let new = self.trainer.as_mut().expect("just ensured");
        r.applied.set(Some(match new.carry_on_from(&old).await {
            Ok(true) => format!("applied to the running model at step {step}"),
            Ok(false) => format!(
                "applied to the running model at step {step}; the new optimizer's running averages start from zero"
            ),
            Err(e) => {
                self.trainer = Some(old);
                format!("not applied ({e}): the model kept training as before")
            }
        }));
        self.show_prediction().await;
    }

    /// Trains `steps` steps and updates the readouts; false when training must stop.
    async fn chunk(&mut self, steps: usize) -> bool {
        if !self.ensure_trainer().await {
            return false;
        }
        let trainer = self.trainer.as_mut().expect("just ensured");
        if let Some(why) = trainer.gpu_lost() {
            return self.recover_device(why).await;
        }
        let started = now_ms();
        // A run about to move to WebGPU trains its first chunks alone rather than start helpers.
        let result = if trainer.is_gpu() || self.gpu_job.is_some() || self.pending_gpu.is_some() {
            if self.lab.readouts.cores.with_untracked(|n| !n.is_empty()) {
                self.lab.readouts.cores.set(String::new());
            }
            trainer.train(steps).await
        } else {
            if self.cores.as_ref().map(|c| c.0) != Some(self.generation) {
                self.cores = Some((self.generation, crate::cpu_team::Cores::for_run(trainer).await));
            }
            let cores = &mut self.cores.as_mut().expect("just chosen").1;
            let result = cores.train(trainer, steps).await;
            let shown = self.lab.readouts.cores;
            if shown.with_untracked(|n| *n != cores.note) {
                shown.set(cores.note.clone());
            }
            result
        };
        let elapsed = (now_ms() - started).max(0.1);
        let r = self.lab.readouts;
        match result {
            Ok(metrics) => {
                if r.first_loss.get_untracked().is_none() {
                    r.first_loss.set(metrics.first().map(|m| m.loss));
                }
                {
                    let mut h = self.lab.history.borrow_mut();
                    for m in &metrics {
                        h.train.push(m.step, m.loss);
                    }
                }
                if let Some(m) = metrics.last() {
                    r.step.set(m.step);
                    r.loss.set(Some(m.loss));
                    r.accuracy.set(Some(m.accuracy));
                }
                r.epoch.set(trainer.epoch());
                if let Some(rate) = self.rate.mark(trainer.step()) {
                    r.steps_per_second.set(Some(rate));
                }
                self.adapt_chunk(steps, elapsed);
                self.show_prediction().await;
                true
            }
            Err(e) => {
                if let Some(ctx) = self.gpu.clone().filter(|_| trainer.is_gpu()) {
                    if let Some(why) = crate::gpu::loss_of(&ctx).await {
                        return self.recover_device(why).await;
                    }
                }
                r.step.set(self.trainer.as_ref().map_or(0, Trainer::step));
                r.error.set(Some(e.to_string()));
                false
            }
        }
    }

    /// Aims the next chunk at the frame's training budget (12 ms of a 16 ms frame).
    fn adapt_chunk(&mut self, steps: usize, elapsed: f64) {
        let next = (steps as f64 * 12.0 / elapsed).clamp(1.0, 200.0);
        self.steps_per_frame = ((steps as f64 + next) / 2.0).ceil() as usize;
    }

    /// Downloads the trained weights with the config and the lab state as JSON.
    async fn export_weights(&mut self) {
        let Some(trainer) = &self.trainer else {
            let why = self
                .broken
                .clone()
                .unwrap_or_else(|| "it is still being built".into());
            return self.refuse(format!("There is no model to export: {why}."));
        };
        match engine::export::export_model(trainer).await {
            Ok(m) => {
                let state = self.lab.state.get_untracked();
                let json = serde_json::json!({ "state": state, "model": m });
                browser::download("playground-model.json", "application/json", &json.to_string());
            }
            Err(e) => self.lab.readouts.error.set(Some(e.to_string())),
        }
    }
}
