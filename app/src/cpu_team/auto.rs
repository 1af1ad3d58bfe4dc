//! The labs' CPU path: one core or a team, chosen by timing both on the run itself. Splitting a
//! step pays only where its arithmetic outweighs sending the weights and gradients each step (a
//! CNN, a wide MLP); a small MLP trains faster alone. So a run that can split trains its first
//! steps alone, the next ones split, and keeps whichever was faster per step; every step trained
//! while choosing counts (both ways give the same step).

use engine::train::{StepMetrics, StepRunner, TrainError, Trainer};

use super::{cores, Team};
use crate::frame::now_ms;

/// A training step's arithmetic (forward and backward FLOPs) below which no team is tried: the
/// messages alone would take longer.
const MIN_SPLIT_FLOPS: f64 = 4e6;

/// Training time each way before choosing, so the comparison is not one noisy chunk.
const TRIAL_MS: f64 = 60.0;

/// Trains a CPU run's steps on one core or split over the browser's cores.
pub struct Cores {
    team: Option<Team>,
    choice: Choice,
    /// What the run trains on, for the page: "1 core" with why, or "N cores".
    pub note: String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Choice {
    /// Timing one way, then the other: (ms, steps) alone, and split.
    Trying {
        alone: (f64, usize),
        split: (f64, usize),
    },
    Split,
    Alone,
}

impl Cores {
    /// One core: the GPU runs, or a run that may not split.
    pub fn alone(note: impl Into<String>) -> Cores {
        Cores {
            team: None,
            choice: Choice::Alone,
            note: note.into(),
        }
    }

    /// For a CPU run: a team of every core when the run can split and its steps are big enough
    /// to gain, to be kept if it proves faster; otherwise one core.
    pub async fn for_run(trainer: &Trainer) -> Cores {
        let available = cores();
        if trainer.is_gpu() {
            return Cores::alone("");
        }
        if available < 2 {
            return Cores::alone("1 core (the browser reports one)");
        }
        if trainer.train_pass_flops() < MIN_SPLIT_FLOPS {
            return Cores::alone("1 core (steps this small gain nothing from splitting)");
        }
        match Team::start(trainer, available).await {
            Ok(team) => Cores {
                note: format!("{} cores (timing against 1…)", team.replicas()),
                team: Some(team),
                choice: Choice::Trying {
                    alone: (0.0, 0),
                    split: (0.0, 0),
                },
            },
            Err(why) => Cores::alone(format!("1 core ({why})")),
        }
    }

    /// Settles the trial once both ways have had their time.
    fn settle(&mut self, alone: (f64, usize), split: (f64, usize)) {
        let per_step = |(ms, steps): (f64, usize)| ms / steps.max(1) as f64;
        let n = self.team.as_ref().map_or(1, StepRunner::replicas);
        if per_step(split) < per_step(alone) {
            self.choice = Choice::Split;
            self.note = format!("{n} cores ({:.1}× one core)", per_step(alone) / per_step(split));
        } else {
            self.choice = Choice::Alone;
            self.team = None;
            self.note = format!("1 core (splitting over {n} was slower for this model)");
        }
    }
}

impl StepRunner for Cores {
    async fn train(&mut self, trainer: &mut Trainer, steps: usize) -> Result<Vec<StepMetrics>, TrainError> {
        let Some(team) = self.team.as_mut() else {
            return trainer.train(steps).await;
        };
        let (alone, split) = match self.choice {
            Choice::Alone => return trainer.train(steps).await,
            Choice::Split => (None, None),
            Choice::Trying { alone, split } => (Some(alone), Some(split)),
        };
        // Alone first: the trial's split half then runs on warmed helpers.
        let try_alone = alone.is_some_and(|(ms, _)| ms < TRIAL_MS);
        let t0 = now_ms();
        let result = if try_alone {
            trainer.train(steps).await
        } else {
            team.train(trainer, steps).await
        };
        let dt = now_ms() - t0;
        let metrics = match result {
            Err(TrainError::Device(engine::error::Error::Replica(why))) => {
                // A helper failed: the run goes on alone, from its last good step.
                *self = Cores::alone(format!("1 core (a helper failed: {why})"));
                return trainer.train(steps).await;
            }
            other => other?,
        };
        if let (Some(mut alone), Some(mut split)) = (alone, split) {
            let slot = if try_alone { &mut alone } else { &mut split };
            slot.0 += dt;
            slot.1 += metrics.len();
            self.choice = Choice::Trying { alone, split };
            if split.0 >= TRIAL_MS {
                self.settle(alone, split);
            }
        }
        Ok(metrics)
    }

    fn replicas(&self) -> usize {
        match self.choice {
            Choice::Split => self.team.as_ref().map_or(1, StepRunner::replicas),
            _ => 1,
        }
    }
}
