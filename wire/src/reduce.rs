//! One step's reduction at the class server (the parameter-server schedule): the frames of the
//! step's workers come in any order; each is checked and kept or refused with its reason; once every
//! expected rank has sent (or the deadline passed) the kept frames are summed **in rank order**,
//! whatever order they came in, and divided by their rows. The order is fixed so that a run is
//! the same every time, and so that K workers give the one-worker run's mean up to fp32
//! summation's rounding (the sum of the shards' sums is the batch's sum, added in another order).

use std::collections::BTreeMap;
use std::ops::Range;

use thiserror::Error;

use crate::frame::GradientFrame;

/// Why a worker's frame is left out of its step: the dashboard names the worker and this.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum Refusal {
    #[error("a frame of run {run} step {step}, not of this step ({expected})")]
    OtherStep { run: u32, step: u32, expected: u32 },
    #[error("rank {0} has no shard in this step")]
    NoShard(u16),
    #[error("rank {0} sent this step's gradient twice")]
    Twice(u16),
    #[error("{got} rows where the shard has {expected}")]
    WrongRows { got: u32, expected: u32 },
    #[error("{got} gradient values for a model of {expected} parameters")]
    WrongCount { got: usize, expected: usize },
    #[error(
        "a value that is not finite (parameter {0}): the worker's step diverged or its memory is corrupt"
    )]
    NotFinite(usize),
}

impl Refusal {
    /// A refusal of a rank's own frame for this step, which stands as its answer (named on the
    /// dashboard; the rank may not send again): not a stray frame of another step, of a rank
    /// without a shard, or a second one.
    fn is_the_ranks_answer(&self) -> bool {
        !matches!(
            self,
            Refusal::OtherStep { .. } | Refusal::NoShard(_) | Refusal::Twice(_)
        )
    }
}

/// The step's outcome: the batch's mean gradient and loss over the rows that came, and which
/// workers took part, were refused, or never sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduced {
    pub mean: Vec<f32>,
    pub loss: f32,
    pub rows: u32,
    /// The ranks summed, in the order they were summed.
    pub summed: Vec<u16>,
    pub refused: Vec<(u16, Refusal)>,
    /// Ranks with a shard that sent nothing acceptable by the end: their rows are missing from
    /// the mean (the server gives them to the others at the next step).
    pub missing: Vec<u16>,
}

/// A step's reduction in progress.
#[derive(Clone, Debug)]
pub struct StepReduction {
    run: u32,
    step: u32,
    params: usize,
    /// Each live rank's rows (`shards::assign`).
    shards: BTreeMap<u16, Range<usize>>,
    kept: BTreeMap<u16, GradientFrame>,
    refused: Vec<(u16, Refusal)>,
}

impl StepReduction {
    /// Step `step` of run `run` for a model of `params` parameters, with each live rank's rows.
    pub fn new(run: u32, step: u32, params: usize, shards: Vec<(u16, Range<usize>)>) -> Self {
        StepReduction {
            run,
            step,
            params,
            shards: shards.into_iter().collect(),
            kept: BTreeMap::new(),
            refused: Vec::new(),
        }
    }

    /// Checks a worker's frame and keeps it, or refuses it with its reason (also kept, for the
    /// dashboard; a refused rank may not send again this step).
    pub fn offer(&mut self, frame: GradientFrame) -> Result<(), Refusal> {
        match self.check(&frame) {
            Ok(()) => {
                self.kept.insert(frame.rank, frame);
                Ok(())
            }
            Err(why) => {
                if why.is_the_ranks_answer() {
                    self.refused.push((frame.rank, why.clone()));
                }
                Err(why)
            }
        }
    }

    /// Whether `rank` has answered this step: a frame kept, or one refused.
    fn answered(&self, rank: u16) -> bool {
        self.kept.contains_key(&rank) || self.refused.iter().any(|(r, _)| *r == rank)
    }

    fn check(&self, f: &GradientFrame) -> Result<(), Refusal> {
        if (f.run, f.step) != (self.run, self.step) {
            return Err(Refusal::OtherStep {
                run: f.run,
                step: f.step,
                expected: self.step,
            });
        }
        let Some(rows) = self.shards.get(&f.rank) else {
            return Err(Refusal::NoShard(f.rank));
        };
        if self.answered(f.rank) {
            return Err(Refusal::Twice(f.rank));
        }
        let expected = rows.len() as u32;
        if f.rows != expected {
            return Err(Refusal::WrongRows {
                got: f.rows,
                expected,
            });
        }
        if f.values.len() != self.params {
            return Err(Refusal::WrongCount {
                got: f.values.len(),
                expected: self.params,
            });
        }
        if let Some(i) = f.values.iter().position(|v| !v.is_finite()) {
            return Err(Refusal::NotFinite(i));
        }
        if !f.loss_sum.is_finite() {
            return Err(Refusal::NotFinite(self.params));
        }
        Ok(())
    }

    /// Whether every rank with a shard has sent (kept or refused): the step need not wait.
    pub fn complete(&self) -> bool {
        self.shards.keys().all(|r| self.answered(*r))
    }

    /// The step's mean over the frames kept, summed in rank order; None when they hold no row
    /// (nothing to update with).
    pub fn finish(self) -> Option<Reduced> {
        if self.kept.values().all(|f| f.rows == 0) {
            return None;
        }
        let mut sum = vec![0.0f32; self.params];
        let (mut loss, mut rows) = (0.0f32, 0u32);
        for f in self.kept.values() {
            sum.iter_mut().zip(&f.values).for_each(|(s, v)| *s += v);
            loss += f.loss_sum;
            rows += f.rows;
        }
        let scale = 1.0 / rows as f32;
        sum.iter_mut().for_each(|s| *s *= scale);
        let missing = self
            .shards
            .keys()
            .filter(|r| !self.kept.contains_key(r))
            .copied()
            .collect();
        Some(Reduced {
            mean: sum,
            loss: loss / rows as f32,
            rows,
            summed: self.kept.keys().copied().collect(),
            refused: self.refused,
            missing,
        })
    }
}
