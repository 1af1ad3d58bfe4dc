//! The playground's controller: the state (from the URL, written back to it), the data, and the
//! training loop that runs the engine a chunk of steps per animation frame so the page stays
//! responsive.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;

use engine::data::toy::EXTENT;
use engine::data::Dataset;
use engine::gpu::GpuContext;
use engine::model::Layer;
use engine::train::{ModelConfig, TrainConfig, Trainer};
use lab_state::playground::{BackendChoice, Playground};

use crate::browser;
use crate::draw;
use crate::frame::{next_frame, now_ms};

/// Cells per side of the decision-boundary heatmap.
pub const GRID: usize = 48;

#[derive(Clone, Debug, PartialEq)]
pub enum GpuStatus {
    Detecting,
    Ready(String),
    Unavailable(String),
}

/// How fast training runs: steps per animation frame, or as many as fit a frame's budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Speed {
    Steps(usize),
    Max,
}

/// What the page shows.
#[derive(Clone, Copy)]
pub struct Readouts {
    pub gpu: RwSignal<GpuStatus>,
    pub backend: RwSignal<String>,
    /// Why this backend: the auto choice's measurement.
    pub backend_reason: RwSignal<Option<String>>,
    pub running: RwSignal<bool>,
    pub step: RwSignal<u64>,
    pub epoch: RwSignal<u64>,
    pub loss: RwSignal<Option<f32>>,
    /// The first step's loss, so the fall is visible at a glance.
    pub first_loss: RwSignal<Option<f32>>,
    pub accuracy: RwSignal<Option<f32>>,
    pub test_loss: RwSignal<Option<f32>>,
    pub test_accuracy: RwSignal<Option<f32>>,
    pub steps_per_second: RwSignal<Option<f64>>,
    pub error: RwSignal<Option<String>>,
    /// The data is the user's own (uploaded or clicked), not the generator's.
    pub custom_data: RwSignal<bool>,
}

#[derive(Default)]
struct History {
    train: Vec<f32>,
    /// (step, loss) on the test set, once per frame.
    test: Vec<(usize, f32)>,
}

pub struct Lab {
    pub state: RwSignal<Playground>,
    pub notices: RwSignal<Vec<String>>,
    pub readouts: Readouts,
    pub speed: RwSignal<Speed>,
    /// The class a click on the heatmap adds.
    pub add_class: RwSignal<u32>,
    pub heatmap: NodeRef<Canvas>,
    pub chart: NodeRef<Canvas>,
    pub network: NodeRef<Canvas>,
    diagram: RefCell<Option<draw::network::Diagram>>,
    hovered: Cell<Option<(usize, usize)>>,
    /// Chunks since the diagram was last rebuilt (it costs a readback per layer).
    since_diagram: Cell<u32>,
    gpu: RefCell<Option<Rc<GpuContext>>>,
    trainer: RefCell<Option<Trainer>>,
    /// Bumped by every reset; a loop or build that sees a newer value drops its work.
    generation: Cell<u64>,
    loop_active: Cell<bool>,
    history: RefCell<History>,
    steps_per_frame: Cell<usize>,
    grid: Vec<f32>,
    /// The user's own points, when there are any.
    custom: RefCell<Option<Dataset>>,
    /// Train and test data of the session.
    data: RefCell<(Dataset, Option<Dataset>)>,
    probs: RefCell<Option<Vec<f32>>>,
    /// The auto backend's last measurement: (model key, use WebGPU, reason).
    auto_choice: RefCell<Option<(String, bool, String)>>,
    /// The last weights read back, with their step: what a lost GPU device resumes from.
    checkpoint: RefCell<Option<(u64, Vec<f32>)>>,
}

impl Lab {
    pub fn new() -> Rc<Self> {
        let (state, notices) = Playground::from_query(&browser::query());
        let data = state.toy().generate_split();
        let lab = Rc::new(Self {
            state: RwSignal::new(state),
            notices: RwSignal::new(notices),
            readouts: Readouts {
                gpu: RwSignal::new(GpuStatus::Detecting),
                backend: RwSignal::new("detecting…".into()),
                backend_reason: RwSignal::new(None),
                running: RwSignal::new(false),
                step: RwSignal::new(0),
                epoch: RwSignal::new(0),
                loss: RwSignal::new(None),
                first_loss: RwSignal::new(None),
                accuracy: RwSignal::new(None),
                test_loss: RwSignal::new(None),
                test_accuracy: RwSignal::new(None),
                steps_per_second: RwSignal::new(None),
                error: RwSignal::new(None),
                custom_data: RwSignal::new(false),
            },
            speed: RwSignal::new(Speed::Max),
            add_class: RwSignal::new(0),
            heatmap: NodeRef::new(),
            chart: NodeRef::new(),
            network: NodeRef::new(),
            diagram: RefCell::new(None),
            hovered: Cell::new(None),
            since_diagram: Cell::new(0),
            gpu: RefCell::new(None),
            trainer: RefCell::new(None),
            generation: Cell::new(0),
            loop_active: Cell::new(false),
            history: RefCell::new(History::default()),
            steps_per_frame: Cell::new(4),
            grid: engine::heatmap_grid(GRID, EXTENT),
            custom: RefCell::new(None),
            data: RefCell::new(data),
            probs: RefCell::new(None),
            auto_choice: RefCell::new(None),
            checkpoint: RefCell::new(None),
        });
        lab.provide_tables();
        lab
    }

    /// Applies a change to the state: the URL follows, and a fresh model starts (the data is
    /// regenerated when `data_changed`).
    pub fn update(self: &Rc<Self>, change: impl FnOnce(&mut Playground)) {
        let mut s = self.state.get_untracked();
        change(&mut s);
        // Values from the controls pass through the same checks as the URL's.
        let (checked, notices) = Playground::from_query(&s.to_query());
        if !notices.is_empty() {
            self.notices.set(notices);
        }
        browser::set_query(&checked.to_query());
        self.state.set(checked);
        self.refresh_data();
        self.reset();
    }

    /// Regenerates the data from the state (or re-splits the user's points).
    fn refresh_data(&self) {
        let s = self.state.get_untracked();
        let data = match self.custom.borrow().as_ref() {
            Some(points) if s.test_ratio > 0.0 && points.len() >= 4 => {
                let (train, test) = points.split(s.test_ratio, s.seed);
                (train, Some(test))
            }
            Some(points) => (points.clone(), None),
            None => s.toy().generate_split(),
        };
        *self.data.borrow_mut() = data;
    }

    /// A new seed for the generator.
    pub fn regenerate(self: &Rc<Self>) {
        self.update(|s| s.seed = (s.seed % 1_000_000) + 1);
    }

    /// Uses the user's points (a CSV) instead of the generator's; a bad file changes nothing.
    pub fn use_points(self: &Rc<Self>, name: &str, text: &str) {
        match engine::data::csv::parse_points(text) {
            Ok(points) => {
                *self.custom.borrow_mut() = Some(points);
                self.readouts.custom_data.set(true);
                self.readouts.error.set(None);
                self.refresh_data();
                self.reset();
            }
            Err(e) => self
                .readouts
                .error
                .set(Some(format!("{name}: {e}. The data you had is kept."))),
        }
    }

    /// Adds a point of the selected class where the student clicked ([-1, 1]² coordinates).
    pub fn add_point(self: &Rc<Self>, x: f32, y: f32) {
        if self.state.get_untracked().dataset.is_regression() {
            return;
        }
        let mut custom = self.custom.borrow_mut();
        let points = custom.get_or_insert_with(|| self.data.borrow().0.clone());
        let class = self
            .add_class
            .get_untracked()
            .min(engine::data::csv::MAX_CLASSES as u32 - 1);
        points.x.extend([x, y]);
        points.y.push(class);
        points.classes = points.classes.max(class as usize + 1);
        drop(custom);
        self.readouts.custom_data.set(true);
        self.refresh_data();
        self.reset();
    }

    /// Back to the generated data.
    pub fn forget_points(self: &Rc<Self>) {
        *self.custom.borrow_mut() = None;
        self.readouts.custom_data.set(false);
        self.refresh_data();
        self.reset();
    }

    pub fn classes(&self) -> usize {
        self.data.borrow().0.classes
    }

    fn config(&self) -> TrainConfig {
        let mut config = self.state.get_untracked().to_config();
        // The user's points may have more classes than the generator's setting.
        let classes = self.classes();
        if let ModelConfig::Layers { layers } = &mut config.model {
            if let Some(Layer::Dense { units }) = layers.last_mut() {
                *units = (*units).max(classes);
            }
        }
        config
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
        self.install_device_loss_hook();
        self.reset();
    }

    /// `window.__labLoseGpu()` destroys the current GPU device, as a driver reset would: how
    /// the end-to-end tests (and a curious teacher) check that the lab recovers.
    fn install_device_loss_hook(self: &Rc<Self>) {
        use wasm_bindgen::prelude::*;
        let lab = Rc::downgrade(self);
        let hook = Closure::<dyn Fn()>::new(move || {
            if let Some(ctx) = lab.upgrade().and_then(|l| l.gpu.borrow().clone()) {
                ctx.device.destroy();
            }
        });
        if let Some(w) = web_sys::window() {
            let _ = js_sys::Reflect::set(&w, &"__labLoseGpu".into(), hook.as_ref());
        }
        hook.forget();
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

    /// One training step while paused.
    pub fn step(self: &Rc<Self>) {
        if self.readouts.running.get_untracked() || self.loop_active.get() {
            return;
        }
        let lab = self.clone();
        leptos::task::spawn_local(async move {
            lab.loop_active.set(true);
            lab.chunk(1).await;
            lab.loop_active.set(false);
        });
    }

    /// Stops training, forgets the session and shows the fresh model's boundary.
    pub fn reset(self: &Rc<Self>) {
        self.readouts.running.set(false);
        self.generation.set(self.generation.get() + 1);
        *self.trainer.borrow_mut() = None;
        *self.history.borrow_mut() = History::default();
        *self.probs.borrow_mut() = None;
        *self.diagram.borrow_mut() = None;
        *self.checkpoint.borrow_mut() = None;
        self.since_diagram.set(u32::MAX);
        let r = &self.readouts;
        r.step.set(0);
        r.epoch.set(0);
        r.loss.set(None);
        r.first_loss.set(None);
        r.accuracy.set(None);
        r.test_loss.set(None);
        r.test_accuracy.set(None);
        r.steps_per_second.set(None);
        self.redraw();
        let lab = self.clone();
        leptos::task::spawn_local(async move {
            let generation = lab.generation.get();
            if lab.ensure_trainer(generation).await {
                lab.show_prediction(generation).await;
            }
        });
    }

    pub fn redraw(&self) {
        let s = self.state.get_untracked();
        let (train, test) = &*self.data.borrow();
        if let Some(canvas) = self.heatmap.get_untracked() {
            let test = if s.show_test { test.as_ref() } else { None };
            let probs = self.probs.borrow();
            let view = draw::heatmap::View {
                grid: GRID,
                classes: if s.dataset.is_regression() {
                    1
                } else {
                    train.classes
                },
                probs: probs.as_deref(),
                train,
                test,
                extent: EXTENT,
            };
            draw::heatmap::draw(&canvas, &view);
        }
        if let Some(canvas) = self.chart.get_untracked() {
            let h = self.history.borrow();
            draw::loss_chart::draw(canvas, &h.train, &h.test);
        }
        self.redraw_network();
    }

    fn redraw_network(&self) {
        if let (Some(canvas), Some(d)) = (self.network.get_untracked(), self.diagram.borrow().as_ref()) {
            draw::network::draw(&canvas, d, self.hovered.get());
        }
    }

    /// The pointer moved over the diagram: enlarge the neuron under it.
    pub fn hover(&self, x: f64, y: f64) {
        let hit = match (self.network.get_untracked(), self.diagram.borrow().as_ref()) {
            (Some(canvas), Some(d)) => draw::network::hit(d, &canvas, x, y),
            _ => None,
        };
        if hit != self.hovered.get() {
            self.hovered.set(hit);
            self.redraw_network();
        }
    }

    /// The diagram's columns and links from one prediction: the input features, each hidden
    /// layer after its activation, and the output; the weights of every dense layer.
    fn build_diagram(
        &self,
        trainer: &Trainer,
        probs: &[f32],
        layers: &[Vec<f32>],
        params: &[f32],
    ) -> draw::network::Diagram {
        use draw::network::{Column, Shade};
        let s = self.state.get_untracked();
        let rows = GRID * GRID;
        let split = |values: &[f32], units: usize| -> Vec<Vec<f32>> {
            (0..units)
                .map(|j| (0..rows).map(|r| values[r * units + j]).collect())
                .collect()
        };
        let mut columns = vec![Column {
            title: "input".into(),
            shade: Shade::Values,
            neurons: s
                .features
                .iter()
                .map(|f| engine::data::features::expand(&self.grid, &[*f]))
                .collect(),
        }];
        let mut weights = Vec::new();
        let compiled = &trainer.compiled.layers;
        let dense: Vec<usize> = (0..compiled.len())
            .filter(|&i| matches!(compiled[i].layer, Layer::Dense { .. }))
            .collect();
        for (n, &i) in dense.iter().enumerate() {
            let l = &compiled[i];
            let (inputs, units) = (l.in_len(), l.out_len());
            weights.push(
                (0..units)
                    .map(|to| params[l.w_off + to * inputs..l.w_off + (to + 1) * inputs].to_vec())
                    .collect(),
            );
            let last = n + 1 == dense.len();
            let probabilities = last && trainer.config.loss == engine::plan::Loss::CrossEntropy;
            let column = if probabilities {
                Column {
                    title: "output".into(),
                    shade: Shade::Probabilities,
                    neurons: split(probs, units),
                }
            } else {
                // After the activation when one follows (hidden layers), else the raw output.
                let out = match compiled.get(i + 1).map(|l| &l.layer) {
                    Some(Layer::Activation { .. }) => &layers[i + 1],
                    _ => &layers[i],
                };
                Column {
                    title: if last {
                        "output".into()
                    } else {
                        format!("layer {}", n + 1)
                    },
                    shade: Shade::Values,
                    neurons: split(out, units),
                }
            };
            columns.push(column);
        }
        draw::network::Diagram {
            grid: GRID,
            columns,
            weights,
        }
    }

    /// The backend for this model: the student's choice, or for "auto" the faster of the two,
    /// measured on a few steps of this very model (small networks usually train faster on the
    /// CPU: a GPU step has a fixed cost that only large layers amortize).
    /// Returns the GPU to use (None: the CPU path) and why.
    async fn pick_gpu(&self, config: &TrainConfig, train: &Dataset) -> (Option<Rc<GpuContext>>, String) {
        let Some(gpu) = self.gpu.borrow().clone() else {
            return (None, "WebGPU is unavailable: CPU".into());
        };
        match self.state.get_untracked().backend {
            BackendChoice::Cpu => (None, "chosen: CPU".into()),
            BackendChoice::Webgpu => (Some(gpu), "chosen: WebGPU".into()),
            BackendChoice::Auto => {
                let key = format!("{:?}|{:?}|{}", config.model, config.features, config.batch);
                if let Some((k, use_gpu, reason)) = self.auto_choice.borrow().clone() {
                    if k == key {
                        return (use_gpu.then_some(gpu), reason);
                    }
                }
                let rate = |gpu: Option<Rc<GpuContext>>| async move {
                    let mut t = Trainer::with_data(config.clone(), train.clone(), gpu, 1)
                        .await
                        .ok()?;
                    t.train(3).await.ok()?; // warm-up: pipelines and buffers
                    let t0 = now_ms();
                    t.train(20).await.ok()?;
                    Some(20.0 * 1000.0 / (now_ms() - t0).max(0.1))
                };
                let on_gpu = rate(Some(gpu.clone())).await.unwrap_or(0.0);
                let on_cpu = rate(None).await.unwrap_or(0.0);
                let use_gpu = on_gpu > on_cpu;
                let reason = format!(
                    "auto: measured {on_cpu:.0} steps/s on the CPU, {on_gpu:.0} on WebGPU for this model"
                );
                *self.auto_choice.borrow_mut() = Some((key, use_gpu, reason.clone()));
                (use_gpu.then_some(gpu), reason)
            }
        }
    }

    /// Builds the session for the current settings if there is none. False when the settings
    /// changed meanwhile or the build failed (the error is shown).
    async fn ensure_trainer(&self, generation: u64) -> bool {
        if self.trainer.borrow().is_some() {
            return true;
        }
        let config = self.config();
        let train = self.data.borrow().0.clone();
        let (gpu, reason) = self.pick_gpu(&config, &train).await;
        if self.generation.get() != generation {
            return false; // settings changed while measuring: the newer session says why
        }
        self.readouts.backend_reason.set(Some(reason));
        match Trainer::with_data(config, train, gpu, GRID * GRID).await {
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

    /// Predicts the heatmap and evaluates the test set, then redraws.
    async fn show_prediction(&self, generation: u64) {
        let Some(mut trainer) = self.trainer.borrow_mut().take() else {
            return;
        };
        let with_diagram = self.since_diagram.get() >= 4 || !self.readouts.running.get_untracked();
        let (probs, diagram) = if with_diagram {
            match trainer.predict_layers(&self.grid).await {
                Ok((probs, layers)) => {
                    let diagram = match trainer.params().await {
                        Ok(params) => {
                            let d = self.build_diagram(&trainer, &probs, &layers, &params);
                            *self.checkpoint.borrow_mut() = Some((trainer.step(), params));
                            Some(d)
                        }
                        Err(_) => None,
                    };
                    (Ok(probs), diagram)
                }
                Err(e) => (Err(e), None),
            }
        } else {
            (trainer.predict(&self.grid).await, None)
        };
        let test = self.data.borrow().1.clone();
        let evaluated = match &test {
            Some(t) if !t.is_empty() => Some(trainer.evaluate(t).await),
            _ => None,
        };
        if self.generation.get() != generation {
            return;
        }
        let step = trainer.step() as usize;
        *self.trainer.borrow_mut() = Some(trainer);
        if let Some(Ok((loss, accuracy))) = evaluated {
            self.readouts.test_loss.set(Some(loss));
            self.readouts.test_accuracy.set(Some(accuracy));
            let mut h = self.history.borrow_mut();
            if step > 0 && h.test.last().is_none_or(|&(s, _)| s < step) {
                h.test.push((step, loss));
            }
        }
        match probs {
            Ok(p) => *self.probs.borrow_mut() = Some(p),
            Err(e) => self.readouts.error.set(Some(e)),
        }
        if let Some(d) = diagram {
            *self.diagram.borrow_mut() = Some(d);
            self.since_diagram.set(0);
        } else {
            self.since_diagram.set(self.since_diagram.get().saturating_add(1));
        }
        self.redraw();
    }

    /// Trains `steps` steps and updates the readouts; false when training must stop.
    async fn chunk(&self, steps: usize) -> bool {
        let generation = self.generation.get();
        if !self.ensure_trainer(generation).await {
            return self.readouts.error.get_untracked().is_none();
        }
        // Another task (a prediction after reset) may hold the session for a moment.
        let Some(mut trainer) = self.trainer.borrow_mut().take() else {
            return true;
        };
        if let Some(why) = trainer.gpu_lost() {
            drop(trainer);
            return self.recover_device(why, generation).await;
        }
        let started = now_ms();
        let result = trainer.train(steps).await;
        let elapsed = (now_ms() - started).max(0.1);
        if self.generation.get() != generation {
            return true; // reset while the chunk ran: drop this session
        }
        let r = self.readouts;
        match result {
            Ok(metrics) => {
                if r.first_loss.get_untracked().is_none() {
                    r.first_loss.set(metrics.first().map(|m| m.loss));
                }
                self.history
                    .borrow_mut()
                    .train
                    .extend(metrics.iter().map(|m| m.loss));
                if let Some(m) = metrics.last() {
                    r.step.set(m.step);
                    r.loss.set(Some(m.loss));
                    r.accuracy.set(Some(m.accuracy));
                }
                r.epoch.set(trainer.epoch());
                r.steps_per_second.set(Some(steps as f64 * 1000.0 / elapsed));
                *self.trainer.borrow_mut() = Some(trainer);
                self.adapt_chunk(steps, elapsed);
                self.show_prediction(generation).await;
                true
            }
            Err(e) => {
                // A lost device fails the readback first and reports its loss a moment later
                // (seconds later on a busy machine).
                if trainer.is_gpu() {
                    let deadline = now_ms() + 10_000.0;
                    while now_ms() < deadline {
                        if let Some(why) = trainer.gpu_lost() {
                            drop(trainer);
                            return self.recover_device(why, generation).await;
                        }
                        next_frame().await;
                    }
                }
                r.step.set(trainer.step());
                r.error.set(Some(e.to_string()));
                *self.trainer.borrow_mut() = Some(trainer);
                false
            }
        }
    }

    /// After the GPU device was lost: a new device (or the CPU path when none can be had), the
    /// session rebuilt there from the last weights read back, and a banner saying so.
    async fn recover_device(&self, why: String, generation: u64) -> bool {
        crate::frame::log_warning(&format!("GPU device lost: {why}"));
        let checkpoint = self.checkpoint.borrow_mut().take();
        *self.trainer.borrow_mut() = None;
        *self.auto_choice.borrow_mut() = None;
        let device = match GpuContext::new().await {
            Ok(ctx) => {
                self.readouts.gpu.set(GpuStatus::Ready(ctx.adapter.label()));
                *self.gpu.borrow_mut() = Some(Rc::new(ctx));
                "made a new one"
            }
            Err(e) => {
                self.readouts.gpu.set(GpuStatus::Unavailable(e));
                *self.gpu.borrow_mut() = None;
                "could not get another, so training moves to the CPU path"
            }
        };
        if !self.ensure_trainer(generation).await {
            return false;
        }
        let restored = match (checkpoint, self.trainer.borrow_mut().as_mut()) {
            (Some((step, params)), Some(t)) => t.set_params(&params).is_ok().then(|| {
                t.set_step(step);
                step
            }),
            _ => None,
        };
        let resumed = match restored {
            Some(step) => {
                self.history.borrow_mut().train.truncate(step as usize);
                self.readouts.step.set(step);
                format!("carries on from step {step} (the optimizer's running averages start afresh)")
            }
            None => "starts again from fresh weights (none had been saved yet)".to_string(),
        };
        self.readouts.error.set(Some(format!(
            "The GPU device was lost ({why}). The lab {device} and {resumed}."
        )));
        true
    }

    /// Aims the next chunk at the frame's training budget (12 ms of a 16 ms frame).
    fn adapt_chunk(&self, steps: usize, elapsed: f64) {
        let next = (steps as f64 * 12.0 / elapsed).clamp(1.0, 200.0);
        self.steps_per_frame
            .set(((steps as f64 + next) / 2.0).ceil() as usize);
    }

    /// The training loop: a chunk of steps, then draw, then yield until the next frame.
    async fn run(self: Rc<Self>) {
        self.loop_active.set(true);
        while self.readouts.running.get_untracked() {
            let steps = match self.speed.get_untracked() {
                Speed::Steps(n) => n,
                Speed::Max => self.steps_per_frame.get(),
            };
            if !self.chunk(steps).await {
                self.readouts.running.set(false);
            }
            next_frame().await;
        }
        self.loop_active.set(false);
    }

    /// Downloads the trained weights with the config and the lab state as JSON.
    pub fn export_weights(self: &Rc<Self>) {
        let lab = self.clone();
        leptos::task::spawn_local(async move {
            let Some(trainer) = lab.trainer.borrow_mut().take() else {
                return;
            };
            let model = engine::export::export_model(&trainer).await;
            *lab.trainer.borrow_mut() = Some(trainer);
            match model {
                Ok(m) => {
                    let json = serde_json::json!({ "state": lab.state.get_untracked(), "model": m });
                    browser::download("playground-model.json", "application/json", &json.to_string());
                }
                Err(e) => lab.readouts.error.set(Some(e)),
            }
        });
    }

    /// Downloads the loss curves as CSV: step, training loss, test loss (where measured).
    pub fn export_losses(&self) {
        let h = self.history.borrow();
        browser::download(
            "playground-loss.csv",
            "text/csv",
            &draw::loss_chart::table(&h.train, &h.test),
        );
    }

    /// The charts' CSVs, built when asked: the charts redraw every frame while training.
    fn provide_tables(self: &Rc<Self>) {
        let lab = Rc::downgrade(self);
        crate::figures::provide("loss-chart", move || {
            let lab = lab.upgrade()?;
            let h = lab.history.borrow();
            Some(draw::loss_chart::table(&h.train, &h.test))
        });
        let lab = Rc::downgrade(self);
        crate::figures::provide("heatmap", move || {
            let lab = lab.upgrade()?;
            let probs = lab.probs.borrow();
            let p = probs.as_deref()?;
            // One row per grid point: where it is, and the model's output for each class.
            let k = if lab.state.with_untracked(|s| s.dataset.is_regression()) {
                1
            } else {
                lab.data.borrow().0.classes.max(1)
            };
            let rows = lab.grid.chunks(2).enumerate().map(|(i, xy)| {
                let outs = p
                    .get(i * k..(i + 1) * k)
                    .unwrap_or(&[])
                    .iter()
                    .map(f32::to_string);
                xy.iter().map(f32::to_string).chain(outs).collect::<Vec<_>>()
            });
            let header = std::iter::once("x,y".to_string())
                .chain((0..k).map(|c| format!("output_{c}")))
                .collect::<Vec<_>>()
                .join(",");
            Some(crate::figures::csv(&header, rows))
        });
        let lab = Rc::downgrade(self);
        crate::figures::provide("network", move || {
            let lab = lab.upgrade()?;
            let diagram = lab.diagram.borrow();
            let links = diagram.as_ref()?.weights.iter().enumerate().flat_map(|(c, to)| {
                to.iter().enumerate().flat_map(move |(t, from)| {
                    from.iter().enumerate().map(move |(f, w)| {
                        [c, f, t]
                            .map(|v| v.to_string())
                            .into_iter()
                            .chain([w.to_string()])
                    })
                })
            });
            Some(crate::figures::csv("layer,from_neuron,to_neuron,weight", links))
        });
    }

    pub fn export_heatmap(&self) {
        if let Some(canvas) = self.heatmap.get_untracked() {
            browser::download_canvas("playground-heatmap.png", &canvas);
        }
    }
}
