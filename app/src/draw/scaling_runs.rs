//! The scaling lab's charts over training (plotters on canvases): every run's loss curve with its
//! learning-rate schedule, and the gradient noise scale as training goes.

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use engine::scaling::{raw_b_simple, RunResult};

use super::scaling::*;

/// Each run's loss (upper panel) and learning rate (lower panel) against the step, so warmup and
/// the rule's rates are seen next to what they did.
pub fn curves(canvas: HtmlCanvasElement, runs: &[RunResult]) {
    let Some(root) = area(canvas) else { return };
    let (top, bottom) = root.split_vertically((62).percent());
    let steps = runs.iter().map(|r| r.losses.len()).max().unwrap_or(1).max(2);
    let loss_top = runs
        .iter()
        .flat_map(|r| r.losses.first().copied())
        .filter(|l| l.is_finite())
        .fold(0.1f32, f32::max)
        * 1.2;
    let lr_top = runs
        .iter()
        .flat_map(|r| r.learning_rates.iter().copied())
        .fold(1e-6f32, f32::max)
        * 1.1;
    if let Ok(mut chart) = ChartBuilder::on(&top)
        .margin(10)
        .x_label_area_size(20)
        .y_label_area_size(45)
        .build_cartesian_2d(1usize..steps, 0f32..loss_top)
    {
        let _ = chart
            .configure_mesh()
            .y_desc("loss (smoothed)")
            .light_line_style(RGBColor(235, 235, 235))
            .label_style(("sans-serif", 11))
            .draw();
        for (i, r) in runs.iter().enumerate() {
            let c = color(i);
            let _ = chart
                .draw_series(LineSeries::new(
                    super::smoothed(&r.losses, 0.9)
                        .into_iter()
                        .map(|(s, l)| (s, l.min(loss_top))),
                    c.stroke_width(2),
                ))
                .map(|s| {
                    s.label(format!("B {} η {:.3}", r.batch, r.learning_rate))
                        .legend(line_legend(c))
                });
        }
        let _ = chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .label_font(("sans-serif", 11))
            .draw();
    }
    if let Ok(mut chart) = ChartBuilder::on(&bottom)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(45)
        .build_cartesian_2d(1usize..steps, 0f32..lr_top)
    {
        let _ = chart
            .configure_mesh()
            .x_desc("step")
            .x_labels(6)
            .x_label_formatter(&|v| super::ticks::step_label(*v as f64))
            .y_desc("learning rate")
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
    let Ok(mut chart) = ChartBuilder::on(&root)
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
        .x_label_formatter(&|v| super::ticks::step_label(*v as f64))
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
        let _ = chart
            .draw_series(LineSeries::new(points, c.stroke_width(2)))
            .map(|s| {
                s.label(format!("B {} η {:.3}", r.batch, r.learning_rate))
                    .legend(line_legend(c))
            });
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight);
    let _ = root.present();
}
