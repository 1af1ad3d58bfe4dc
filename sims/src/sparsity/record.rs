//! What the sparsity lab keeps of an experiment: its plan and config, every run, and the dense
//! network pruned in one shot without retraining (accuracy against sparsity, global and per
//! layer).

use serde::{Deserialize, Serialize};

use engine::data::Dataset;
use engine::error::Error;
use engine::model::Compiled;
use engine::train::{TrainConfig, Trainer};

use super::cost::{self, Cost};
use super::lottery::{Condition, LotteryPlan, SparseRun};
use super::masks::{self, Scope};
use super::structured::{prune_both, PrunedBoth};
use super::structured::{smaller_config, sparsity_of};

/// The sparsities the one-shot curve is measured at (the share pruned).
pub const ONE_SHOT: [f64; 9] = [0.0, 0.5, 0.75, 0.875, 0.9, 0.95, 0.97, 0.98, 0.99];

/// A sparsity as the page's metric names write it (`oneshot-global-87.5`, `structured-75`): a
/// percentage to a tenth, so the page and `SparsityRecord::metric` name the same points.
pub fn percent_key(sparsity: f64) -> f64 {
    (1000.0 * sparsity).round() / 10.0
}

/// The trained dense network pruned in one shot, not retrained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneShot {
    pub scope: Scope,
    pub sparsity: f64,
    pub test_accuracy: f32,
    /// The share pruned in each layer (global pruning chooses it).
    pub layer_sparsity: Vec<f64>,
}

/// Structured against unstructured pruning of the trained dense network, in one shot, at the
/// same number of weights: what each keeps of the accuracy and what each costs to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Structured {
    /// The share of weights the unstructured mask prunes; the structured one prunes as close to
    /// it as whole units (neurons or filters) allow (`structured_sparsity`).
    pub sparsity: f64,
    pub structured_sparsity: f64,
    /// The smaller network's widths (`structured::widths_of`: an MLP's layer widths, a CNN's
    /// channels, the input's first).
    pub widths: Vec<usize>,
    pub unstructured_accuracy: f32,
    pub structured_accuracy: f32,
    pub dense: Cost,
    pub csr: Cost,
    pub smaller: Cost,
    /// The forward pass over the test images, in milliseconds, of the dense network and of the
    /// smaller one, as the page timed them on its backend (None: not timed).
    #[serde(default)]
    pub ms: Option<(f64, f64)>,
    /// The same forward pass of the unstructured network stored in CSR (`engine::sparse`), in
    /// milliseconds (None: not timed, or not an MLP).
    #[serde(default)]
    pub csr_ms: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SparsityRecord {
    pub config: TrainConfig,
    pub plan: LotteryPlan,
    /// Each weighted layer's shape, input layer first ("784 → 100").
    pub layers: Vec<String>,
    pub runs: Vec<SparseRun>,
    pub one_shot: Vec<OneShot>,
    #[serde(default)]
    pub structured: Vec<Structured>,
}

impl SparsityRecord {
    pub fn new(config: TrainConfig, plan: LotteryPlan, compiled: &Compiled) -> Self {
        let layers = (compiled.layers.iter())
            .filter(|l| l.w_len > 0)
            .map(|l| match l.layer {
                engine::model::Layer::Conv2d { filters, kernel, .. } => {
                    format!("conv {kernel}×{kernel}×{filters}")
                }
                _ => format!("{} → {}", l.in_len(), l.out_len()),
            })
            .collect();
        Self {
            config,
            plan,
            layers,
            runs: Vec::new(),
            one_shot: Vec::new(),
            structured: Vec::new(),
        }
    }

    pub fn from_json(text: &str) -> Result<Self, Error> {
        crate::record::lab_file(crate::record::read_json(text, "a sparsity record")?, Self::check)
    }

    /// One row per run: its condition, round, sparsity, final test accuracy and per-layer
    /// sparsity; then one per one-shot point; then the structured rows' two accuracies.
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
            out += &format!(
                "{name},,{},{},{}\n",
                percent(o.sparsity),
                o.test_accuracy,
                layers(&o.layer_sparsity)
            );
        }
        for x in &self.structured {
            let widths = x
                .widths
                .iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
                .join("-");
            out += &format!(
                "one-shot unstructured (global),,{},{},\n",
                percent(x.sparsity),
                x.unstructured_accuracy
            );
            out += &format!(
                "one-shot structured ({widths}),,{},{},\n",
                percent(x.structured_sparsity),
                x.structured_accuracy
            );
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
        let ticket = self
            .runs
            .iter()
            .filter(|r| r.condition == Condition::Ticket)
            .max_by_key(|r| r.round)?;
        let points = |a: f32| 100.0 * a;
        let controls: Vec<(Condition, f32)> = (self.runs.iter())
            .filter(|r| {
                r.round == ticket.round && !matches!(r.condition, Condition::Ticket | Condition::Dense)
            })
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
            text += &format!(
                "; {:.1} points {} {}",
                d.abs(),
                if *d >= 0.0 { "above" } else { "below" },
                control_name(*c)
            );
        }
        let wins = points(ticket.test_accuracy - dense) >= -1.0
            && controls.iter().all(|(c, d)| {
                *d >= 1.0
                    || matches!(
                        c,
                        Condition::Rewind
                            | Condition::Finetune
                            | Condition::Set
                            | Condition::Rigl
                            | Condition::Structured
                    )
            });
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
            return self
                .runs
                .iter()
                .find(|r| r.round == round)
                .map(|r| percent(r.sparsity));
        }
        if let Some(rest) = name.strip_prefix("oneshot-") {
            let (scope, at) = rest.rsplit_once('-')?;
            let scope = match scope {
                "global" => Scope::Global,
                "per_layer" => Scope::PerLayer,
                _ => return None,
            };
            let at: f64 = at.parse().ok()?;
            let o = (self.one_shot.iter()).find(|o| o.scope == scope && percent_key(o.sparsity) == at)?;
            return Some(percent(f64::from(o.test_accuracy)));
        }
        let at = |rest: &str| -> Option<&Structured> {
            let p: f64 = rest.parse().ok()?;
            self.structured.iter().find(|x| percent_key(x.sparsity) == p)
        };
        if let Some(rest) = name.strip_prefix("unstructured-") {
            return at(rest).map(|x| percent(f64::from(x.unstructured_accuracy)));
        }
        if let Some(rest) = name.strip_prefix("structured-") {
            return at(rest).map(|x| percent(f64::from(x.structured_accuracy)));
        }
        if let Some(rest) = name.strip_prefix("csr-bytes-") {
            return at(rest).map(|x| x.csr.bytes);
        }
        if let Some(rest) = name.strip_prefix("smaller-bytes-") {
            return at(rest).map(|x| x.smaller.bytes);
        }
        if name == "dense-bytes" {
            return self.structured.first().map(|x| x.dense.bytes);
        }
        let layer: usize = name.strip_prefix("layer-pruned-")?.parse().ok()?;
        let ticket = (self.runs.iter())
            .filter(|r| r.condition == Condition::Ticket)
            .max_by_key(|r| r.round)?;
        ticket
            .layer_sparsity
            .get(layer.checked_sub(1)?)
            .map(|s| percent(*s))
    }

    pub fn run(&self, condition: Condition, round: usize) -> Option<&SparseRun> {
        self.runs
            .iter()
            .find(|r| r.condition == condition && r.round == round)
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
        Condition::Structured => "whole neurons or filters pruned once and fine-tuned",
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

/// The network `trainer` holds (the trained dense one) pruned in one shot at each of `sparsities`,
/// unstructured (global magnitude) and structured (whole neurons or filters, `structured::unit_mask`),
/// and evaluated on `test`; their costs. Empty for a network `structured` does not prune. The
/// trainer's weights are put back after.
pub async fn structured(
    trainer: &mut Trainer,
    test: &Dataset,
    sparsities: &[f64],
) -> Result<Vec<Structured>, Error> {
    let trained = trainer.params().await?;
    let compiled = trainer.compiled.clone();
    let spans = masks::weight_spans(&compiled);
    let mut out = Vec::new();
    for &sparsity in sparsities {
        let Some(PrunedBoth {
            unstructured,
            units,
            widths,
            ..
        }) = prune_both(&trained, &compiled, sparsity)
        else {
            break;
        };
        let Some(smaller) = smaller_config(&trainer.config, &compiled, &widths) else {
            break;
        };
        trainer.set_params(&masks::apply(&trained, &unstructured))?;
        let unstructured_accuracy = trainer.evaluate(test).await?.1;
        trainer.set_params(&masks::apply(&trained, &units))?;
        let structured_accuracy = trainer.evaluate(test).await?.1;
        out.push(Structured {
            sparsity: masks::sparsity(&unstructured, &spans).1,
            structured_sparsity: sparsity_of(&compiled, &widths).unwrap_or(0.0),
            widths: widths.clone(),
            unstructured_accuracy,
            structured_accuracy,
            dense: cost::dense(&compiled),
            csr: cost::csr(&compiled, &unstructured),
            smaller: cost::dense(&smaller.1),
            ms: None,
            csr_ms: None,
        });
    }
    trainer.set_params(&trained)?;
    Ok(out)
}

/// What is measured on the trained dense network `trainer` holds, after its run: the one-shot
/// curve, and structured against unstructured pruning at each of `plan`'s rounds' sparsity (the
/// page and the native test both call this).
pub async fn after_dense(
    trainer: &mut Trainer,
    test: &Dataset,
    plan: &LotteryPlan,
) -> Result<(Vec<OneShot>, Vec<Structured>), Error> {
    let shots = one_shot(trainer, test).await?;
    let at: Vec<f64> = (1..=plan.rounds).map(|k| plan.sparsity_at(k)).collect();
    Ok((shots, structured(trainer, test, &at).await?))
}

crate::run_record!(SparsityRecord, |r| r.runs.len());
