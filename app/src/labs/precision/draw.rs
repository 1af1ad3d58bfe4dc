//! The precision lab's charts (plotters on canvases): every run's loss, the loss scale over
//! time, and one run's gradient exponents against its format's range.

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use engine::precision::Format;
use lab_sims::precision_run::{Check, PrecisionRun, HISTOGRAM_LOWEST};

use crate::draw::legend::{self, Key};
use crate::draw::axes::{area, color};

const GREY: RGBColor = RGBColor(150, 150, 150);

/// Each run's loss (smoothed, log axis), a cross where a run diverged.
pub fn curves(canvas: HtmlCanvasElement, runs: &[PrecisionRun]) {
    let Some(root) = area(canvas) else { return };
    let keys: Vec<Key> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| match r.diverged_at {
            Some(s) => Key::line(format!("{} (diverged at step {s})", r.label), color(i)),
            None => Key::line(r.label.clone(), color(i)),
        })
        .chain(
            runs.iter()
                .any(|r| r.precision.is_fp32())
                .then(|| Key::dashed("fp32, on top", BLACK)),
        )
        .collect();
    let plot = legend::below(&root, &keys);
    let (plot, lower) = plot.split_vertically((64).percent());
    let steps = runs.iter().map(|r| r.losses.len()).max().unwrap_or(1).max(2);
    accuracy(&lower, runs, steps);
    let Some(crate::draw::loss_chart::RunsAxes {
        mut chart,
        smoothed,
        scale,
    }) = crate::draw::loss_chart::smoothed_runs_axes(&plot, runs.iter().map(|r| r.losses.as_slice()), false)
    else {
        return;
    };
    for (i, (line, r)) in smoothed.iter().zip(runs).enumerate() {
        let last = line.last().copied();
        let points = line.iter().map(|&(s, l)| (s, scale.y(l)));
        let _ = chart.draw_series(LineSeries::new(points, color(i).stroke_width(2)));
        if let (Some(_), Some((s, l))) = (r.diverged_at, last) {
            let _ = chart.draw_series(std::iter::once(Cross::new(
                (s, scale.y(l)),
                7,
                color(i).stroke_width(3),
            )));
        }
    }
    // fp32 once more on top, dashed in black: the runs that match it lie under it.
    if let Some((line, _)) = smoothed.iter().zip(runs).find(|(_, r)| r.precision.is_fp32()) {
        let points = line.iter().map(|&(s, l)| (s, scale.y(l)));
        let _ = chart.draw_series(DashedLineSeries::new(points, 6, 4, BLACK.stroke_width(1)));
    }
}

/// Each run's accuracy on its training samples at its checks (the lower panel of `curves`).
fn accuracy<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    runs: &[PrecisionRun],
    steps: usize,
) {
    let Ok(mut chart) = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(1usize..steps, 0f32..1f32)
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .x_desc("step")
        .y_desc("train accuracy")
        .y_labels(3)
        .y_label_formatter(&|v| format!("{:.0} %", v * 100.0))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 11))
        .draw();
    for (i, r) in runs.iter().enumerate() {
        let points: Vec<(usize, f32)> = r.checks.iter().map(|c| (c.step as usize, c.accuracy)).collect();
        let _ = chart.draw_series(LineSeries::new(points.clone(), color(i).stroke_width(2)));
        let _ = chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3, color(i).filled())));
    }
}

/// One line per weight-gradient tensor: (step, log₂ of its scale) at each check.
type TensorLines = Vec<Vec<(u64, f32)>>;

/// Each weight-gradient tensor's scale exponent at each check of a delayed-scaling run, from the
/// second step on: the first runs at 2⁰, before any tensor has a history, and a line from there
/// would draw a climb that never happened.
fn tensor_lines(r: &PrecisionRun) -> TensorLines {
    let tensors = r.checks.iter().map(|c| c.gradient_scales.len()).max().unwrap_or(0);
    (0..tensors)
        .map(|t| {
            let at = |c: &Check| c.gradient_scales.get(t).map(|k| (c.step, *k as f32));
            r.checks.iter().filter(|c| c.step > 1).filter_map(at).collect()
        })
        .collect()
}

/// log₂ of the loss scale of every run that scales dynamically, a dot at each skipped step; and
/// for a run that scales each tensor (delayed), each weight gradient's scale at the checks, dashed.
pub fn scale(canvas: HtmlCanvasElement, runs: &[PrecisionRun]) {
    let Some(root) = area(canvas) else { return };
    let dynamic: Vec<(usize, &PrecisionRun)> = runs
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.scale_events.is_empty())
        .collect();
    let delayed: Vec<(usize, TensorLines)> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| (i, tensor_lines(r)))
        .filter(|(_, lines)| !lines.is_empty())
        .collect();
    let mut keys: Vec<Key> = dynamic
        .iter()
        .map(|(i, r)| Key::line(format!("{} ({} skipped)", r.label, r.skipped_steps), color(*i)))
        .collect();
    keys.extend(delayed.iter().map(|(i, lines)| {
        Key::dashed(format!("{}: {} weight gradients, each its own", runs[*i].label, lines.len()), color(*i))
    }));
    let plot = legend::below(&root, &keys);
    if dynamic.is_empty() && delayed.is_empty() {
        crate::draw::placeholder(&plot, "No run here scales its loss or its tensors.");
        return;
    }
    let steps = runs.iter().map(|r| r.losses.len()).max().unwrap_or(1).max(2) as u64;
    let log2 = |s: f32| s.max(1.0).log2();
    let (lo, hi) = dynamic
        .iter()
        .flat_map(|(_, r)| r.scale_events.iter().map(|e| log2(e.scale)))
        .chain(delayed.iter().flat_map(|(_, l)| l.iter().flatten().map(|p| p.1)))
        .fold((f32::MAX, f32::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let Ok(mut chart) = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(1u64..steps, (lo - 1.0).floor()..(hi + 1.0).ceil())
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .x_desc("step")
        .y_desc("loss scale")
        // Whole powers of two on the log₂ axis, at most a dozen labels.
        .y_labels(((hi - lo) + 3.0).clamp(2.0, 12.0) as usize)
        .y_label_formatter(&|v| format!("2^{v:.0}"))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 11))
        .draw();
    for (i, r) in dynamic {
        let line = r.scale_events.iter().map(|e| (e.step, log2(e.scale)));
        let _ = chart.draw_series(LineSeries::new(line, color(i).stroke_width(2)));
        let skipped = r.scale_events.iter().filter(|e| e.overflow);
        let _ =
            chart.draw_series(skipped.map(|e| Circle::new((e.step, log2(e.scale)), 4, color(i).filled())));
    }
    for (i, lines) in delayed {
        for line in lines {
            let _ = chart.draw_series(DashedLineSeries::new(line, 6, 4, color(i).stroke_width(2)));
        }
    }
}

/// The shares of a check's gradients per binary exponent, one line per layer, as stored (× the
/// loss scale) and, dashed, as computed (before scaling, where a scale was applied); the
/// format's range shaded: grey where it flushes to zero, light where it keeps subnormals, orange
/// past its largest value.
pub fn histogram(canvas: HtmlCanvasElement, run: &PrecisionRun, check: &Check, format: Format) {
    let Some(root) = area(canvas) else { return };
    let layers = check.histograms.len();
    let mut keys: Vec<Key> = (0..layers)
        .map(|l| Key::line(format!("layer {} (stored)", l + 1), color(l)))
        .collect();
    let shift = if check.skipped {
        0.0
    } else {
        check.scale.max(1.0).log2()
    };
    if shift > 0.0 {
        keys.push(Key::dashed("before × the scale", GREY));
    }
    let plot = legend::below(&root, &keys);
    let bins = check.histograms.first().map_or(1, |h| h.counts.len());
    let (x0, x1) = (HISTOGRAM_LOWEST as f32, (HISTOGRAM_LOWEST + bins as i32) as f32);
    let shares: Vec<Vec<f32>> = check
        .histograms
        .iter()
        .map(|h| {
            let total = (h.counts.iter().sum::<u64>() + h.zeros + h.non_finite).max(1) as f32;
            h.counts.iter().map(|c| *c as f32 / total).collect()
        })
        .collect();
    let top = shares.iter().flatten().fold(0.05f32, |a, b| a.max(*b)) * 1.1;
    let Ok(mut chart) = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(x0..x1, 0f32..top)
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .x_desc(format!(
            "gradient magnitude, powers of two ({} of {})",
            format.name(),
            run.label
        ))
        .y_desc("share of the layer's gradients")
        .x_label_formatter(&|v| format!("2^{v:.0}"))
        .y_label_formatter(&|v| format!("{:.0} %", v * 100.0))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 11))
        .draw();
    if format != Format::F32 {
        let sub = format.min_subnormal().log2() as f32;
        let normal = format.min_normal().log2() as f32;
        let over = (format.spec().max as f64).log2().floor() as f32 + 1.0;
        let band = |a: f32, b: f32, c: RGBColor| {
            Rectangle::new([(a.max(x0), 0.0), (b.min(x1), top)], c.mix(0.18).filled())
        };
        let _ = chart.draw_series([
            band(x0, sub - 1.0, GREY),
            band(sub - 1.0, normal, RGBColor(150, 180, 220)),
            band(over, x1, crate::draw::ORANGE),
        ]);
    }
    for (l, s) in shares.iter().enumerate() {
        // A step line: each bin [e, e + 1) at its share.
        let steps = s.iter().enumerate().flat_map(|(i, v)| {
            let e = x0 + i as f32;
            [(e, *v), (e + 1.0, *v)]
        });
        let _ = chart.draw_series(LineSeries::new(steps.clone(), color(l).stroke_width(2)));
        if shift > 0.0 {
            let before = steps.map(|(e, v)| (e - shift, v)).filter(|(e, _)| *e >= x0);
            let _ = chart.draw_series(DashedLineSeries::new(before, 4, 3, GREY.stroke_width(1)));
        }
    }
}
