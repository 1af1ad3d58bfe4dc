//! The scaling lab's charts (plotters on canvases): steps- and examples-to-target against batch
//! size on log-log axes with the perfect-scaling line, a batch × learning-rate map of the final
//! loss with the linear and square-root rules across it, and train vs test accuracy against batch
//! size (the curves over training are `crate::scaling::runs_chart`).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use lab_sims::scaling::{RunResult, Sweep};

use crate::draw::legend::{self, Key};
use crate::draw::value_color;

use crate::draw::{BLUE, ORANGE};
const GREEN: RGBColor = RGBColor(0, 158, 115);
const GREY: RGBColor = RGBColor(150, 150, 150);

use crate::draw::axes::*;

/// A chart over batch size (log2, labelled with the sizes) and `ys`, a log10 range when `y_log`
/// (labelled with the values).
fn batch_chart<'a>(
    root: &'a DrawingArea<CanvasBackend, Shift>,
    xs: std::ops::Range<f32>,
    ys: std::ops::Range<f32>,
    y_desc: &str,
    y_log: bool,
) -> Option<Chart<'a>> {
    log2_chart(root, xs, ys, "batch size", y_desc, y_log.then_some(value_label))
}

/// One run per batch: the one that reached the target in the fewest steps (the best-tuned rate
/// among the sweep's factors, as Shallue et al. compare them), else the one at the rule's own rate.
fn best_runs<'a>(sweep: &Sweep, runs: &'a [RunResult]) -> Vec<&'a RunResult> {
    let mut out: Vec<&RunResult> = Vec::new();
    for &b in &sweep.batches {
        let lr = sweep.rule.learning_rate(sweep.base_lr, sweep.base_batch, b);
        let distance = |r: &RunResult| (r.learning_rate / lr).ln().abs();
        let of_batch = || runs.iter().filter(|r| r.batch == b);
        let best = of_batch()
            .filter(|r| r.steps_to_target.is_some())
            .min_by_key(|r| r.steps_to_target)
            .or_else(|| of_batch().min_by(|x, y| distance(x).total_cmp(&distance(y))));
        out.extend(best);
    }
    out
}

/// Steps (or examples, when `examples`) to the target against batch size; the dashed line is
/// perfect scaling from the smallest batch (steps ∝ 1/B; examples constant); the grey vertical
/// line marks the critical batch B_simple when it was measured.
pub fn to_target(
    canvas: HtmlCanvasElement,
    sweep: &Sweep,
    runs: &[RunResult],
    examples: bool,
    b_noise: Option<f64>,
) {
    let Some(root) = area(canvas) else { return };
    let points: Vec<(f32, f32)> = best_runs(sweep, runs)
        .into_iter()
        .filter_map(|r| {
            let v = if examples {
                r.examples_to_target
            } else {
                r.steps_to_target
            };
            v.map(|v| ((r.batch as f32).log2(), (v as f32).log10()))
        })
        .collect();
    let xs = batch_range(sweep.batches.iter().copied());
    let ys = log_range(points.iter().map(|p| 10f32.powf(p.1)), 2.0);
    let y_desc = if examples {
        "examples to target"
    } else {
        "steps to target"
    };
    let b_noise = b_noise.filter(|b| b.is_finite() && *b > 0.0);
    let mut keys = vec![Key::line(y_desc, BLUE)];
    if !points.is_empty() {
        keys.push(Key::dashed("perfect scaling", GREY));
    }
    if let Some(b) = b_noise {
        keys.push(Key::line(format!("B_simple ≈ {b:.0} (critical batch)"), GREEN));
    }
    let plot = legend::below(&root, &keys);
    let Some(mut chart) = batch_chart(&plot, xs.clone(), ys.clone(), y_desc, true) else {
        return;
    };
    if let Some(&(b0, s0)) = points.first() {
        // log2 of the batch → log10 of the ideal: steps fall by a factor 2 per doubling.
        let ideal = |b: f32| {
            if examples {
                s0
            } else {
                s0 - (b - b0) * 2f32.log10()
            }
        };
        let line: Vec<(f32, f32)> = [xs.start, xs.end].iter().map(|&b| (b, ideal(b))).collect();
        let _ = chart.draw_series(DashedLineSeries::new(line, 6, 4, GREY.stroke_width(2)));
    }
    if let Some(b) = b_noise {
        // Outside the batches swept, the line sits at the edge it lies beyond; the legend gives the value.
        let x = (b as f32).log2().clamp(xs.start, xs.end);
        let _ = chart.draw_series(LineSeries::new(
            vec![(x, ys.start), (x, ys.end)],
            GREEN.stroke_width(2),
        ));
    }
    let style = BLUE.stroke_width(2);
    let _ = chart.draw_series(LineSeries::new(points.clone(), style));
    let _ = chart.draw_series(points.iter().map(|p| Circle::new(*p, 4, BLUE.filled())));
    let _ = root.present();
}

/// Final loss over batch size × learning rate (blue low, orange high, grey diverged), with the
/// linear and square-root rules drawn from (base batch, base rate).
pub fn heatmap(canvas: HtmlCanvasElement, sweep: &Sweep, runs: &[RunResult]) {
    let Some(root) = area(canvas) else { return };
    let xs = batch_range(runs.iter().map(|r| r.batch));
    let ys = log_range(runs.iter().map(|r| r.learning_rate), 1.6);
    let rules = [
        (lab_sims::scaling::Rule::Linear, "linear rule", BLUE),
        (lab_sims::scaling::Rule::Sqrt, "square-root rule", ORANGE),
    ];
    let keys: Vec<Key> = rules.iter().map(|r| Key::line(r.1, r.2)).collect();
    let plot = legend::below(&root, &keys);
    let Some(mut chart) = batch_chart(&plot, xs.clone(), ys.clone(), "learning rate", true) else {
        return;
    };
    let finite = || runs.iter().map(|r| r.final_loss).filter(|l| l.is_finite());
    let (lo, hi) = finite().fold((f32::MAX, f32::MIN), |(a, b), v| (a.min(v), b.max(v)));
    // Cells a factor √2 wide in batch and √(the rate step) tall.
    let lr_step = {
        let mut lrs: Vec<f32> = runs
            .iter()
            .filter(|r| r.batch == runs[0].batch)
            .map(|r| r.learning_rate)
            .collect();
        lrs.sort_by(f32::total_cmp);
        lrs.windows(2).map(|w| w[1] / w[0]).fold(2.0f32, f32::min).log10() / 2.0
    };
    let _ = chart.draw_series(runs.iter().map(|r| {
        let (b, lr) = ((r.batch as f32).log2(), r.learning_rate.log10());
        let fill = if r.diverged || !r.final_loss.is_finite() {
            GREY
        } else {
            let t = if hi > lo {
                (r.final_loss - lo) / (hi - lo)
            } else {
                0.0
            };
            let (cr, cg, cb) = value_color(t * 2.0 - 1.0);
            RGBColor(cr, cg, cb)
        };
        Rectangle::new(
            [(b - 0.45, lr - lr_step), (b + 0.45, lr + lr_step)],
            fill.filled(),
        )
    }));
    for (rule, _, c) in rules {
        let line: Vec<(f32, f32)> = (0..=40)
            .map(|i| {
                let b = xs.start + (xs.end - xs.start) * i as f32 / 40.0;
                let k = 2f32.powf(b) / sweep.base_batch.max(1) as f32;
                (b, (sweep.base_lr * rule.factor(k)).log10())
            })
            .filter(|(_, lr)| *lr >= ys.start && *lr <= ys.end)
            .collect();
        let _ = chart.draw_series(LineSeries::new(line, c.stroke_width(2)));
    }
    let _ = root.present();
}

/// Train and test accuracy (and their gap) against batch size.
pub fn generalization(canvas: HtmlCanvasElement, sweep: &Sweep, runs: &[RunResult]) {
    let Some(root) = area(canvas) else { return };
    let rs = best_runs(sweep, runs);
    let xs = batch_range(sweep.batches.iter().copied());
    let keys = [
        Key::line("train", BLUE),
        Key::line("test", ORANGE),
        Key::line("gap (train − test)", GREY),
    ];
    let plot = legend::below(&root, &keys);
    let Some(mut chart) = batch_chart(&plot, xs, 0f32..1f32, "accuracy", false) else {
        return;
    };
    let series = [
        (
            "train",
            BLUE,
            rs.iter()
                .map(|r| ((r.batch as f32).log2(), r.train_accuracy))
                .collect::<Vec<_>>(),
        ),
        (
            "test",
            ORANGE,
            rs.iter()
                .filter_map(|r| r.test_accuracy.map(|a| ((r.batch as f32).log2(), a)))
                .collect(),
        ),
        (
            "gap (train − test)",
            GREY,
            rs.iter()
                .filter_map(|r| {
                    r.test_accuracy
                        .map(|a| ((r.batch as f32).log2(), (r.train_accuracy - a).max(0.0)))
                })
                .collect(),
        ),
    ];
    for (_, c, points) in series {
        let _ = chart.draw_series(points.iter().map(|p| Circle::new(*p, 3, c.filled())));
        let _ = chart.draw_series(LineSeries::new(points, c.stroke_width(2)));
    }
    let _ = root.present();
}
