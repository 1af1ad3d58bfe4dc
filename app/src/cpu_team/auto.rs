//! The labs' CPU path: one core or a team, chosen by timing both on the run itself. Splitting a
//! step pays only where its arithmetic outweighs sending the weights and gradients each step (a
//! CNN, a wide MLP); a small MLP trains faster alone. So a run that can split trains its first
//! steps alone and split by turns, and keeps whichever was faster per step; every step trained
//! while choosing counts (both ways give the same step).

use engine::plan::LOG_CAPACITY;
use engine::train::{StepMetrics, StepRunner, TrainError, Trainer};

use super::{cores, Team};
use crate::frame::now_ms;

/// A training step's arithmetic (forward and backward FLOPs) below which no team is tried: the
/// messages alone would take longer.
const MIN_SPLIT_FLOPS: f64 = 4e6;

/// Training time each way before choosing, so the comparison is not one noisy chunk.
const TRIAL_MS: f64 = 60.0;

/// Steps each way takes in a turn of the trial.
const TRIAL_BLOCK: usize = 4;

/// Trains a CPU run's steps on one core or split over the browser's cores.
pub struct Cores {
    team: Option<Team>,
    choice: Choice,
    /// What the run trains on, for the page: "N cores", "1 core" with why, or nothing where no
    /// team was considered.
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
        // Nothing to say where nothing was tried: the GPU trains, one core, or small steps
        // (the playground's toy networks).
        let available = cores();
        if trainer.is_gpu() || available < 2 || trainer.train_pass_flops() < MIN_SPLIT_FLOPS {
            return Cores::alone("");
        }
        let mut cores = Cores::with_team(trainer, available).await;
        if let Some(team) = &cores.team {
            cores.note = format!("{} cores (timing against 1…)", team.replicas());
            cores.choice = Choice::Trying {
                alone: (0.0, 0),
                split: (0.0, 0),
            };
        }
        cores
    }

    /// A team of up to `wanted` cores, kept without a trial (a benchmark asking for a count), or
    /// one core with why there is none.
    pub async fn with_team(trainer: &Trainer, wanted: usize) -> Cores {
        match Team::start(trainer, wanted).await {
            Ok(team) => Cores {
                note: format!("{} cores (each step split)", team.replicas()),
                team: Some(team),
                choice: Choice::Split,
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

impl Cores {
    /// Puts the team's weights in the trainer where the team holds newer ones (`Team::sync`); a
    /// helper that fails hands the run back to one core, from the trainer's last weights.
    async fn sync(&mut self, trainer: &mut Trainer) -> Result<(), TrainError> {
        let Some(team) = self.team.as_mut() else {
            return Ok(());
        };
        match team.sync(trainer).await {
            Err(TrainError::Device(engine::error::Error::Replica(why))) => {
                *self = Cores::alone(format!("1 core (a helper failed: {why})"));
                Ok(())
            }
            other => other,
        }
    }

    /// `steps` steps on the team if there is one, else alone; a helper that fails hands the run
    /// back to one core, from its last good step.
    async fn train_as_chosen(
        &mut self,
        trainer: &mut Trainer,
        steps: usize,
    ) -> Result<Vec<StepMetrics>, TrainError> {
        let Some(team) = self.team.as_mut() else {
            return trainer.train(steps).await;
        };
        match team.train(trainer, steps).await {
            Err(TrainError::Device(engine::error::Error::Replica(why))) => {
                *self = Cores::alone(format!("1 core (a helper failed: {why})"));
                trainer.train(steps).await
            }
            other => other,
        }
    }
}

impl StepRunner for Cores {
    async fn train(&mut self, trainer: &mut Trainer, steps: usize) -> Result<Vec<StepMetrics>, TrainError> {
        let steps = steps.clamp(1, LOG_CAPACITY);
        let mut out = Vec::with_capacity(steps);
        while out.len() < steps {
            let left = steps - out.len();
            let Choice::Trying { mut alone, mut split } = self.choice else {
                out.extend(self.train_as_chosen(trainer, left).await?);
                continue;
            };
            // The trial takes turns in blocks of a few steps, so that both ways are timed under
            // the same conditions (the page's thread warms up as it goes, and each way's first
            // step after a turn finds the other's data in the cache), and goes a step at a time,
            // so that a caller's long chunk still tries both.
            let try_alone = alone.1 / TRIAL_BLOCK <= split.1 / TRIAL_BLOCK;
            let t0 = now_ms();
            let metrics = if try_alone {
                self.sync(trainer).await?;
                trainer.train(1).await?
            } else {
                self.train_as_chosen(trainer, 1).await?
            };
            let slot = if try_alone { &mut alone } else { &mut split };
            slot.0 += now_ms() - t0;
            slot.1 += metrics.len();
            out.extend(metrics);
            if self.team.is_some() && matches!(self.choice, Choice::Trying { .. }) {
                self.choice = Choice::Trying { alone, split };
                if alone.0.min(split.0) >= TRIAL_MS && alone.1 == split.1 {
                    self.sync(trainer).await?;
                    self.settle(alone, split);
                }
            }
        }
        self.sync(trainer).await?;
        Ok(out)
    }

    fn replicas(&self) -> usize {
        match self.choice {
            Choice::Split => self.team.as_ref().map_or(1, StepRunner::replicas),
            _ => 1,
        }
    }

    fn exchange(&self) -> Option<&'static str> {
        match self.choice {
            Choice::Split => self.team.as_ref().map(Team::link),
            _ => None,
        }
    }

    fn split(&self) -> Option<&'static str> {
        match self.choice {
            Choice::Split => self.team.as_ref().and_then(StepRunner::split),
            _ => None,
        }
    }
}
