//! The CPU team split by hidden units (`engine::train::hidden_split`: tensor parallelism of a
//! one-hidden-layer MLP), in a cross-origin isolated page. This thread's replica is shard 0 and
//! each helper one more. Every step the batch's rows go out, each shard's part of the logits
//! comes back, their sum goes out, and every shard finishes its own step: no weights or
//! gradients travel. Between steps the shards hold the run's weights: they are handed out before
//! the team's first step after the page's trainer stepped alone, and gathered back into the
//! trainer (`Team::sync`) before it steps alone again or the page reads them.

use engine::optim::Optimizer;
use engine::train::{HiddenShard, StepMetrics, TrainError, Trainer};

use super::shared::{DONE, OP_STEP, OP_WEIGHTS_IN, OP_WEIGHTS_OUT, PART};
use super::{replica_failed, Team};

/// The shards' layouts and where the team's weights are.
pub(super) struct Hidden {
    pub shards: Vec<HiddenShard>,
    /// The run's step whose weights the shards hold (None: not handed out yet).
    shards_step: Option<u64>,
    /// The step whose weights the page's trainer holds.
    trainer_step: u64,
    logits: Vec<f32>,
    part: Vec<f32>,
    whole: Vec<f32>,
}

/// Whether a run's team splits by hidden units: a one-hidden-layer MLP (the engine's
/// `hidden_split_blocker`), shared memory (two message round trips a step would cost more than a
/// small MLP's step), and a stateless optimizer (the labs' trial alternates the team's steps with
/// the trainer's own, and only the weights travel between them).
pub(super) fn usable(trainer: &Trainer, shared: bool) -> bool {
    shared && trainer.hidden_split_blocker().is_none() && trainer.config.optimizer == Optimizer::Sgd
}

impl Hidden {
    pub fn new(shards: Vec<HiddenShard>) -> Hidden {
        Hidden {
            shards,
            shards_step: None,
            trainer_step: 0,
            logits: Vec::new(),
            part: Vec::new(),
            whole: Vec::new(),
        }
    }
}

impl Team {
    fn hidden(&mut self) -> &mut Hidden {
        self.hidden.as_mut().expect("a team split by hidden units")
    }

    /// One step of the run split by hidden units. A helper that fails leaves the trainer at the
    /// last weights it holds, its step count with them.
    pub(super) async fn hidden_step(&mut self, trainer: &mut Trainer) -> Result<StepMetrics, TrainError> {
        let step = trainer.step();
        let outcome = async {
            if self.hidden().shards_step != Some(step) {
                self.hand_out(trainer, step).await?;
            }
            let rows = trainer.next_batch_rows();
            self.shards_step(&rows, step).await
        }
        .await;
        match outcome {
            Ok(m) => {
                self.hidden().shards_step = Some(step + 1);
                trainer.set_step(step + 1);
                Ok(m)
            }
            Err(e) => {
                let back = self.hidden().trainer_step;
                trainer.set_step(back);
                Err(e)
            }
        }
    }

    /// Every shard's step on `rows` as step `step`: the parts of the logits added in shard
    /// order, then each shard's loss, backward and update. The page's thread does not wait for
    /// the helpers to finish the step: every shard takes the same loss from the same logits, and
    /// a helper's next part of the logits (or `settle`) comes only after its finish. So the next
    /// step's rows go out while the helpers still update, one exchange a step fewer.
    pub(super) async fn shards_step(&mut self, rows: &[u32], step: u64) -> Result<StepMetrics, TrainError> {
        for h in &mut self.helpers {
            h.link_mut()
                .post_op(OP_STEP, rows, &[], step)
                .map_err(replica_failed)?;
        }
        let hidden = self.hidden.as_mut().expect("a team split by hidden units");
        let own = self.local.shard_outputs(rows, &mut hidden.logits).await;
        own.map_err(TrainError::Device)?;
        for h in &mut self.helpers {
            h.shared_wait(PART).await.map_err(replica_failed)?;
            h.link_mut().read_values(hidden.logits.len(), &mut hidden.part);
            hidden
                .logits
                .iter_mut()
                .zip(&hidden.part)
                .for_each(|(l, p)| *l += p);
        }
        for h in &self.helpers {
            h.link().post_sum(&hidden.logits).map_err(replica_failed)?;
        }
        self.local
            .shard_finish(&hidden.logits, &hidden.shards[0], step)
            .await
    }

    /// Waits until every helper has finished the last operation posted to it (its weights move
    /// only after that).
    async fn settle(&mut self) -> Result<(), TrainError> {
        for h in &mut self.helpers {
            h.shared_wait(DONE).await.map_err(replica_failed)?;
        }
        Ok(())
    }

    /// Hands the trainer's weights (those of step `step`) out to the shards.
    async fn hand_out(&mut self, trainer: &Trainer, step: u64) -> Result<(), TrainError> {
        self.settle().await?;
        let hidden = self.hidden.as_mut().expect("a team split by hidden units");
        trainer
            .params_into(&mut hidden.whole)
            .await
            .map_err(TrainError::Device)?;
        let own = hidden.shards[0].take(&hidden.whole);
        self.local.set_params(&own).map_err(TrainError::Device)?;
        for (h, shard) in self.helpers.iter_mut().zip(&hidden.shards[1..]) {
            let weights = shard.take(&hidden.whole);
            h.link_mut()
                .post_op(OP_WEIGHTS_IN, &[], &weights, step)
                .map_err(replica_failed)?;
            h.shared_wait(DONE).await.map_err(replica_failed)?;
        }
        hidden.shards_step = Some(step);
        hidden.trainer_step = step;
        Ok(())
    }

    /// Gathers the shards' weights into the trainer where they are ahead of its own. A helper
    /// that fails leaves the trainer at the last weights it holds, its step count with them.
    pub(super) async fn gather(&mut self, trainer: &mut Trainer) -> Result<(), TrainError> {
        let outcome = self.gather_ahead(trainer).await;
        if outcome.is_err() {
            let back = self.hidden().trainer_step;
            trainer.set_step(back);
        }
        outcome
    }

    async fn gather_ahead(&mut self, trainer: &mut Trainer) -> Result<(), TrainError> {
        self.settle().await?;
        let hidden = self.hidden.as_mut().expect("a team split by hidden units");
        let Some(step) = hidden.shards_step.filter(|&s| s != hidden.trainer_step) else {
            return Ok(());
        };
        self.local
            .params_into(&mut hidden.part)
            .await
            .map_err(TrainError::Device)?;
        hidden.shards[0].put(&hidden.part, &mut hidden.whole);
        for (h, shard) in self.helpers.iter_mut().zip(&hidden.shards[1..]) {
            h.link_mut()
                .post_op(OP_WEIGHTS_OUT, &[], &[], step)
                .map_err(replica_failed)?;
            h.shared_wait(DONE).await.map_err(replica_failed)?;
            h.link_mut().read_values(shard.param_count(), &mut hidden.part);
            shard.put(&hidden.part, &mut hidden.whole);
        }
        trainer.set_params(&hidden.whole).map_err(TrainError::Device)?;
        hidden.trainer_step = step;
        Ok(())
    }
}
