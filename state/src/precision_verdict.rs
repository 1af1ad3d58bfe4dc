//! The precision lab's verdict in words, from the runs measured: each reduced run against the
//! fp32 run, and for a run that diverged, what its own record says went out of range
//! (docs/theory.md §7.4).

use engine::optim::Optimizer;
use engine::precision::LossScaling;
use lab_sims::precision_run::{PrecisionRecord, PrecisionRun};

/// A flushed share this large names the squared-gradient state as the cause.
const FLUSHED_CAUSE: f64 = 0.01;

/// Each reduced run against the fp32 run.
pub fn verdict(record: &PrecisionRecord) -> Vec<String> {
    let Some(fp32) = record.fp32().and_then(|r| r.test_accuracy) else {
        return vec!["Add fp32 to the runs: the others are measured against it.".into()];
    };
    let mut out = vec![format!("fp32: {:.1} % test accuracy.", fp32 * 100.0)];
    for r in record.runs.iter().filter(|r| !r.precision.is_fp32()) {
        let p = &r.precision;
        let scaling = match p.loss_scaling {
            LossScaling::None => "without loss scaling".to_string(),
            LossScaling::Static { scale } => format!("at a loss scale of 2^{}", scale.log2()),
            LossScaling::Dynamic { .. } => format!(
                "its loss scale ending at 2^{}, {} step(s) skipped",
                r.final_scale.log2(),
                r.skipped_steps
            ),
            LossScaling::Delayed { .. } => match gradient_scale_range(r) {
                Some((lo, hi)) => {
                    format!("each tensor scaled by its own amax (weight gradients 2^{lo} to 2^{hi})")
                }
                None => "each tensor scaled by its own amax".to_string(),
            },
        };
        let line = match (r.diverged_at, r.test_accuracy) {
            (Some(step), _) => format!(
                "{}: diverged at step {step} ({}).",
                r.label,
                divergence_cause(r, &record.base.optimizer)
            ),
            (None, Some(a)) => {
                let d = (a - fp32) * 100.0;
                let how = if d.abs() < 1.0 {
                    format!("within a point of fp32 ({d:+.1})")
                } else {
                    format!("{d:+.1} points against fp32")
                };
                format!("{}: {:.1} %, {how}, {scaling}.", r.label, a * 100.0)
            }
            (None, None) => format!("{}: stopped before the end.", r.label),
        };
        out.push(line);
    }
    out
}

/// Why a run diverged, as its checks recorded it: the optimizer's squared-gradient state flushed
/// to zero by its format (the step then divides by √0 + ε), else gradients that overflowed their
/// format, else that no check before the divergence saw either.
pub fn divergence_cause(r: &PrecisionRun, optimizer: &Optimizer) -> String {
    let p = &r.precision;
    let flushed = optimizer.squared_gradients().and_then(|(_, name)| {
        let check = r
            .checks
            .iter()
            .find(|c| c.squares_flushed.is_some_and(|s| s >= FLUSHED_CAUSE))?;
        Some(format!(
            "{name} is stored in {state}: at step {step}, {share:.0} % of the weights with a gradient \
             had it flushed to 0, since (1 − β)·g² lies below half of {state}'s smallest subnormal \
             ({half:.1e}, below which a value rounds to 0); where it is 0 the step divides by √0 + ε = {eps:.0e} instead of by about \
             |g|, and the weights blow up",
            state = p.optimizer_state.name(),
            eps = epsilon(optimizer),
            step = check.step,
            share = check.squares_flushed.unwrap_or(0.0) * 100.0,
            half = p.optimizer_state.min_subnormal() / 2.0,
        ))
    });
    let overflowed = || {
        let check = r.checks.iter().find(|c| c.gradient_shares.overflow > 0.0)?;
        Some(format!(
            "its gradients overflowed {}: {:.2} % of them at step {}",
            p.gradients.name(),
            check.gradient_shares.overflow * 100.0,
            check.step
        ))
    };
    flushed
        .or_else(overflowed)
        .unwrap_or_else(|| match r.checks.last() {
            Some(c) => format!(
                "the loss became ±∞ or NaN; the checks up to step {} recorded no flushed optimizer \
             state and no overflowed gradient, so the cause lies between them",
                c.step
            ),
            None => "the loss became ±∞ or NaN before the first check".into(),
        })
}

/// The ε an adaptive optimizer adds to the root of its squared-gradient state.
fn epsilon(optimizer: &Optimizer) -> f32 {
    match *optimizer {
        Optimizer::Adam { eps, .. }
        | Optimizer::AdamW { eps, .. }
        | Optimizer::RmsProp { eps, .. }
        | Optimizer::AdaGrad { eps } => eps,
        _ => 0.0,
    }
}

/// The smallest and largest weight-gradient scale exponent of a delayed-scaling run's last check.
pub fn gradient_scale_range(r: &PrecisionRun) -> Option<(i32, i32)> {
    let scales = &r.last_check()?.gradient_scales;
    Some((*scales.iter().min()?, *scales.iter().max()?))
}
