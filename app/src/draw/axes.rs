//! What the labs' plotters charts share: a canvas's drawing area, the runs' colours, log axes
//! (log10 over values, log2 over counts) and a series drawn as a line with dots.

use plotters::coord::types::RangedCoordf32;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

pub(crate) fn area(canvas: HtmlCanvasElement) -> Option<DrawingArea<CanvasBackend, Shift>> {
    let root = CanvasBackend::with_canvas_object(canvas)?.into_drawing_area();
    root.fill(&WHITE).ok()?;
    Some(root)
}

/// The colour of run `i`: ten stay apart for every vision (`lab_state::palette::RUNS`).
pub(crate) fn color(i: usize) -> RGBColor {
    let (r, g, b) = lab_state::palette::RUNS[i % lab_state::palette::RUNS.len()];
    RGBColor(r, g, b)
}

/// The range of log10 of the values, padded by a factor on each side. Log axes are drawn as
/// linear axes over the logarithms, labelled with the values.
pub(crate) fn log_range(values: impl Iterator<Item = f32>, pad: f32) -> std::ops::Range<f32> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f32::MAX, f32::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        return 0.0..1.0;
    }
    (lo / pad).log10()..(hi * pad).log10()
}

/// Batch sizes are powers of two: their axis is log2, ticks at whole powers.
pub(crate) fn batch_range(batches: impl Iterator<Item = usize>) -> std::ops::Range<f32> {
    let (lo, hi) = batches.fold((usize::MAX, 0), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        return 0.0..1.0;
    }
    (lo as f32).log2() - 0.5..(hi as f32).log2() + 0.5
}

pub(crate) fn batch_label(v: &f32) -> String {
    format!("{}", 2f32.powf(*v).round() as i64)
}

pub(crate) fn batch_ticks(r: &std::ops::Range<f32>) -> usize {
    ((r.end - r.start).round() as usize).max(2)
}

pub(crate) fn value_label(v: &f32) -> String {
    let x = 10f32.powf(*v);
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 1.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    }
}

pub(crate) type Chart<'a> = ChartContext<'a, CanvasBackend, Cartesian2d<RangedCoordf32, RangedCoordf32>>;

/// A chart over a log2 axis of counts (batch sizes, workers), labelled with the counts, and `ys`;
/// a log10 range is given with the formatter of its labels (`value_label` or another).
pub(crate) fn log2_chart<'a>(
    root: &'a DrawingArea<CanvasBackend, Shift>,
    xs: std::ops::Range<f32>,
    ys: std::ops::Range<f32>,
    x_desc: &str,
    y_desc: &str,
    y_log: Option<fn(&f32) -> String>,
) -> Option<Chart<'a>> {
    let mut chart = ChartBuilder::on(root)
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(62)
        .build_cartesian_2d(xs.clone(), ys)
        .ok()?;
    {
        let mut mesh = chart.configure_mesh();
        mesh.x_labels(batch_ticks(&xs))
            .x_label_formatter(&batch_label)
            .x_desc(x_desc)
            .y_desc(y_desc)
            .light_line_style(RGBColor(235, 235, 235))
            .label_style(("sans-serif", 12));
        if let Some(format) = &y_log {
            mesh.y_label_formatter(format);
        }
        let _ = mesh.draw();
    }
    Some(chart)
}

/// A series as a line with a dot at each point.
pub(crate) fn line_with_dots(chart: &mut Chart<'_>, points: Vec<(f32, f32)>, c: RGBColor) -> Option<()> {
    chart
        .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
        .ok()?;
    chart
        .draw_series(points.iter().map(|&p| Circle::new(p, 3, c.filled())))
        .ok()?;
    Some(())
}
