//! The scaling lab's charts over training (plotters on canvases): every run's loss curve with its
//! learning-rate schedule, and the gradient noise scale as training goes.

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use lab_sims::scaling::{raw_b_simple, RunResult};

use crate::draw::legend::{self, Key};
use crate::draw::axes::*;

/// The key of each run: its batch and learning rate in its colour.
fn keys(runs: &[RunResult], which: impl Fn(&RunResult) -> bool) -> Vec<Key> {
    runs.iter()
        .enumerate()
        .filter(|(_, r)| which(r))
        .map(|(i, r)| Key::line(format!("B {} η {:.3}", r.batch, r.learning_rate), color(i)))
        .collect()
}

/// Each run's loss (upper panel; on a log axis when `log` and every loss is positive) and
/// learning rate (lower panel) against the step, so warmup and the rule's rates are seen next to
/// what they did.
pub fn curves(canvas: HtmlCanvasElement, runs: &[RunResult], log: bool) {
    let Some(root) = area(canvas) else { return };
    let plot = legend::below(&root, &keys(runs, |_| true));
    let (top, bottom) = plot.split_vertically((62).percent());
    let steps = runs.iter().map(|r| r.losses.len()).max().unwrap_or(1).max(2);
    let smoothed = crate::draw::smoothed_runs(runs.iter().map(|r| r.losses.as_slice()));
    // Linear: up to a little over the first losses, so a diverging run does not flatten the rest.
    let loss_top = runs
        .iter()
        .flat_map(|r| r.losses.first().copied())
        .filter(|l| l.is_finite())
        .fold(0.1f32, f32::max)
        * 1.2;
    let scale = crate::draw::loss_chart::LossScale::new(smoothed.iter().flatten().map(|p| p.1.min(loss_top)), log);
    let lr_top = runs
        .iter()
        .flat_map(|r| r.learning_rates.iter().copied())
        .fold(1e-6f32, f32::max)
        * 1.1;
    if let Ok(mut chart) = ChartBuilder::on(&top)
        .margin(10)
        .x_label_area_size(20)
        .y_label_area_size(50)
        .build_cartesian_2d(1usize..steps, scale.range.clone())
    {
        let _ = chart
            .configure_mesh()
            .y_desc(scale.desc("loss (smoothed)"))
            .y_labels(scale.label_count())
            .y_label_formatter(&|v| scale.label(*v))
            .x_label_formatter(&|_| String::new())
            .light_line_style(RGBColor(235, 235, 235))
            .label_style(("sans-serif", 11))
            .draw();
        for (i, line) in smoothed.into_iter().enumerate() {
            let line = line.into_iter().map(|(s, l)| (s, scale.y(l.min(loss_top))));
            let _ = chart.draw_series(LineSeries::new(line, color(i).stroke_width(2)));
        }
    }
    if let Ok(mut chart) = ChartBuilder::on(&bottom)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(1usize..steps, 0f32..lr_top)
    {
        let _ = chart
            .configure_mesh()
            .x_desc("step")
            .x_labels(6)
            .x_label_formatter(&|v| crate::draw::ticks::step_label(*v as f64))
            .y_desc("learning rate")
            .y_labels(4)
            .y_label_formatter(&|v| crate::draw::ticks::value_label(*v as f64))
            .light_line_style(RGBColor(235, 235, 235))
            .label_style(("sans-serif", 11))
            .draw();
        for (i, r) in runs.iter().enumerate() {
            let points = r.learning_rates.iter().enumerate().map(|(s, &lr)| (s + 1, lr));
            let _ = chart.draw_series(LineSeries::new(points, color(i).stroke_width(2)));
        }
    }
    let _ = root.present();
}

/// B_simple as training goes, per run that measured it: each measurement's own ratio as a faint
/// marker, and the windowed estimate (mean tr Σ over mean |G|² of the last measurements) as a line.
pub fn noise(canvas: HtmlCanvasElement, runs: &[RunResult]) {
    let Some(root) = area(canvas) else { return };
    let measured: Vec<&RunResult> = runs.iter().filter(|r| !r.noise_scale.is_empty()).collect();
    let raw = |r: &RunResult| -> Vec<(usize, f64)> {
        r.noise_raw
            .iter()
            .filter_map(|m| raw_b_simple(*m).map(|b| (m.0, b)))
            .collect()
    };
    let steps = measured
        .iter()
        .flat_map(|r| r.noise_scale.last().map(|p| p.0))
        .max()
        .unwrap_or(1)
        .max(2);
    let ys = log_range(
        measured.iter().flat_map(|r| {
            r.noise_scale
                .iter()
                .map(|p| p.1 as f32)
                .chain(raw(r).into_iter().map(|p| p.1 as f32))
        }),
        2.0,
    );
    let plot = legend::below(&root, &keys(runs, |r| !r.noise_scale.is_empty()));
    let Ok(mut chart) = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(0usize..steps, ys)
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .y_label_formatter(&value_label)
        .x_desc("step")
        .x_labels(6)
        .x_label_formatter(&|v| crate::draw::ticks::step_label(*v as f64))
        .y_desc("B_simple (samples)")
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw();
    for (i, r) in runs.iter().enumerate().filter(|(_, r)| !r.noise_scale.is_empty()) {
        let c = color(i);
        let faint = c.mix(0.35);
        let _ = chart.draw_series(
            raw(r)
                .into_iter()
                .map(|(s, b)| Cross::new((s, (b as f32).log10()), 3, faint.stroke_width(1))),
        );
        let points: Vec<(usize, f32)> = r
            .noise_scale
            .iter()
            .filter(|p| p.1 > 0.0)
            .map(|p| (p.0, (p.1 as f32).log10()))
            .collect();
        // Markers too: a short run may have measured only once.
        let _ = chart.draw_series(points.iter().map(|p| Circle::new(*p, 3, c.filled())));
        let _ = chart.draw_series(LineSeries::new(points, c.stroke_width(2)));
    }
    let _ = root.present();
}
