//! Pipeline parallelism's schedules (docs/theory.md §8.1): a model cut into `stages` consecutive
//! stages, one per device, and a batch cut into `micro` micro-batches. GPipe (Huang et al. 2019)
//! runs every forward, then every backward; 1F1B (Narayanan et al. 2021, PipeDream-Flush, the
//! flushed variant of PipeDream, 2019) starts each micro-batch's backward as soon as it can, so a stage holds at most
//! `stages − s` micro-batches' activations instead of all of them. Both are simulated here as
//! list schedules: each stage runs its own order of work, each piece starting when its stage is
//! free and its inputs have arrived.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Schedule {
    GPipe,
    OneFOneB,
}

impl Schedule {
    pub const ALL: [Schedule; 2] = [Schedule::GPipe, Schedule::OneFOneB];

    pub fn key(self) -> &'static str {
        match self {
            Schedule::GPipe => "gpipe",
            Schedule::OneFOneB => "1f1b",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Schedule::GPipe => "GPipe (all forwards, then all backwards)",
            Schedule::OneFOneB => "1F1B (one forward, one backward)",
        }
    }

    /// Stage `s`'s order of work over `micro` micro-batches of a `stages`-stage pipeline.
    pub fn order(self, stages: usize, s: usize, micro: usize) -> Vec<Work> {
        let f = |m| Work {
            micro: m,
            pass: Pass::Forward,
        };
        let b = |m| Work {
            micro: m,
            pass: Pass::Backward,
        };
        match self {
            // GPipe's figure: the backwards in reverse, the last micro-batch's first (its
            // activations are the freshest on the last stage).
            Schedule::GPipe => (0..micro).map(f).chain((0..micro).rev().map(b)).collect(),
            Schedule::OneFOneB => {
                // Warm-up forwards: enough to fill the stages after this one.
                let warm = (stages - s - 1).min(micro);
                let mut order: Vec<Work> = (0..warm).map(f).collect();
                for m in 0..micro - warm {
                    order.push(f(warm + m));
                    order.push(b(m));
                }
                order.extend((micro - warm..micro).map(b));
                order
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    Forward,
    Backward,
}

/// One piece of a stage's work: a micro-batch's forward or backward through the stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    pub micro: usize,
    pub pass: Pass,
}

/// A piece of work as the simulation placed it, in seconds from the step's start.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Slot {
    pub stage: usize,
    pub work: Work,
    pub start: f64,
    pub end: f64,
}

/// How long each piece takes: a micro-batch's forward and backward through one stage, and the
/// hand-over of its activations (or their gradient) to the next stage.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Costs {
    pub forward: f64,
    pub backward: f64,
    pub transfer: f64,
}

/// One training step's pipeline, simulated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    pub schedule: Schedule,
    pub stages: usize,
    pub micro: usize,
    pub slots: Vec<Slot>,
    /// When the last backward ends.
    pub makespan: f64,
}

impl Timeline {
    /// Simulates `schedule` with `stages` stages and `micro` micro-batches (both at least 1).
    pub fn simulate(schedule: Schedule, stages: usize, micro: usize, costs: Costs) -> Timeline {
        let (stages, micro) = (stages.max(1), micro.max(1));
        let orders: Vec<Vec<Work>> = (0..stages).map(|s| schedule.order(stages, s, micro)).collect();
        // done[pass][stage][micro]: when that piece ended (None until placed).
        let mut done = vec![vec![vec![None::<f64>; micro]; stages]; 2];
        let (mut next, mut free) = (vec![0usize; stages], vec![0.0f64; stages]);
        let mut slots = Vec::with_capacity(2 * stages * micro);
        // Each round places every stage's next piece whose inputs are ready; a schedule that
        // cannot progress would be a bug in `order`, caught by the bound on rounds.
        for _ in 0..=2 * stages * micro {
            if slots.len() == 2 * stages * micro {
                break;
            }
            for s in 0..stages {
                let Some(&w) = orders[s].get(next[s]) else {
                    continue;
                };
                let ready = match w.pass {
                    Pass::Forward if s == 0 => Some(0.0),
                    Pass::Forward => done[0][s - 1][w.micro].map(|t| t + costs.transfer),
                    // The last stage's backward follows its own forward (the loss is there).
                    Pass::Backward if s + 1 == stages => done[0][s][w.micro],
                    Pass::Backward => done[1][s + 1][w.micro].map(|t| t + costs.transfer),
                };
                let Some(ready) = ready else { continue };
                let start = ready.max(free[s]);
                let end = start
                    + match w.pass {
                        Pass::Forward => costs.forward,
                        Pass::Backward => costs.backward,
                    };
                done[(w.pass == Pass::Backward) as usize][s][w.micro] = Some(end);
                free[s] = end;
                next[s] += 1;
                slots.push(Slot {
                    stage: s,
                    work: w,
                    start,
                    end,
                });
            }
        }
        assert_eq!(slots.len(), 2 * stages * micro, "{schedule:?} deadlocked");
        let makespan = slots.iter().map(|s| s.end).fold(0.0, f64::max);
        Timeline {
            schedule,
            stages,
            micro,
            slots,
            makespan,
        }
    }

    /// The share of device time spent idle: 1 − busy / (stages · makespan).
    pub fn bubble_fraction(&self) -> f64 {
        let busy: f64 = self.slots.iter().map(|s| s.end - s.start).sum();
        1.0 - busy / (self.stages as f64 * self.makespan)
    }

    /// The most micro-batches whose activations stage `s` holds at once (forward done, backward
    /// not yet): what its activation memory is a multiple of.
    pub fn peak_in_flight(&self, s: usize) -> usize {
        let mut events: Vec<(f64, i32)> = self
            .slots
            .iter()
            .filter(|x| x.stage == s)
            .map(|x| match x.work.pass {
                // Kept from the forward's start, freed at the backward's end.
                Pass::Forward => (x.start, 1),
                Pass::Backward => (x.end, -1),
            })
            .collect();
        // At equal times a release comes before a new hold.
        events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let (mut now, mut peak) = (0, 0);
        for (_, d) in events {
            now += d;
            peak = peak.max(now);
        }
        peak as usize
    }
}

/// The closed form of the bubble with equal stages and no transfer time, for GPipe and 1F1B alike:
/// (p − 1) / (m + p − 1).
pub fn bubble_closed_form(stages: usize, micro: usize) -> f64 {
    let (p, m) = (stages as f64, micro as f64);
    (p - 1.0) / (m + p - 1.0)
}
