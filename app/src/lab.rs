//! The lab's controller: settings and readouts as signals, and the training loop that runs the
//! engine a chunk of steps per animation frame so the page stays responsive.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;

use engine::data::toy::{ToyConfig, ToyKind, EXTENT};
use engine::data::Dataset;
use engine::gpu::GpuContext;
use engine::train::{DataConfig, ModelConfig, TrainConfig, Trainer};

use crate::draw;
use crate::frame::{next_frame, now_ms};

/// Cells per side of the decision-boundary heatmap.
pub const GRID: usize = 48;
/// Time per frame spent training; the rest of the frame is for drawing and input.
const TRAIN_MS_PER_FRAME: f64 = 12.0;

#[derive(Clone, Debug, PartialEq)]
pub enum GpuStatus {
    Detecting,
    Ready(String),
    Unavailable(String),
}

/// Settings a student can change; a change starts a fresh session.
#[derive(Clone, Copy)]
pub struct Settings {
    pub dataset: RwSignal<ToyKind>,
    pub layers: RwSignal<usize>,
    pub width: RwSignal<usize>,
    pub learning_rate: RwSignal<f32>,
}

/// What the page shows.
#[derive(Clone, Copy)]
pub struct Readouts {
    pub gpu: RwSignal<GpuStatus>,
    pub backend: RwSignal<String>,
    pub running: RwSignal<bool>,
    pub step: RwSignal<u64>,
    pub epoch: RwSignal<u64>,
    pub loss: RwSignal<Option<f32>>,
    /// The first step's loss, so the fall is visible at a glance.
    pub first_loss: RwSignal<Option<f32>>,
    pub accuracy: RwSignal<Option<f32>>,
    pub steps_per_second: RwSignal<Option<f64>>,
    pub error: RwSignal<Option<String>>,
}

pub struct Lab {
    pub settings: Settings,
    pub readouts: Readouts,
    pub heatmap: NodeRef<Canvas>,
    pub chart: NodeRef<Canvas>,
    gpu: RefCell<Option<Rc<GpuContext>>>,
    trainer: RefCell<Option<Trainer>>,
    /// Bumped by every reset; a loop or build that sees a newer value drops its work.
    generation: Cell<u64>,
    loop_active: Cell<bool>,
    losses: RefCell<Vec<f32>>,
    steps_per_frame: Cell<usize>,
    grid: Vec<f32>,
}

impl Lab {
    pub fn new() -> Rc<Self> {
        Rc::new(Self {
            settings: Settings {
                dataset: RwSignal::new(ToyKind::Spiral),
                layers: RwSignal::new(2),
                width: RwSignal::new(16),
                learning_rate: RwSignal::new(0.03),
            },
            readouts: Readouts {
                gpu: RwSignal::new(GpuStatus::Detecting),
                backend: RwSignal::new("detecting…".into()),
                running: RwSignal::new(false),
                step: RwSignal::new(0),
                epoch: RwSignal::new(0),
                loss: RwSignal::new(None),
                first_loss: RwSignal::new(None),
                accuracy: RwSignal::new(None),
                steps_per_second: RwSignal::new(None),
                error: RwSignal::new(None),
            },
            heatmap: NodeRef::new(),
            chart: NodeRef::new(),
            gpu: RefCell::new(None),
            trainer: RefCell::new(None),
            generation: Cell::new(0),
            loop_active: Cell::new(false),
            losses: RefCell::new(Vec::new()),
            steps_per_frame: Cell::new(4),
            grid: engine::heatmap_grid(GRID, EXTENT),
        })
    }

    pub fn config(&self) -> TrainConfig {
        let s = &self.settings;
        TrainConfig {
            data: DataConfig::Toy(self.toy()),
            model: ModelConfig::Mlp {
                hidden: vec![s.width.get_untracked(); s.layers.get_untracked()],
                activation: Default::default(),
            },
            learning_rate: s.learning_rate.get_untracked(),
            ..Default::default()
        }
    }

    fn toy(&self) -> ToyConfig {
        ToyConfig {
            kind: self.settings.dataset.get_untracked(),
            ..Default::default()
        }
    }

    fn data(&self) -> Dataset {
        self.toy().generate()
    }

    /// Looks for WebGPU once; without it the lab says so and uses the CPU path.
    pub async fn detect_gpu(self: Rc<Self>) {
        match GpuContext::new().await {
            Ok(ctx) => {
                self.readouts.gpu.set(GpuStatus::Ready(ctx.adapter.label()));
                *self.gpu.borrow_mut() = Some(Rc::new(ctx));
            }
            Err(e) => {
                crate::frame::log_warning(&format!("WebGPU unavailable: {e}"));
                self.readouts.gpu.set(GpuStatus::Unavailable(e));
            }
        }
        self.reset();
    }

    pub fn train(self: &Rc<Self>) {
        if self.readouts.gpu.get_untracked() == GpuStatus::Detecting {
            return;
        }
        self.readouts.error.set(None);
        self.readouts.running.set(true);
        if !self.loop_active.get() {
            leptos::task::spawn_local(self.clone().run());
        }
    }

    pub fn pause(&self) {
        self.readouts.running.set(false);
    }

    /// Stops training, forgets the session and shows the fresh model's boundary.
    pub fn reset(self: &Rc<Self>) {
        self.readouts.running.set(false);
        self.generation.set(self.generation.get() + 1);
        *self.trainer.borrow_mut() = None;
        self.losses.borrow_mut().clear();
        let r = &self.readouts;
        r.step.set(0);
        r.epoch.set(0);
        r.loss.set(None);
        r.first_loss.set(None);
        r.accuracy.set(None);
        r.steps_per_second.set(None);
        self.redraw(None);
        let lab = self.clone();
        leptos::task::spawn_local(async move {
            let generation = lab.generation.get();
            if lab.ensure_trainer(generation).await {
                lab.show_prediction(generation).await;
            }
        });
    }

    fn redraw(&self, probs: Option<&[f32]>) {
        if let Some(canvas) = self.heatmap.get_untracked() {
            draw::heatmap::draw(&canvas, GRID, 2, probs, &self.data(), EXTENT);
        }
        if let Some(canvas) = self.chart.get_untracked() {
            draw::loss_chart::draw(canvas, &self.losses.borrow());
        }
    }

    /// Builds the session for the current settings if there is none. False when the settings
    /// changed meanwhile or the build failed (the error is shown).
    async fn ensure_trainer(&self, generation: u64) -> bool {
        if self.trainer.borrow().is_some() {
            return true;
        }
        let gpu = self.gpu.borrow().clone();
        match Trainer::new(self.config(), gpu, GRID * GRID).await {
            Ok(t) if self.generation.get() == generation => {
                self.readouts.backend.set(t.backend_name());
                *self.trainer.borrow_mut() = Some(t);
                true
            }
            Ok(_) => false,
            Err(e) => {
                self.readouts.error.set(Some(e));
                self.readouts.running.set(false);
                false
            }
        }
    }

    async fn show_prediction(&self, generation: u64) {
        let Some(mut trainer) = self.trainer.borrow_mut().take() else {
            return;
        };
        let probs = trainer.predict(&self.grid).await;
        if self.generation.get() != generation {
            return;
        }
        *self.trainer.borrow_mut() = Some(trainer);
        match probs {
            Ok(p) => self.redraw(Some(&p)),
            Err(e) => self.readouts.error.set(Some(e)),
        }
    }

    /// The training loop: a chunk of steps, then draw, then yield until the next frame.
    async fn run(self: Rc<Self>) {
        self.loop_active.set(true);
        while self.readouts.running.get_untracked() {
            let generation = self.generation.get();
            if !self.ensure_trainer(generation).await {
                next_frame().await;
                continue;
            }
            // Another task (a prediction after reset) may hold the session for a moment.
            let Some(mut trainer) = self.trainer.borrow_mut().take() else {
                next_frame().await;
                continue;
            };
            let steps = self.steps_per_frame.get();
            let started = now_ms();
            let result = trainer.train(steps).await;
            let elapsed = (now_ms() - started).max(0.1);
            if self.generation.get() != generation {
                continue; // reset while the chunk ran: drop this session (reset stopped the loop)
            }
            let r = self.readouts;
            match result {
                Ok(metrics) => {
                    // Aim the next chunk at the frame's training budget.
                    let next = (steps as f64 * TRAIN_MS_PER_FRAME / elapsed).clamp(1.0, 200.0);
                    self.steps_per_frame
                        .set(((steps as f64 + next) / 2.0).ceil() as usize);
                    let last = metrics.last().copied();
                    if r.first_loss.get_untracked().is_none() {
                        r.first_loss.set(metrics.first().map(|m| m.loss));
                    }
                    self.losses.borrow_mut().extend(metrics.iter().map(|m| m.loss));
                    if let Some(m) = last {
                        r.step.set(m.step);
                        r.loss.set(Some(m.loss));
                        r.accuracy.set(Some(m.accuracy));
                    }
                    r.epoch.set(trainer.epoch());
                    r.steps_per_second.set(Some(steps as f64 * 1000.0 / elapsed));
                    *self.trainer.borrow_mut() = Some(trainer);
                    self.show_prediction(generation).await;
                }
                Err(e) => {
                    r.step.set(trainer.step());
                    r.error.set(Some(e.to_string()));
                    r.running.set(false);
                    *self.trainer.borrow_mut() = Some(trainer);
                }
            }
            next_frame().await;
        }
        self.loop_active.set(false);
    }
}
