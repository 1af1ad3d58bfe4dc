//! The attention lab's settings (`/attention`): the task (copying, where a head learns to look the
//! answer up by its position; modular addition, where weight decay brings grokking), the transformer's shape, the
//! training, the weight decays compared (a run each), the example whose attention is shown, and
//! the presets a teacher starts from. `plan()` turns them into the study's plan
//! (`lab_sims::attention`).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use engine::data::sequences::modular_training_pairs;
use lab_sims::attention::{AttentionPlan, Task, COPY_TEST};

use crate::lab::LabState;
use crate::table::{field, hide_field, ranged, text, Setting, Table};

/// The presets: a name, what it shows, and its settings as a link's query (every other setting
/// at its default).
pub const PRESETS: [(&str, &str, &str); 3] = [
    (
        "lookup",
        "lookup: copying, 2 blocks (the defaults, under a minute on the CPU path)",
        "",
    ),
    (
        "grokking",
        "grokking: a + b mod 23, weight decay 1 against 0, 4,000 steps each (a few minutes)",
        "task=modular&p=23&train_fraction=0.5&width=64&heads=4&hidden=256&blocks=1&batch=256&lr=0.003&steps=4000&every=100&decays=1,0&backend=cpu",
    ),
    (
        "memorize",
        "memorizing: a + b mod 23 without weight decay, 600 steps",
        "task=modular&p=23&train_fraction=0.5&width=64&heads=4&hidden=256&blocks=1&batch=256&lr=0.001&steps=600&every=50&decays=0",
    ),
];

/// The widest model the lab trains (the `width` setting's top).
pub const MAX_WIDTH: usize = 256;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AttentionLab {
    pub task: Task,
    /// The modulus (modular) or the copied tokens' vocabulary (copy).
    pub p: usize,
    /// The share of the p² pairs trained on (modular).
    pub train_fraction: f32,
    /// Tokens copied (copy).
    pub len: usize,
    pub width: usize,
    pub heads: usize,
    pub hidden: usize,
    pub blocks: usize,
    pub batch: usize,
    /// Pre-norm blocks: a layer norm before the attention and the MLP, one before the head.
    pub layer_norm: bool,
    pub steps: usize,
    /// Steps between measurements (and redraws).
    pub every: usize,
    pub lr: f32,
    /// The weight decays compared, a run each (AdamW's λ; 0 is Adam), comma-separated.
    pub decays: String,
    pub seed: u64,
    /// The test sequence whose attention is shown.
    pub example: usize,
    pub backend: crate::lab::Backend,
    pub hide: BTreeSet<String>,
}

impl Default for AttentionLab {
    fn default() -> Self {
        Self {
            task: Task::Copy,
            p: 10,
            train_fraction: 0.5,
            len: 4,
            width: 32,
            heads: 2,
            hidden: 64,
            blocks: 2,
            batch: 64,
            layer_norm: false,
            steps: 300,
            every: 25,
            lr: 0.003,
            decays: "0".into(),
            seed: 1,
            example: 3,
            backend: crate::lab::Backend::Cpu,
            hide: BTreeSet::new(),
        }
    }
}

/// The weight decays in `text`: 1 to 3 of them in [0, 10], or why not.
pub fn parse_decays(text: &str) -> Result<Vec<f32>, crate::error::SetupError> {
    let values: Result<Vec<f32>, _> = text
        .split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect();
    match values {
        Ok(v) if (1..=3).contains(&v.len()) && v.iter().all(|d| (0.0..=10.0).contains(d)) => Ok(v),
        _ => Err(crate::error::SetupError::Expected(
            "1 to 3 weight decays from 0 to 10, such as 1, 0",
        )),
    }
}

impl AttentionLab {
    pub fn plan(&self) -> AttentionPlan {
        AttentionPlan {
            task: self.task,
            p: self.p,
            train_fraction: self.train_fraction,
            len: self.len,
            width: self.width,
            heads: self.heads,
            hidden: self.hidden,
            blocks: self.blocks,
            batch: self.batch,
            layer_norm: self.layer_norm,
            steps: self.steps,
            every: self.every,
            lr: self.lr,
            decays: parse_decays(&self.decays).unwrap_or_else(|_| vec![0.0]),
            seed: self.seed,
            example: self.example,
        }
    }

    /// The preset called `name`'s settings (None: no such preset).
    pub fn preset(name: &str) -> Option<Self> {
        let (_, _, query) = PRESETS.iter().find(|(n, _, _)| *n == name)?;
        Some(Self::from_query(query).0)
    }

    /// The test set's size, which bounds the example.
    fn test_rows(&self) -> usize {
        match self.task {
            Task::Copy | Task::Sort => COPY_TEST,
            Task::Modular => self.p * self.p - modular_training_pairs(self.p, self.train_fraction),
        }
    }
}

impl LabState for AttentionLab {
    const LAB: &'static str = "attention";
    const VERSION: u32 = 1;
}

/// One row per setting; a control's name is its test id without `attn-`.
impl Table for AttentionLab {
    const SETTINGS: &'static [Setting<Self>] = &[
        field!("task"),
        ranged!("p", p, 2, 113),
        ranged!("train_fraction", train_fraction, 0.1, 0.9),
        ranged!("len", len, 2, 16),
        ranged!("width", width, 4, MAX_WIDTH),
        ranged!("heads", heads, 1, 4),
        ranged!("hidden", hidden, 4, 1024),
        ranged!("blocks", blocks, 1, 2),
        ranged!("batch", batch, 8, 512),
        field!("layer_norm"),
        ranged!("steps", steps, 1, 50_000),
        ranged!("every", every, 1, 5_000),
        ranged!("lr", lr, 1e-5, 0.1),
        text!("decays", Some("decays"), decays, 40, parse_decays),
        ranged!("seed", seed, 0, crate::lab::MAX_SEED),
        ranged!("example", example, 0, 12_768),
        field!("backend"),
    ];
    const OTHER_CONTROLS: &'static [&'static str] = &["run", "cancel", "preset", "show", "split-check"];
    const SHARED_CONTROLS: &'static [&'static str] = crate::table::RECORDED_RUN_CONTROLS;

    hide_field!();

    fn relate(&mut self, notices: &mut Vec<String>) {
        if !self.width.is_multiple_of(self.heads) {
            // Up to the next multiple, or down where that would leave the width's range (256
            // with 3 heads: 255, not 258, after which every edit would be refused).
            let up = self.width.div_ceil(self.heads) * self.heads;
            let width = if up <= MAX_WIDTH { up } else { self.width / self.heads * self.heads };
            notices.push(format!(
                "width={} does not split into {} heads: using {width}",
                self.width, self.heads
            ));
            self.width = width;
        }
        let rows = self.test_rows();
        if rows == 0 {
            notices.push(format!(
                "train_fraction={} leaves no pair of p={} to test: using 0.5",
                self.train_fraction, self.p
            ));
            self.train_fraction = 0.5;
        }
        let rows = self.test_rows();
        if self.example >= rows {
            notices.push(format!(
                "example={} is past the {rows} test sequences: using {}",
                self.example,
                rows - 1
            ));
            self.example = rows - 1;
        }
    }
}

crate::lab::runs_on_field!(AttentionLab);

/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = AttentionLab;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_width_rounded_to_the_heads_stays_in_its_range() {
        let (lab, notices) = AttentionLab::from_query("width=256&heads=3");
        assert_eq!(lab.width, 255, "{notices:?}");
        assert_eq!(notices, ["width=256 does not split into 3 heads: using 255"]);
        assert_eq!(crate::table::refusal(&lab), None, "the next edit is not refused");
        assert_eq!(AttentionLab::from_query("width=5&heads=3").0.width, 6);
    }

    #[test]
    fn presets_load_without_a_notice() {
        for (name, _, query) in PRESETS {
            let (lab, notices) = AttentionLab::from_query(query);
            assert!(notices.is_empty(), "{name}: {notices:?}");
            assert_eq!(AttentionLab::preset(name), Some(lab));
        }
        let grok = AttentionLab::preset("grokking").unwrap();
        assert_eq!((grok.task, grok.p, grok.plan().decays), (Task::Modular, 23, vec![1.0, 0.0]));
    }

    #[test]
    fn bad_values_are_refused_or_related_with_a_reason() {
        assert_eq!(parse_decays("1, 0").unwrap(), vec![1.0, 0.0]);
        assert!(parse_decays("").is_err() && parse_decays("1,2,3,4").is_err() && parse_decays("-1").is_err());
        let (lab, notices) = AttentionLab::from_query("decays=abc&width=30&heads=4&task=modular&p=5&example=99");
        assert_eq!((lab.decays.as_str(), lab.width), ("0", 32));
        // 25 pairs, 13 trained (12.5 rounded), 12 tested: the last is the example.
        assert_eq!(lab.example, 11);
        assert_eq!(notices.len(), 3, "{notices:?}");
    }
}
