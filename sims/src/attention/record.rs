//! What the attention lab keeps of an experiment: its plan, the example whose attention is
//! shown, and per weight decay the measurements over training and the example's attention
//! patterns at the last measurement.

use serde::{Deserialize, Serialize};

use engine::error::Error;

use super::{decay_key, AttentionPlan, Task};

/// Training accuracy that counts as fitted, and test accuracy that counts as generalized (the
/// grokking step), as shares.
pub const FITTED: f32 = 0.99;
pub const GENERALIZED: f32 = 0.95;

/// One measurement, after `step` updates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub step: usize,
    /// Mean cross-entropy (nats) over the training rows measured, and the test rows.
    pub train_loss: f32,
    pub train_accuracy: f32,
    pub test_accuracy: f32,
    pub test_loss: f32,
    /// ‖θ‖₂ over every parameter.
    pub weight_norm: f64,
    /// Copy: the mean over test sequences of the largest weight a last-block head puts, from the
    /// last position, on the position of the token to copy or write next (None: modular).
    pub answer_attention: Option<f64>,
}

/// One weight decay's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttentionRun {
    pub decay: f32,
    pub points: Vec<Point>,
    /// The example's attention at the last measurement: `blocks × heads` squares, `seq × seq`
    /// (query rows, key columns), block 0's heads first.
    pub patterns: Vec<Vec<f32>>,
    /// Stopped before its last step (cancelled, or a loss that was not finite).
    #[serde(default)]
    pub stopped: Option<String>,
}

impl AttentionRun {
    pub fn last(&self) -> Option<&Point> {
        self.points.last()
    }

    /// The first measured step with training accuracy at `FITTED` or more.
    pub fn fit_step(&self) -> Option<usize> {
        self.points
            .iter()
            .find(|p| p.train_accuracy >= FITTED)
            .map(|p| p.step)
    }

    /// The first measured step with test accuracy at `GENERALIZED` or more.
    pub fn grok_step(&self) -> Option<usize> {
        self.points
            .iter()
            .find(|p| p.test_accuracy >= GENERALIZED)
            .map(|p| p.step)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttentionRecord {
    pub plan: AttentionPlan,
    /// The example's tokens and the answer it asks for.
    pub example: Vec<usize>,
    pub answer: usize,
    pub runs: Vec<AttentionRun>,
}

impl AttentionRecord {
    pub fn new(plan: AttentionPlan, example: Vec<usize>, answer: usize) -> Self {
        Self {
            plan,
            example,
            answer,
            runs: Vec::new(),
        }
    }

    pub fn from_json(text: &str) -> Result<Self, Error> {
        crate::record::lab_file(
            crate::record::read_json(text, "an attention record")?,
            Self::check,
        )
    }

    pub fn run(&self, decay: f32) -> Option<&AttentionRun> {
        self.runs.iter().find(|r| r.decay == decay)
    }

    /// One row per measurement of every run.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "weight_decay,step,train_loss,train_accuracy,test_accuracy,test_loss,weight_norm,answer_attention\n",
        );
        for r in &self.runs {
            for p in &r.points {
                let answer = p.answer_attention.map_or(String::new(), |a| a.to_string());
                out += &format!(
                    "{},{},{},{},{},{},{},{answer}\n",
                    r.decay,
                    p.step,
                    p.train_loss,
                    p.train_accuracy,
                    p.test_accuracy,
                    p.test_loss,
                    p.weight_norm
                );
            }
        }
        out
    }

    /// The page's metrics by name (`test-acc-1`, `fit-step-0`, `grok-step-1`, `norm-1`,
    /// `answer-attention`), in percent for accuracies, for lessons and scripts.
    pub fn metric(&self, name: &str) -> Option<f64> {
        if name == "answer-attention" {
            let last = self.runs.last()?.last()?;
            return last.answer_attention.map(|a| 100.0 * a);
        }
        let run = self
            .runs
            .iter()
            .find(|r| name.ends_with(&format!("-{}", decay_key(r.decay))))?;
        let kind = name.strip_suffix(&format!("-{}", decay_key(run.decay)))?;
        let last = run.last()?;
        match kind {
            "train-acc" => Some(100.0 * f64::from(last.train_accuracy)),
            "test-acc" => Some(100.0 * f64::from(last.test_accuracy)),
            "norm" => Some(last.weight_norm),
            "fit-step" => run.fit_step().map(|s| s as f64),
            "grok-step" => run.grok_step().map(|s| s as f64),
            _ => None,
        }
    }

    /// The lesson in a sentence, once a run has ended.
    pub fn verdict(&self) -> Option<String> {
        let first = self.runs.first()?;
        let last = first.last()?;
        let percent = |a: f32| format!("{:.1} %", 100.0 * a);
        Some(match self.plan.task {
            Task::Copy | Task::Sort => format!(
                "After {} steps the model predicts {} of unseen {}; its last block's heads put {:.0} % of their attention, from the last position, on the token {}.",
                last.step,
                percent(last.test_accuracy),
                if self.plan.task == Task::Copy { "copies" } else { "sorts" },
                100.0 * last.answer_attention.unwrap_or(0.0),
                if self.plan.task == Task::Copy { "to copy" } else { "to write next" },
            ),
            Task::Modular => {
                let one = |r: &AttentionRun| {
                    let fit = r.fit_step().map_or("never fitted its training pairs".into(), |s| format!("fitted its training pairs by step {s}"));
                    let grok = r.grok_step().map_or_else(
                        || format!("test accuracy {} at the end", percent(r.last().map_or(0.0, |p| p.test_accuracy))),
                        |s| format!("generalized (test ≥ 95 %) at step {s}"),
                    );
                    format!("weight decay {}: {fit}, {grok}", r.decay)
                };
                let parts: Vec<String> = self.runs.iter().map(one).collect();
                format!("{}.", parts.join("; "))
            }
        })
    }
}

crate::run_record!(AttentionRecord, |r| r.runs.len());
