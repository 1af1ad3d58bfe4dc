//! The optimizer lab's settings (`/optimizers`): the surface (and κ for the quadratic), gradient
//! noise, steps, the start point, and each racer's switch, learning rate and momentum.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use engine::optim::Optimizer;
use lab_sims::surfaces::{race, Path, Racer, Surface};

use crate::lab::{clamp, nearest, one_of, LabState};
use crate::table::{field, hide_field, no_check, Setting, Table};

/// The racers a student can enter: (name, on by default, learning rate, momentum or β).
pub const RACERS: [(&str, bool, f32, f32); 7] = [
    ("SGD", true, 0.05, 0.0),
    ("Momentum", true, 0.05, 0.9),
    ("Nesterov", false, 0.05, 0.9),
    ("AdaGrad", false, 0.5, 0.0),
    ("RMSProp", false, 0.05, 0.9),
    ("Adam", true, 0.1, 0.9),
    ("AdamW", false, 0.1, 0.9),
];

/// Each racer's learning rate on a surface, in `RACERS` order: rates at which every optimizer
/// descends from the surface's default start over 100 steps without diverging (the quadratic's are
/// `RACERS`'; the curved valleys need far smaller steps for SGD and momentum). Switching surface
/// restores these, so rates tuned for one surface (Goh's optimum, say) do not carry to another.
pub fn default_rates(surface: Surface) -> [f32; 7] {
    match surface {
        Surface::Quadratic { .. } => RACERS.map(|r| r.2),
        Surface::Rosenbrock => [1e-3, 5e-4, 5e-4, 0.1, 0.01, 0.1, 0.1],
        Surface::Beale => [0.01, 1e-3, 1e-3, 0.3, 0.03, 0.1, 0.1],
        Surface::Himmelblau => [0.01, 3e-3, 3e-3, 0.3, 0.03, 0.1, 0.1],
        Surface::DeepLinear => [0.1, 0.03, 0.03, 0.1, 0.01, 0.03, 0.03],
        Surface::MonkeySaddle => [3e-3, 1e-3, 1e-3, 3e-3, 1e-3, 1e-3, 1e-3],
    }
}

/// URL keys of the surfaces, in `Surface::ALL` order.
pub const SURFACES: [&str; 6] = [
    "quadratic",
    "rosenbrock",
    "beale",
    "himmelblau",
    "deep_linear",
    "monkey_saddle",
];
pub const KAPPAS: [f32; 7] = [2.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1000.0];
pub const NOISES: [f32; 5] = [0.0, 0.1, 0.5, 1.0, 3.0];
pub const STEPS: [usize; 4] = [50, 100, 200, 500];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OptimizersLab {
    /// One of `SURFACES`.
    pub surface: String,
    /// The quadratic's condition number.
    pub kappa: f32,
    /// Standard deviation of the noise added to each gradient component.
    pub noise: f32,
    pub steps: usize,
    /// Where every racer starts (None: the surface's usual start).
    pub start: Option<[f32; 2]>,
    /// The racers entered, by lower-case name.
    pub racers: Vec<String>,
    /// Learning rate per racer, in `RACERS` order.
    pub lr: [f32; 7],
    /// Momentum (μ, β₁ or RMSProp's β) per racer.
    pub momentum: [f32; 7],
    /// Controls an instructor hid.
    pub hide: BTreeSet<String>,
}

impl Default for OptimizersLab {
    fn default() -> Self {
        Self {
            surface: SURFACES[0].into(),
            kappa: 10.0,
            noise: 0.0,
            steps: 100,
            start: None,
            racers: RACERS
                .iter()
                .filter(|r| r.1)
                .map(|r| r.0.to_lowercase())
                .collect(),
            lr: RACERS.map(|r| r.2),
            momentum: RACERS.map(|r| r.3),
            hide: BTreeSet::new(),
        }
    }
}

impl OptimizersLab {
    pub fn surface(&self) -> Surface {
        match SURFACES.iter().position(|s| *s == self.surface) {
            Some(0) | None => Surface::Quadratic { kappa: self.kappa },
            Some(i) => Surface::ALL[i],
        }
    }

    pub fn start(&self) -> [f32; 2] {
        self.start.unwrap_or_else(|| self.surface().default_start())
    }

    /// Moves to surface `key` (one of `SURFACES`) with its usual start, its rates and the usual
    /// momentum.
    pub fn switch_surface(&mut self, key: &str) {
        if SURFACES.contains(&key) {
            self.surface = key.into();
        }
        self.start = None;
        self.lr = default_rates(self.surface());
        self.momentum = RACERS.map(|r| r.3);
    }

    /// Each entered racer's path from the start, with its index in `RACERS`, as the page races
    /// them (the noise's draws from seed 1, the same for every racer).
    pub fn race(&self) -> Vec<(usize, Path)> {
        let chosen: Vec<usize> = (0..RACERS.len()).filter(|&i| self.is_on(i)).collect();
        let racers: Vec<Racer> = chosen
            .iter()
            .map(|&i| Racer {
                optimizer: self.optimizer(i),
                learning_rate: self.lr[i],
            })
            .collect();
        let paths = race(self.surface(), self.start(), &racers, self.steps, self.noise, 1);
        chosen.into_iter().zip(paths).collect()
    }

    pub fn is_on(&self, i: usize) -> bool {
        self.racers.contains(&RACERS[i].0.to_lowercase())
    }

    pub fn set_on(&mut self, i: usize, on: bool) {
        let name = RACERS[i].0.to_lowercase();
        self.racers.retain(|r| *r != name);
        if on {
            self.racers.push(name);
            self.racers
                .sort_by_key(|r| RACERS.iter().position(|x| x.0.to_lowercase() == *r));
        }
    }

    /// Racer i's optimizer with its momentum setting.
    pub fn optimizer(&self, i: usize) -> Optimizer {
        let m = self.momentum[i];
        match RACERS[i].0 {
            "SGD" => Optimizer::Sgd,
            "Momentum" => Optimizer::Momentum { momentum: m },
            "Nesterov" => Optimizer::Nesterov { momentum: m },
            "AdaGrad" => Optimizer::AdaGrad { eps: 1e-8 },
            "RMSProp" => Optimizer::RmsProp { beta: m, eps: 1e-7 },
            "AdamW" => Optimizer::AdamW {
                beta1: m,
                beta2: 0.999,
                eps: 1e-8,
                weight_decay: 0.01,
            },
            _ => Optimizer::Adam {
                beta1: m,
                beta2: 0.999,
                eps: 1e-8,
            },
        }
    }
}

impl LabState for OptimizersLab {
    const LAB: &'static str = "optimizers";
    const VERSION: u32 = 1;
}

/// One row per setting; a control's name is its test id without `opt-`.
impl Table for OptimizersLab {
    const SETTINGS: &'static [Setting<Self>] = &[
        Setting {
            key: "surface",
            hides: Some("surface"),
            write: |s| crate::table::field_text(s, "surface"),
            // A surface brings its rates, as switching to it on the page does, unless the link
            // sets them too (their row comes later): `surface=rosenbrock` alone descends.
            read: |s, raw, notices| {
                crate::table::read_field(s, "surface", raw, notices);
                s.lr = default_rates(s.surface());
            },
            check: |s, n| one_of(n, "surface", &mut s.surface, &SURFACES),
        },
        field!("kappa", |s, n| nearest(n, "kappa", &mut s.kappa, &KAPPAS)),
        field!("noise", |s, n| nearest(n, "noise", &mut s.noise, &NOISES)),
        field!("steps", |s, n| nearest(n, "steps", &mut s.steps, &STEPS)),
        // Set by a click on the contour; kept on the surface's view by `relate`.
        field!("start", None, no_check),
        field!("racers", |s, notices| {
            let known: Vec<String> = RACERS.iter().map(|r| r.0.to_lowercase()).collect();
            let before = s.racers.len();
            s.racers.retain(|r| known.contains(r));
            s.racers.dedup();
            if s.racers.len() != before {
                notices.push(format!(
                    "racers: only {} are known; others ignored",
                    known.join(", ")
                ));
            }
        }),
        // Each racer's rate and momentum sit in its row of the racers list, hidden with it.
        field!("lr", None, |s, notices| {
            for (r, lr) in RACERS.iter().zip(s.lr.iter_mut()) {
                clamp(notices, &format!("lr of {}", r.0), lr, 1e-6, 100.0);
            }
        }),
        field!("momentum", None, |s, notices| {
            for (r, m) in RACERS.iter().zip(s.momentum.iter_mut()) {
                clamp(notices, &format!("momentum of {}", r.0), m, 0.0, 0.999);
            }
        }),
    ];
    const OTHER_CONTROLS: &'static [&'static str] =
        &["run", "goh", "share", "contour", "loss-chart", "theory", "lesson"];

    hide_field!();

    fn relate(&mut self, notices: &mut Vec<String>) {
        let [x0, x1, y0, y1] = self.surface().view();
        if let Some(p) = &mut self.start {
            clamp(notices, "start x", &mut p[0], x0, x1);
            clamp(notices, "start y", &mut p[1], y0, y1);
        }
    }
}

/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = OptimizersLab;
