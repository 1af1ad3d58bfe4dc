//! Iterative magnitude pruning and the lottery ticket hypothesis (Frankle & Carbin 2019;
//! rewinding to an early step, Frankle et al. 2020; docs/theory.md §10.2). A dense network is
//! trained, its smallest weights pruned, and the survivors reset to their initial values and
//! trained again — round after round, each round pruning a share of what is left. At every
//! round the same mask is also trained from fresh random weights, and a random mask of the same
//! per-layer sparsity from the original weights: the paper's controls. Every run is a masked
//! trainer of the same config, so all of them see the same batches in the same order.

use serde::{Deserialize, Serialize};

use engine::data::Dataset;
use engine::error::Error;
use engine::train::Trainer;

use engine::rng::Rng;

use super::dynamic::{self, Grow};
use super::masks::{self, Scope};
use super::structured::{kept_widths, unit_mask, STRUCTURED_NETWORKS};

/// Salts of the seeds the controls draw from (a fixed offset from the run's seed).
const REINIT_SALT: u64 = 0x5EED_0F2E;
const RANDOM_MASK_SALT: u64 = 0x5EED_0F4A;
const GROW_SALT: u64 = 0x5EED_0F6B;

/// The share of a layer's active weights the first update of SET and RigL drops (RigL's 0.3,
/// decayed by a cosine to 0 at three quarters of the run).
pub const DROP_FRACTION: f64 = 0.3;

/// How a round's network starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// Round 0: every weight, from the initial values.
    Dense,
    /// The pruned mask, the survivors rewound to their initial values: the winning ticket.
    Ticket,
    /// The pruned mask, the survivors rewound to their values at an early step of the dense run
    /// (which then trains the steps that remain, on the batches that remain).
    Rewind,
    /// The pruned mask from fresh random weights.
    Reinit,
    /// A random mask with the same sparsity in every layer, from the initial values.
    Random,
    /// Pruning after training in one shot: the trained dense network pruned by magnitude to the
    /// round's sparsity, then fine-tuned from its trained values.
    Finetune,
    /// Sparse from the start (SET): a random mask with the ticket's count in every layer, from
    /// the initial values, its smallest weights dropped and as many grown at random as it trains.
    Set,
    /// Sparse from the start (RigL): as `Set`, growing where the gradient is largest.
    Rigl,
    /// Structured pruning after training: the trained dense network's weakest whole neurons or
    /// filters removed, as many as keep about the round's share of weights
    /// (`structured::kept_widths`), then fine-tuned — training the smaller dense network.
    Structured,
}

impl Condition {
    pub fn name(self) -> &'static str {
        match self {
            Condition::Dense => "dense",
            Condition::Ticket => "ticket",
            Condition::Rewind => "rewind",
            Condition::Reinit => "reinit",
            Condition::Random => "random",
            Condition::Finetune => "finetune",
            Condition::Set => "set",
            Condition::Rigl => "rigl",
            Condition::Structured => "structured",
        }
    }
    pub fn parse(name: &str) -> Option<Self> {
        [
            Self::Dense,
            Self::Ticket,
            Self::Rewind,
            Self::Reinit,
            Self::Random,
            Self::Finetune,
            Self::Set,
            Self::Rigl,
            Self::Structured,
        ]
        .into_iter()
        .find(|c| c.name() == name)
    }
}

/// What the experiment does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LotteryPlan {
    /// Rounds of pruning after the dense run.
    pub rounds: usize,
    /// The share of the remaining weights each round prunes.
    pub prune: f64,
    pub scope: Scope,
    /// Steps every run trains (a rewound run: the steps after its rewind point).
    pub steps: u64,
    /// Test accuracy every this many steps (and at the end).
    pub eval_every: u64,
    /// The dense run's step a `Rewind` run starts from.
    pub rewind_step: u64,
    /// The conditions trained at every round, `Ticket` among them (it carries the pruning on).
    pub conditions: Vec<Condition>,
    pub seed: u64,
}

impl LotteryPlan {
    /// The share of weights pruned after `round` rounds: 1 − (1 − p)^round.
    pub fn sparsity_at(&self, round: usize) -> f64 {
        1.0 - (1.0 - self.prune).powi(round as i32)
    }

    /// The runs in the order they train: the dense one, then each round's conditions, the
    /// ticket first (its trained weights give the next round's mask).
    pub fn jobs(&self) -> Vec<(usize, Condition)> {
        let mut order: Vec<Condition> = self
            .conditions
            .iter()
            .copied()
            .filter(|c| *c != Condition::Dense)
            .collect();
        order.sort_by_key(|c| *c != Condition::Ticket);
        order.dedup();
        std::iter::once((0, Condition::Dense))
            .chain((1..=self.rounds).flat_map(|r| order.iter().map(move |c| (r, *c))))
            .collect()
    }
}

/// One trained run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SparseRun {
    pub round: usize,
    pub condition: Condition,
    /// The share of weights pruned (biases aside), overall and per layer.
    pub sparsity: f64,
    pub layer_sparsity: Vec<f64>,
    /// (step, test accuracy), from step 0.
    pub curve: Vec<(u64, f32)>,
    pub test_accuracy: f32,
    /// Kept weights of the first layer per input (for images: per pixel).
    pub input_kept: Vec<u32>,
}

impl SparseRun {
    pub fn label(&self) -> String {
        format!("{} {:.1} %", self.condition.name(), 100.0 * self.sparsity)
    }
}

/// What carries from run to run: the initial weights, the early step's, and each round's mask.
#[derive(Clone, Debug, Default)]
pub struct Carry {
    pub init: Vec<f32>,
    pub rewind: Option<Vec<f32>>,
    /// Round r's mask at index r (round 0: dense).
    pub masks: Vec<Vec<f32>>,
    /// The dense run's trained weights.
    pub trained: Option<Vec<f32>>,
}

/// Kept first-layer weights per input, for a dense first layer (`W[o·in + j]`).
pub fn input_kept(trainer: &Trainer, mask: &[f32]) -> Vec<u32> {
    let Some(first) = trainer.compiled.layers.iter().find(|l| l.w_len > 0) else {
        return Vec::new();
    };
    if !matches!(first.layer, engine::model::Layer::Dense { .. }) {
        return Vec::new();
    }
    let inputs = first.in_len();
    let mut kept = vec![0u32; inputs];
    for (k, m) in mask[first.w_off..first.w_off + first.w_len].iter().enumerate() {
        kept[k % inputs] += u32::from(*m != 0.0);
    }
    kept
}

/// Trains run `job` of `plan` on `trainer` (a fresh trainer of the plan's config, made with
/// `TrainConfig::masked`), evaluating on `test`; `progress(steps done)` is awaited after every
/// call of at most `chunk` steps and stops the run by giving false (None is returned).
pub async fn run<F: std::future::Future<Output = bool>>(
    trainer: &mut Trainer,
    plan: &LotteryPlan,
    (round, condition): (usize, Condition),
    carry: &mut Carry,
    (test, chunk): (&Dataset, usize),
    mut progress: impl FnMut(u64) -> F,
) -> Result<Option<SparseRun>, Error> {
    let n = trainer.compiled.n_params;
    let spans = masks::weight_spans(&trainer.compiled);
    if carry.init.is_empty() {
        carry.init = trainer.params().await?;
        carry.masks = vec![masks::dense(n)];
    }
    let mask = carry
        .masks
        .get(round)
        .cloned()
        .ok_or_else(|| Error::Config(format!("round {round} comes before its ticket")))?;
    let (start, mask) = match condition {
        Condition::Dense | Condition::Ticket => (carry.init.clone(), mask),
        Condition::Rewind => {
            let w = carry.rewind.clone().unwrap_or_else(|| carry.init.clone());
            (w, mask)
        }
        Condition::Reinit => {
            let fresh =
                trainer
                    .spec
                    .init_with(&trainer.compiled, plan.seed ^ REINIT_SALT, trainer.config.init);
            (fresh, mask)
        }
        Condition::Random | Condition::Set | Condition::Rigl => (
            carry.init.clone(),
            masks::random_like(&mask, &spans, plan.seed ^ RANDOM_MASK_SALT ^ round as u64),
        ),
        Condition::Finetune => {
            let trained = carry
                .trained
                .clone()
                .ok_or_else(|| Error::Config("fine-tuning comes after the dense run".into()))?;
            let dense = masks::dense(n);
            let oneshot = masks::magnitude(&trained, &dense, &spans, plan.sparsity_at(round), plan.scope);
            (trained, oneshot)
        }
        Condition::Structured => {
            let trained = carry
                .trained
                .clone()
                .ok_or_else(|| Error::Config("structured pruning comes after the dense run".into()))?;
            let units = kept_widths(&trainer.compiled, plan.sparsity_at(round))
                .and_then(|widths| unit_mask(&trained, &trainer.compiled, &widths))
                .ok_or_else(|| Error::Config(STRUCTURED_NETWORKS.into()))?;
            (trained, units.0)
        }
    };
    trainer.set_params(&start)?;
    trainer.set_mask(&mask).await?;
    let dynamic = match condition {
        Condition::Set => Some(Grow::Random),
        Condition::Rigl => Some(Grow::Gradient),
        _ => None,
    };
    let (mut mask, mut rng) = (mask, Rng::new(plan.seed ^ GROW_SALT ^ round as u64));
    let (update_every, update_end) = dynamic::schedule(plan.steps);
    // A rewound run trains on the batches the dense run had left.
    let skip = if condition == Condition::Rewind {
        plan.rewind_step.min(plan.steps)
    } else {
        0
    };
    for _ in 0..skip {
        trainer.next_batch_rows();
    }
    let steps = plan.steps - skip;
    let mut curve = vec![(0, trainer.evaluate(test).await?.1)];
    let mut done = 0;
    while done < steps {
        // Calls end at evaluations and at the rewind point.
        let mut next = (done + chunk.max(1) as u64).min(steps);
        let eval = (done / plan.eval_every + 1) * plan.eval_every;
        next = next.min(eval);
        if condition == Condition::Dense && done < plan.rewind_step {
            next = next.min(plan.rewind_step);
        }
        if dynamic.is_some() {
            next = next.min((done / update_every + 1) * update_every);
        }
        // A divergence or a lost device keeps its own error (`From<TrainError>`).
        trainer.train((next - done) as usize).await?;
        done = next;
        if condition == Condition::Dense && done == plan.rewind_step {
            carry.rewind = Some(trainer.params().await?);
        }
        if let Some(grow) = dynamic.filter(|_| done % update_every == 0 && done < update_end) {
            let params = trainer.params().await?;
            // RigL's gradient: the dense gradient on a fixed batch (the first rows), so the
            // training's own batches stay those of every other run.
            let grads = match grow {
                Grow::Gradient => {
                    let rows: Vec<u32> = (0..trainer.config.batch as u32).collect();
                    Some(trainer.loss_and_gradient(&rows).await?.1)
                }
                Grow::Random => None,
            };
            let fraction = dynamic::drop_fraction(DROP_FRACTION, done, update_end);
            mask = dynamic::update(&params, grads.as_deref(), &mask, &spans, fraction, &mut rng);
            trainer.set_mask(&mask).await?;
        }
        if done % plan.eval_every == 0 || done == steps {
            curve.push((done, trainer.evaluate(test).await?.1));
        }
        if !progress(done).await {
            return Ok(None);
        }
    }
    if matches!(condition, Condition::Dense | Condition::Ticket) && carry.masks.len() == round + 1 {
        let trained = trainer.params().await?;
        if condition == Condition::Dense {
            carry.trained = Some(trained.clone());
        }
        let next = masks::magnitude(&trained, &mask, &spans, plan.sparsity_at(round + 1), plan.scope);
        carry.masks.push(next);
    }
    let (layer_sparsity, sparsity) = masks::sparsity(&mask, &spans);
    Ok(Some(SparseRun {
        round,
        condition,
        sparsity,
        layer_sparsity,
        test_accuracy: curve.last().map_or(0.0, |c| c.1),
        curve,
        input_kept: input_kept(trainer, &mask),
    }))
}
