//! What a parallelism results file must be before the page draws it: within what the lab itself
//! can write (its settings table's bounds) and consistent where the views index one part by
//! another. A file beyond them was not written by the lab, and drawing it could panic, take the
//! tab's memory (a timeline of 10⁹ stages) or freeze it (the trade of checkpointing is quadratic
//! in layers).

use super::record::ParallelismRecord;
use crate::record::RecordFault;

/// The most a record the lab writes holds; `state/tests/parallelism_lab.rs` checks them against
/// the settings table. Layers: 32 hidden dense + ReLU pairs and the output layer.
pub const MOST_LAYERS: usize = 65;
/// Devices of a layout, and pipeline stages (one device each).
pub const MOST_DEVICES: usize = 64;
pub const MOST_MICRO: usize = 64;
/// Layouts a run compares (the named ones and a searched best, with room to spare).
pub const MOST_LAYOUTS: usize = 16;
pub const MOST_STEPS: usize = 20_000;

impl ParallelismRecord {
    /// Why this record cannot be the lab's own, or nothing.
    pub fn check(&self) -> Result<(), RecordFault> {
        let layers = self.profile.layers.len();
        if !(1..=MOST_LAYERS).contains(&layers) {
            return Err(format!("a profile of 1 to {MOST_LAYERS} layers, not {layers}").into());
        }
        if self.steps > MOST_STEPS {
            return Err(format!("at most {MOST_STEPS} steps, not {}", self.steps).into());
        }
        let most = |what: &str, n: usize, max: usize| {
            if n > max {
                Err(format!("at most {max} {what}, not {n}").into())
            } else {
                Ok(())
            }
        };
        most("layouts", self.estimates.len(), MOST_LAYOUTS)?;
        most("runs", self.runs.len(), MOST_LAYOUTS)?;
        most("tensor-parallel checks", self.tensor.len(), MOST_LAYOUTS)?;
        for (i, e) in self.estimates.iter().enumerate() {
            let at = |why: RecordFault| why.at("layout", i + 1);
            let l = &e.layout;
            for (what, n, max) in [
                ("replicas", l.data, MOST_DEVICES),
                ("stages", l.stages, MOST_DEVICES),
                ("micro-batches", l.micro, MOST_MICRO),
                ("devices", e.devices.len(), MOST_DEVICES),
                ("stage ranges", e.stage_layers.len(), MOST_DEVICES),
            ] {
                if n == 0 {
                    return Err(at(format!("no {what}").into()));
                }
                most(what, n, max).map_err(at)?;
            }
            if l.segment.is_some_and(|k| k == 0 || k > layers) {
                return Err(at(format!("a checkpoint segment of 1 to {layers} layers").into()));
            }
            if e.stage_layers.iter().any(|r| r.start >= r.end || r.end > layers) {
                return Err(at(
                    format!("each stage's layers a non-empty part of 0..{layers}").into()
                ));
            }
            let numbers = [
                e.compute_seconds,
                e.comm_seconds,
                e.step_seconds,
                e.wire_bytes,
                e.bubble,
                e.recompute_flops,
            ];
            if numbers.iter().any(|x| !x.is_finite() || *x < 0.0) {
                return Err(at("times, bytes and FLOPs finite and not negative".into()));
            }
            if let Some(t) = &e.timeline {
                if !(1..=MOST_DEVICES).contains(&t.stages) || !(1..=MOST_MICRO).contains(&t.micro) {
                    return Err(at(format!(
                        "a timeline of 1 to {MOST_DEVICES} stages and 1 to {MOST_MICRO} micro-batches"
                    )
                    .into()));
                }
                // Each stage runs each micro-batch's forward and backward once.
                most("timeline slots", t.slots.len(), 2 * t.stages * t.micro).map_err(at)?;
                let bad = t.slots.iter().any(|s| {
                    s.stage >= t.stages
                        || s.work.micro >= t.micro
                        || !(s.start.is_finite() && s.end.is_finite() && 0.0 <= s.start && s.start <= s.end)
                });
                if bad || !t.makespan.is_finite() {
                    return Err(at(
                        "each timeline slot on a stage and micro-batch it has, in time order".into(),
                    ));
                }
            }
        }
        if let Some(r) = self.runs.iter().find(|r| r.losses.len() > MOST_STEPS) {
            return Err(format!("{}: at most {MOST_STEPS} losses", r.label).into());
        }
        Ok(())
    }
}
