//! What the sparsity lab keeps of an experiment: its plan and config, every run, and the dense
//! network pruned in one shot without retraining (accuracy against sparsity, global and per
//! layer).

use serde::{Deserialize, Serialize};

use engine::data::Dataset;
use engine::error::Error;
use engine::model::Compiled;
use engine::train::{TrainConfig, Trainer};

use super::lottery::{Condition, LotteryPlan, SparseRun};
use super::masks::{self, Scope};

/// The sparsities the one-shot curve is measured at (the share pruned).
pub const ONE_SHOT: [f64; 9] = [0.0, 0.5, 0.75, 0.875, 0.9, 0.95, 0.97, 0.98, 0.99];

/// The trained dense network pruned in one shot, not retrained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneShot {
    pub scope: Scope,
    pub sparsity: f64,
    pub test_accuracy: f32,
    /// The share pruned in each layer (global pruning chooses it).
    pub layer_sparsity: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SparsityRecord {
    pub config: TrainConfig,
    pub plan: LotteryPlan,
    /// Each weighted layer's shape, input layer first ("784 → 100").
    pub layers: Vec<String>,
    pub runs: Vec<SparseRun>,
    pub one_shot: Vec<OneShot>,
}

impl SparsityRecord {
    pub fn new(config: TrainConfig, plan: LotteryPlan, compiled: &Compiled) -> Self {
        let layers = (compiled.layers.iter())
            .filter(|l| l.w_len > 0)
            .map(|l| format!("{} → {}", l.in_len(), l.out_len()))
            .collect();
        Self {
            config,
            plan,
            layers,
            runs: Vec::new(),
            one_shot: Vec::new(),
        }
    }

    pub fn from_json(text: &str) -> Result<Self, Error> {
        serde_json::from_str(text).map_err(|e| Error::Config(format!("not a sparsity record: {e}")))
    }

    /// One row per run: its condition, round, sparsity, final test accuracy and per-layer
    /// sparsity; then one per one-shot point.
    pub fn csv(&self) -> String {
        let percent = |v: f64| format!("{:.3}", 100.0 * v);
        let layers = |l: &[f64]| l.iter().map(|v| percent(*v)).collect::<Vec<_>>().join(" ");
        let mut out = String::from("condition,round,sparsity_percent,test_accuracy,layer_sparsity_percent\n");
        for r in &self.runs {
            out += &format!(
                "{},{},{},{},{}\n",
                r.condition.name(),
                r.round,
                percent(r.sparsity),
                r.test_accuracy,
                layers(&r.layer_sparsity)
            );
        }
        for o in &self.one_shot {
            let name = match o.scope {
                Scope::Global => "one-shot global, not retrained",
                Scope::PerLayer => "one-shot per layer, not retrained",
            };
            out += &format!("{name},,{},{},{}\n", percent(o.sparsity), o.test_accuracy, layers(&o.layer_sparsity));
        }
        out
    }

    /// What the last round with a ticket shows, in a sentence (None before one): the ticket
    /// against the dense run and against each control, in points of test accuracy. A ticket
    /// "wins" when it is within a point of the dense run and a point or more above each of the
    /// paper's controls, reinit and random (Frankle & Carbin's criterion, with a point's margin
    /// for this test set's noise); the other conditions are compared, not required.
    pub fn verdict(&self) -> Option<String> {
        let dense = self.run(Condition::Dense, 0)?.test_accuracy;
        let ticket = self.runs.iter().filter(|r| r.condition == Condition::Ticket).max_by_key(|r| r.round)?;
        let points = |a: f32| 100.0 * a;
        let controls: Vec<(Condition, f32)> = (self.runs.iter())
            .filter(|r| r.round == ticket.round && !matches!(r.condition, Condition::Ticket | Condition::Dense))
            .map(|r| (r.condition, points(ticket.test_accuracy - r.test_accuracy)))
            .collect();
        let mut text = format!(
            "At {:.1} % of the weights pruned, the ticket reaches {:.1} % test accuracy ({:+.1} points against the dense network's {:.1} %)",
            100.0 * ticket.sparsity,
            points(ticket.test_accuracy),
            points(ticket.test_accuracy - dense),
            points(dense)
        );
        for (c, d) in &controls {
            text += &format!("; {:.1} points {} {}", d.abs(), if *d >= 0.0 { "above" } else { "below" }, control_name(*c));
        }
        let wins = points(ticket.test_accuracy - dense) >= -1.0 && controls.iter().all(|(c, d)| *d >= 1.0 || matches!(c, Condition::Rewind | Condition::Finetune | Condition::Set | Condition::Rigl));
        text += if wins {
            ": a winning ticket — the mask with its initial values trains as well as the whole network."
        } else {
            ": not a winning ticket at this sparsity and budget (see the chart for where it holds)."
        };
        Some(text)
    }

    /// A metric the page publishes, by its name (`acc-ticket-3`, `sparsity-3`,
    /// `oneshot-global-97`, `layer-pruned-2`), in percent: what a lesson reads.
    pub fn metric(&self, name: &str) -> Option<f64> {
        let percent = |v: f64| 100.0 * v;
        if let Some(rest) = name.strip_prefix("acc-") {
            let (condition, round) = rest.rsplit_once('-')?;
            let run = self.run(Condition::parse(condition)?, round.parse().ok()?)?;
            return Some(percent(f64::from(run.test_accuracy)));
        }
        if let Some(round) = name.strip_prefix("sparsity-") {
            let round: usize = round.parse().ok()?;
            return self.runs.iter().find(|r| r.round == round).map(|r| percent(r.sparsity));
        }
        if let Some(rest) = name.strip_prefix("oneshot-") {
            let (scope, at) = rest.rsplit_once('-')?;
            let scope = match scope {
                "global" => Scope::Global,
                "per_layer" => Scope::PerLayer,
                _ => return None,
            };
            let at: f64 = at.parse().ok()?;
            let o = (self.one_shot.iter()).find(|o| o.scope == scope && (percent(o.sparsity) - at).abs() < 0.05)?;
            return Some(percent(f64::from(o.test_accuracy)));
        }
        let layer: usize = name.strip_prefix("layer-pruned-")?.parse().ok()?;
        let ticket = (self.runs.iter()).filter(|r| r.condition == Condition::Ticket).max_by_key(|r| r.round)?;
        ticket.layer_sparsity.get(layer.checked_sub(1)?).map(|s| percent(*s))
    }

    pub fn run(&self, condition: Condition, round: usize) -> Option<&SparseRun> {
        self.runs.iter().find(|r| r.condition == condition && r.round == round)
    }

    /// The conditions the runs trained, in the order first met (dense first).
    pub fn conditions(&self) -> Vec<Condition> {
        let mut out: Vec<Condition> = Vec::new();
        for r in &self.runs {
            if !out.contains(&r.condition) {
                out.push(r.condition);
            }
        }
        out
    }
}

fn control_name(c: Condition) -> &'static str {
    match c {
        Condition::Reinit => "the same mask from fresh random weights",
        Condition::Random => "a random mask of the same sparsity",
        Condition::Rewind => "the ticket rewound to an early step",
        Condition::Finetune => "the dense network pruned once and fine-tuned",
        Condition::Set => "SET (sparse from the start, grown at random)",
        Condition::Rigl => "RigL (sparse from the start, grown by gradient)",
        Condition::Dense | Condition::Ticket => "",
    }
}

/// The network `trainer` holds (the trained dense one) pruned to each of `ONE_SHOT`'s
/// sparsities, globally and per layer, and evaluated on `test` without retraining; the trainer's
/// weights are put back after.
pub async fn one_shot(trainer: &mut Trainer, test: &Dataset) -> Result<Vec<OneShot>, Error> {
    let trained = trainer.params().await?;
    let spans = masks::weight_spans(&trainer.compiled);
    let dense = masks::dense(trained.len());
    let mut out = Vec::new();
    for scope in [Scope::Global, Scope::PerLayer] {
        for sparsity in ONE_SHOT {
            let mask = masks::magnitude(&trained, &dense, &spans, sparsity, scope);
            trainer.set_params(&masks::apply(&trained, &mask))?;
            let (layer_sparsity, sparsity) = masks::sparsity(&mask, &spans);
            out.push(OneShot {
                scope,
                sparsity,
                test_accuracy: trainer.evaluate(test).await?.1,
                layer_sparsity,
            });
        }
    }
    trainer.set_params(&trained)?;
    Ok(out)
}
