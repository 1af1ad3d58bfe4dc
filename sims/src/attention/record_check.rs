//! What an attention results file must be before the page draws it: a model the lab can build
//! (heads that divide the width, a sequence of at least one token), within the bounds of what the
//! lab writes, and consistent where the views index one part by another (an example of the
//! model's sequence length, a pattern square per block and head of `seq × seq` values). A file
//! beyond them was not written by the lab: drawing it divided by zero heads or by an empty
//! sequence, or indexed past the example.

use super::record::AttentionRecord;
use crate::record::{within, RecordFault};

/// The most a record the lab writes holds, with room to spare; `state`'s settings table bounds
/// the lab well inside them (`state/src/labs/attention`).
pub const MOST_WIDTH: usize = 1024;
pub const MOST_HEADS: usize = 16;
pub const MOST_BLOCKS: usize = 8;
pub const MOST_SEQ: usize = 256;
pub const MOST_VOCAB: usize = 1024;
pub const MOST_RUNS: usize = 8;
pub const MOST_POINTS: usize = 100_000;

impl AttentionRecord {
    /// Why this record cannot be the lab's own, or nothing.
    pub fn check(&self) -> Result<(), RecordFault> {
        let p = &self.plan;
        within("heads", p.heads, 1, MOST_HEADS)?;
        within("a width", p.width, p.heads, MOST_WIDTH)?;
        if !p.width.is_multiple_of(p.heads) {
            return Err(format!("a width of {} does not split into {} heads", p.width, p.heads).into());
        }
        within("blocks", p.blocks, 1, MOST_BLOCKS)?;
        within("tokens", p.p, 2, MOST_VOCAB)?;
        let seq = p.seq();
        within("a sequence length", seq, 1, MOST_SEQ)?;
        within("runs", self.runs.len(), 0, MOST_RUNS)?;
        if self.example.len() != seq {
            return Err(format!("an example of {seq} tokens, not {}", self.example.len()).into());
        }
        if let Some(t) = self.example.iter().chain([&self.answer]).find(|t| **t > p.p) {
            return Err(format!("tokens up to {}, not {t}", p.p).into());
        }
        for (i, r) in self.runs.iter().enumerate() {
            let at = |why: RecordFault| why.at("run", i + 1);
            within("measurements", r.points.len(), 0, MOST_POINTS).map_err(at)?;
            let squares = r.patterns.len();
            if squares != 0 && squares != p.blocks * p.heads {
                return Err(at(format!(
                    "{} attention squares (blocks × heads), not {squares}",
                    p.blocks * p.heads
                )
                .into()));
            }
            if let Some(s) = r.patterns.iter().find(|s| s.len() != seq * seq) {
                return Err(at(format!(
                    "squares of {} values ({seq} × {seq}), not {}",
                    seq * seq,
                    s.len()
                )
                .into()));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::record::{AttentionRecord, AttentionRun};
    use super::super::{AttentionPlan, Task};

    /// The lab's defaults as a record: copying 4 tokens of 10, 2 blocks of 2 heads.
    fn record() -> AttentionRecord {
        let plan = AttentionPlan {
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
            decays: vec![0.0],
            seed: 1,
            example: 3,
        };
        let mut r = AttentionRecord::new(plan, vec![1, 2, 3, 4, 10, 1, 2, 3], 4);
        r.runs.push(AttentionRun {
            decay: 0.0,
            points: Vec::new(),
            patterns: vec![vec![0.125; 64]; 4],
            stopped: None,
        });
        r
    }

    fn read(r: &AttentionRecord) -> Result<AttentionRecord, String> {
        AttentionRecord::from_json(&serde_json::to_string(r).unwrap()).map_err(|e| e.to_string())
    }

    /// Files that passed the shape check and then divided by zero or indexed out of bounds in
    /// the page's drawing (issue 80), each refused with its reason.
    #[test]
    fn a_file_the_lab_could_not_have_written_is_refused_with_why() {
        assert_eq!(read(&record()), Ok(record()));
        let refused = |change: fn(&mut AttentionRecord), why: &str| {
            let mut r = record();
            change(&mut r);
            let err = read(&r).expect_err(why);
            assert!(err.contains(why), "{err} (expected {why})");
        };
        refused(|r| r.plan.heads = 0, "heads from 1 to 16, not 0");
        refused(|r| r.plan.width = 31, "a width of 31 does not split into 2 heads");
        refused(|r| r.plan.len = 0, "a sequence length from 1 to 256, not 0");
        refused(|r| r.example.push(1), "an example of 8 tokens, not 9");
        refused(|r| r.example[0] = 99, "tokens up to 10, not 99");
        refused(
            |r| r.runs[0].patterns.pop().map_or((), drop),
            "4 attention squares (blocks × heads), not 3",
        );
        refused(
            |r| r.runs[0].patterns[1].truncate(10),
            "squares of 64 values (8 × 8), not 10",
        );
        refused(|r| r.plan.blocks = 1_000_000, "blocks from 1 to 8, not 1000000");
    }
}
