//! The playground's model: the settings (from the URL, written back to it), the data, what the
//! charts draw, and the mailbox of the session that trains. It holds no trainer: the session
//! task owns that (see `session`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;

use engine::series::Series;

use engine::data::toy::EXTENT;
use engine::data::Dataset;
use engine::model::Layer;
use engine::train::{ModelConfig, TrainConfig};
use lab_state::playground::Playground;

use super::command::Command;
use super::GRID;
use crate::browser;
use crate::draw;
use crate::session::{Inbox, Mailbox};

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

impl Speed {
    /// The choices, named; their keys are the settings table's (`state::playground::SPEEDS`).
    /// The default (5) is slow enough for a class to watch the boundary form.
    pub const CHOICES: [(Speed, &'static str); 4] = [
        (Speed::Steps(1), "slow: 1 step per frame"),
        (Speed::Steps(5), "watchable: 5 steps per frame"),
        (Speed::Steps(25), "quick: 25 steps per frame"),
        (Speed::Max, "as fast as possible"),
    ];

    pub fn key(self) -> String {
        match self {
            Speed::Steps(n) => n.to_string(),
            Speed::Max => "max".into(),
        }
    }

    pub fn parse(key: &str) -> Speed {
        key.parse().map_or(Speed::Max, Speed::Steps)
    }
}

/// What the page shows.
#[derive(Clone, Copy)]
pub struct Readouts {
    pub gpu: RwSignal<GpuStatus>,
    pub backend: RwSignal<String>,
    /// Why this backend: the auto choice's measurement.
    pub backend_reason: RwSignal<Option<String>>,
    /// How the CPU path uses the cores (`cpu_team::Cores`); empty on the GPU.
    pub cores: RwSignal<String>,
    pub running: RwSignal<bool>,
    pub step: RwSignal<u64>,
    pub epoch: RwSignal<u64>,
    pub loss: RwSignal<Option<f32>>,
    /// The first step's loss, so the fall is visible at a glance.
    pub first_loss: RwSignal<Option<f32>>,
    pub accuracy: RwSignal<Option<f32>>,
    pub test_loss: RwSignal<Option<f32>>,
    pub test_accuracy: RwSignal<Option<f32>>,
    /// Each weighted layer's weight-gradient norm on a fixed batch, input layer first.
    pub gradient_norms: RwSignal<Vec<f32>>,
    pub steps_per_second: RwSignal<Option<f64>>,
    pub error: RwSignal<Option<String>>,
    /// The session's answer to a command it could not carry out, and why.
    pub refusal: RwSignal<Option<String>>,
    /// What the last change of settings did to the model: carried on or started afresh.
    pub applied: RwSignal<Option<String>>,
    /// The data is the user's own (uploaded or clicked), not the generator's.
    pub custom_data: RwSignal<bool>,
}

impl Readouts {
    /// `backend` before the first model is built.
    pub const BUILDING: &'static str = "detecting…";

    fn new() -> Self {
        Self {
            gpu: RwSignal::new(GpuStatus::Detecting),
            backend: RwSignal::new(Self::BUILDING.into()),
            backend_reason: RwSignal::new(None),
            cores: RwSignal::new(String::new()),
            running: RwSignal::new(false),
            step: RwSignal::new(0),
            epoch: RwSignal::new(0),
            loss: RwSignal::new(None),
            first_loss: RwSignal::new(None),
            accuracy: RwSignal::new(None),
            test_loss: RwSignal::new(None),
            test_accuracy: RwSignal::new(None),
            gradient_norms: RwSignal::new(Vec::new()),
            steps_per_second: RwSignal::new(None),
            error: RwSignal::new(None),
            refusal: RwSignal::new(None),
            applied: RwSignal::new(None),
            custom_data: RwSignal::new(false),
        }
    }

    /// Back to a fresh model's readouts.
    pub fn clear(&self) {
        self.step.set(0);
        self.epoch.set(0);
        self.loss.set(None);
        self.first_loss.set(None);
        self.accuracy.set(None);
        self.test_loss.set(None);
        self.test_accuracy.set(None);
        self.gradient_norms.set(Vec::new());
        self.steps_per_second.set(None);
    }
}

/// The curves drawn so far, each in bounded memory however long the run (`Series`).
#[derive(Default)]
pub struct History {
    /// The training loss per step.
    pub train: Series,
    /// The loss on the test set, once per frame.
    pub test: Series,
}

pub struct Lab {
    pub state: RwSignal<Playground>,
    pub notices: RwSignal<Vec<String>>,
    pub readouts: Readouts,
    /// The loss chart's y axis is logarithmic.
    pub log_loss: RwSignal<bool>,
    /// The class a click on the heatmap adds.
    pub add_class: RwSignal<u32>,
    pub heatmap: NodeRef<Canvas>,
    pub chart: NodeRef<Canvas>,
    pub network: NodeRef<Canvas>,
    pub diagram: RefCell<Option<crate::playground::network_chart::Diagram>>,
    hovered: Cell<Option<(usize, usize)>>,
    pub history: RefCell<History>,
    /// The heatmap's points, in [-1, 1]² (row-major, x then y).
    pub grid: Vec<f32>,
    /// The user's own points, when there are any.
    custom: RefCell<Option<Dataset>>,
    /// Train and test data of the session.
    pub data: RefCell<(Dataset, Option<Dataset>)>,
    /// The model's output at every grid point.
    pub probs: RefCell<Option<Vec<f32>>>,
    session: Mailbox<Command>,
}

impl Lab {
    /// The page's model, and the inbox of its session task (`page` starts the task).
    pub fn new() -> (Rc<Self>, Inbox<Command>) {
        let (state, notices) = Playground::from_query(&browser::query());
        let data = state.toy().generate_split();
        let (mailbox, inbox) = crate::session::mailbox();
        let lab = Rc::new(Self {
            state: RwSignal::new(state),
            notices: RwSignal::new(notices),
            readouts: Readouts::new(),
            log_loss: RwSignal::new(false),
            add_class: RwSignal::new(0),
            heatmap: NodeRef::new(),
            chart: NodeRef::new(),
            network: NodeRef::new(),
            diagram: RefCell::new(None),
            hovered: Cell::new(None),
            history: RefCell::new(History::default()),
            grid: engine::heatmap_grid(GRID, EXTENT),
            custom: RefCell::new(None),
            data: RefCell::new(data),
            probs: RefCell::new(None),
            session: mailbox,
        });
        (lab, inbox)
    }

    /// Tells the session of something that happened (not a request of the student's: the last
    /// refusal stays on screen).
    pub fn notify(&self, command: Command) {
        self.session.send(command);
    }

    /// How fast training runs now (the `speed` setting).
    pub fn speed(&self) -> Speed {
        self.state.with_untracked(|s| Speed::parse(&s.speed))
    }

    /// Asks the session to do something; it answers on the readouts.
    pub fn send(&self, command: Command) {
        self.readouts.refusal.set(None);
        // A pause shows at once; the session stops after the chunk it is running.
        if command == Command::Pause {
            self.readouts.running.set(false);
        }
        self.session.send(command);
    }

    /// Applies a change to the state: the URL follows; a change of how the model trains applies
    /// to the running model, any other starts a fresh one (`Playground::resets_model`).
    pub fn update(&self, change: impl FnOnce(&mut Playground)) {
        let before = self.state.get_untracked();
        let mut s = before.clone();
        change(&mut s);
        // Values from the controls pass through the same checks as the URL's (the settings table).
        let (checked, notices) = s.checked();
        if !notices.is_empty() {
            self.notices.set(notices);
        }
        browser::set_query(&checked.to_query());
        let resets = checked.resets_model(&before);
        let same_training = checked.to_config() == before.to_config() && checked.backend == before.backend;
        self.state.set(checked);
        if resets {
            self.refresh_data();
            self.send(Command::Reset);
        } else if same_training {
            self.redraw(); // what is shown changed (test points), not what trains
        } else {
            self.send(Command::Retune);
        }
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
    pub fn regenerate(&self) {
        self.update(|s| s.seed = (s.seed % 1_000_000) + 1);
    }

    /// Uses the user's points (a CSV) instead of the generator's; a bad file changes nothing.
    pub fn use_points(&self, name: &str, text: &str) {
        match engine::data::csv::parse_points(text) {
            Ok(points) => {
                let n = points.len();
                if n > crate::playground::heatmap::MAX_DRAWN {
                    self.notices.set(vec![format!(
                        "{name}: {n} points. The plot draws every {}th of them, and the test set is \
                         scored every few frames; training and the scores use them all.",
                        crate::playground::heatmap::drawn_stride(n)
                    )]);
                }
                *self.custom.borrow_mut() = Some(points);
                self.readouts.custom_data.set(true);
                self.readouts.error.set(None);
                self.refresh_data();
                self.send(Command::Reset);
            }
            Err(e) => self
                .readouts
                .error
                .set(Some(format!("{name}: {e}. The data you had is kept."))),
        }
    }

    /// Adds a point of the selected class where the student clicked ([-1, 1]² coordinates).
    pub fn add_point(&self, x: f32, y: f32) {
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
        self.send(Command::Reset);
    }

    /// Back to the generated data.
    pub fn forget_points(&self) {
        *self.custom.borrow_mut() = None;
        self.readouts.custom_data.set(false);
        self.refresh_data();
        self.send(Command::Reset);
    }

    pub fn classes(&self) -> usize {
        self.data.borrow().0.classes
    }

    /// The engine's config for the settings and the data.
    pub fn config(&self) -> TrainConfig {
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

    /// Forgets what the charts show (a new model starts).
    pub fn clear_views(&self) {
        *self.history.borrow_mut() = History::default();
        *self.probs.borrow_mut() = None;
        *self.diagram.borrow_mut() = None;
        self.readouts.clear();
        self.redraw();
    }

    pub fn redraw(&self) {
        let s = self.state.get_untracked();
        let (train, test) = &*self.data.borrow();
        if let Some(canvas) = self.heatmap.get_untracked() {
            let test = if s.show_test { test.as_ref() } else { None };
            let probs = self.probs.borrow();
            let view = crate::playground::heatmap::View {
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
            crate::playground::heatmap::draw(&canvas, &view);
        }
        if let Some(canvas) = self.chart.get_untracked() {
            let h = self.history.borrow();
            draw::loss_chart::draw(
                canvas,
                h.train.points(),
                h.test.points(),
                self.log_loss.get_untracked(),
            );
        }
        self.redraw_network();
    }

    fn redraw_network(&self) {
        if let (Some(canvas), Some(d)) = (self.network.get_untracked(), self.diagram.borrow().as_ref()) {
            crate::playground::network_chart::draw(&canvas, d, self.hovered.get());
        }
    }

    /// The pointer moved over the diagram: enlarge the neuron under it.
    /// The neuron under the mouse (`None` when it left the diagram) is drawn enlarged.
    pub fn hover(&self, ev: Option<&web_sys::MouseEvent>) {
        let hit = match (self.network.get_untracked(), self.diagram.borrow().as_ref(), ev) {
            (Some(canvas), Some(d), Some(ev)) => {
                let (x, y) = crate::browser::canvas_point(&canvas, ev);
                crate::playground::network_chart::hit(d, &canvas, x, y)
            }
            _ => None,
        };
        if hit != self.hovered.get() {
            self.hovered.set(hit);
            self.redraw_network();
        }
    }
}
