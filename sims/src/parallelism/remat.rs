//! Checkpointing in a layout (docs/theory.md §8.5–8.6): the bytes a checkpointed step keeps and
//! re-runs, as `Trainer::checkpointed_loss_and_gradient` does (tested against its report), and
//! one device's activation bytes through a step, with or without checkpoints.

use super::profile::Profile;

/// Checkpointing's activations on one device at `rows` samples, as
/// `Trainer::checkpointed_loss_and_gradient` keeps them: (bytes kept through the step, FLOPs
/// re-run).
pub fn checkpointed(profile: &Profile, segment: usize, rows: usize) -> (u64, f64) {
    let r = rows as u64;
    let n = profile.layers.len();
    let bytes = |l: &super::profile::LayerProfile| r * l.kept_per_row + l.kept_fixed;
    let all = r * profile.input_per_row + profile.layers.iter().map(bytes).sum::<u64>();
    let (mut dropped_sum, mut flops) = (0, 0.0);
    for s in (0..n).step_by(segment.clamp(1, n.max(1))) {
        let e = (s + segment.max(1)).min(n);
        if e == n {
            break;
        }
        // Its layers' kept bytes but the last output (the next checkpoint).
        let l = &profile.layers[s..e];
        let checkpoint = checkpoint_layer(profile, s, e).map_or(0, |j| r * profile.layers[j].output_per_row);
        let dropped = l.iter().map(bytes).sum::<u64>() - checkpoint;
        if dropped > 0 {
            flops += r as f64 * l.iter().map(|x| x.forward_flops_per_row).sum::<f64>();
        }
        dropped_sum += dropped;
    }
    (all - dropped_sum, flops)
}

/// The layer of `s..e` whose output buffer is the next segment's checkpoint: the last that does
/// not share its input's buffer (None when the buffer belongs to an earlier segment).
fn checkpoint_layer(profile: &Profile, s: usize, e: usize) -> Option<usize> {
    (s..e)
        .rev()
        .find(|&i| !profile.layers[i].shares_input)
        .filter(|&j| (j + 1..e).all(|i| profile.layers[i].shares_input))
}

/// One device's activation bytes through a step of one stage at `rows` samples, after each
/// layer's forward and each layer's backward (with checkpointing: the re-runs rise before each
/// segment's backward): (what just ran, activation bytes held).
pub fn step_curve(profile: &Profile, rows: usize, segment: Option<usize>) -> Vec<(String, u64)> {
    let r = rows as u64;
    let n = profile.layers.len();
    let k = segment.unwrap_or(n).clamp(1, n.max(1));
    let starts: Vec<usize> = (0..n).step_by(k).collect();
    let last_seg = starts.len().saturating_sub(1);
    let all = |i: usize| r * profile.layers[i].kept_per_row + profile.layers[i].kept_fixed;
    // A layer's bytes kept through the step: all of them in the last segment; in the others only
    // the segment's last output (the next checkpoint).
    let kept_through = |i: usize| {
        let (s, e) = (i / k * k, (i / k * k + k).min(n));
        if segment.is_none() || i / k == last_seg {
            all(i)
        } else if checkpoint_layer(profile, s, e) == Some(i) {
            r * profile.layers[i].output_per_row
        } else {
            0
        }
    };
    let mut held = r * profile.input_per_row;
    let mut out = vec![("inputs".to_string(), held)];
    for (i, l) in profile.layers.iter().enumerate() {
        held += kept_through(i);
        out.push((format!("forward {}: {}", i + 1, l.label), held));
    }
    for j in (0..starts.len()).rev() {
        let (s, e) = (starts[j], (starts[j] + k).min(n));
        if j != last_seg {
            held += (s..e).map(|i| all(i) - kept_through(i)).sum::<u64>();
            out.push((format!("re-run layers {}–{}", s + 1, e), held));
        }
        for i in (s..e).rev() {
            held -= all(i);
            if i == 0 {
                held -= r * profile.input_per_row;
            }
            out.push((format!("backward {}: {}", i + 1, profile.layers[i].label), held));
        }
    }
    out
}

/// The most activation bytes one device holds in a checkpointed step: the peak of `step_curve`.
pub fn peak(profile: &Profile, rows: usize, segment: usize) -> u64 {
    step_curve(profile, rows, Some(segment))
        .iter()
        .map(|x| x.1)
        .max()
        .unwrap_or(0)
}

/// Checkpointing's trade for every segment length 1..=layers: (k, peak activation bytes, FLOPs
/// re-run per step).
pub fn trade(profile: &Profile, rows: usize) -> Vec<(usize, u64, f64)> {
    (1..=profile.layers.len())
        .map(|k| (k, peak(profile, rows, k), checkpointed(profile, k, rows).1))
        .collect()
}
