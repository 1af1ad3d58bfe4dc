//! The loss curve, redrawn from the history each frame with plotters on a canvas.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

/// What the chart draws, as CSV: step, training loss, test loss (where measured).
pub fn table(losses: &[(u64, f32)], test: &[(u64, f32)]) -> String {
    let rows = losses.iter().map(|&(step, l)| {
        let t = test
            .iter()
            .find(|(s, _)| *s == step)
            .map_or(String::new(), |(_, t)| t.to_string());
        [step.to_string(), l.to_string(), t]
    });
    crate::figures::csv("step,train_loss,test_loss", rows)
}

/// (step, loss) for a loss per step from step 1.
pub fn per_step(losses: &[f32]) -> Vec<(u64, f32)> {
    (1..).zip(losses.iter().copied()).collect()
}

/// A chart over steps (x) and losses (y).
pub type LossChart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordu64, plotters::coord::types::RangedCoordf32>,
>;

/// A loss axis, log10 (labelled at whole decades) or linear: its range, how a loss is placed on
/// it and how its ticks read. Shared by every loss chart, whatever its x axis.
#[derive(Clone)]
pub struct LossScale {
    pub range: std::ops::Range<f32>,
    pub log: bool,
}

impl LossScale {
    /// Log when `log` and every loss is positive, else linear (see `ticks::loss_range`).
    pub fn new(losses: impl Iterator<Item = f32>, log: bool) -> Self {
        let (range, log) = super::ticks::loss_range(losses, log);
        Self { range, log }
    }

    /// Where a loss sits on the axis: its log when the axis is, clamped into the range.
    pub fn y(&self, loss: f32) -> f32 {
        let v = if self.log { loss.max(1e-30).log10() } else { loss };
        v.clamp(self.range.start, self.range.end)
    }

    pub fn label(&self, v: f32) -> String {
        if self.log {
            super::ticks::decade_label(v as f64)
        } else {
            super::ticks::value_label(v as f64)
        }
    }

    pub fn label_count(&self) -> usize {
        if self.log {
            super::ticks::decade_count(&self.range)
        } else {
            6
        }
    }

    /// The axis name, saying when it is logarithmic.
    pub fn desc(&self, name: &str) -> String {
        if self.log {
            format!("{name} (log scale)")
        } else {
            name.to_string()
        }
    }
}

/// A loss chart's axes: steps 0..`steps` along x, the losses' `LossScale` up y. Returns the chart
/// and where a loss is drawn on it.
pub fn loss_axes<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, plotters::coord::Shift>,
    steps: u64,
    losses: impl Iterator<Item = f32>,
    log: bool,
) -> Option<(LossChart<'a, DB>, impl Fn(f32) -> f32)> {
    let scale = LossScale::new(losses, log);
    let mut chart = ChartBuilder::on(root)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(0u64..steps, scale.range.clone())
        .ok()?;
    chart
        .configure_mesh()
        .x_desc("step")
        .y_desc(scale.desc("loss"))
        .x_labels(6)
        .y_labels(scale.label_count())
        .x_label_formatter(&|v| super::ticks::step_label(*v as f64))
        .y_label_formatter(&|v| scale.label(*v))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw()
        .ok()?;
    Some((chart, move |l: f32| scale.y(l)))
}

/// Draws per-step training loss (and its running mean, which is easier to read than the noisy
/// mini-batch values), and the test loss where it was measured; on a log axis when `log` (and
/// every loss is positive). Before the first step it says what will appear.
pub fn draw(canvas: HtmlCanvasElement, losses: &[(u64, f32)], test: &[(u64, f32)], log: bool) {
    let Some(backend) = CanvasBackend::with_canvas_object(canvas) else {
        return;
    };
    let root = backend.into_drawing_area();
    let _ = root.fill(&WHITE);
    if losses.is_empty() {
        super::placeholder(&root, "Press Train: the loss of every step appears here.");
        let _ = root.present();
        return;
    }
    let steps = losses.last().map_or(0, |l| l.0).max(10);
    let all = losses.iter().chain(test).map(|(_, l)| *l);
    let Some((mut chart, clamp)) = loss_axes(&root, steps, all, log) else {
        return;
    };
    let raw = RGBColor(170, 200, 225);
    let _ = chart.draw_series(LineSeries::new(losses.iter().map(|&(s, l)| (s, clamp(l))), &raw));
    let values: Vec<f32> = losses.iter().map(|l| l.1).collect();
    let steps_of = losses.iter().map(|l| l.0);
    let _ = chart.draw_series(LineSeries::new(
        steps_of.zip(super::smoothed(&values, 0.95).into_iter().map(|(_, v)| clamp(v))),
        ShapeStyle::from(&super::BLUE).stroke_width(2),
    ));
    // Test loss in the palette's orange, dashed by its sparser points.
    let _ = chart.draw_series(LineSeries::new(
        test.iter().map(|&(s, l)| (s, clamp(l))),
        ShapeStyle::from(&super::ORANGE).stroke_width(2),
    ));
    let _ = root.present();
}

/// The chart type of runs' smoothed losses: steps along x, a `LossScale` up y.
pub type RunsChart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordusize, plotters::coord::types::RangedCoordf32>,
>;

/// What `smoothed_runs_axes` gives: the chart, each run's smoothed curve, and the scale.
pub struct RunsAxes<'a, DB: DrawingBackend> {
    pub chart: RunsChart<'a, DB>,
    pub smoothed: Vec<Vec<(usize, f32)>>,
    pub scale: LossScale,
}

/// Axes for several runs' smoothed training losses (log scale): steps 1..the longest run along x
/// (labelled "step", or unlabelled when `step_axis` is false: a panel below carries it).
pub fn smoothed_runs_axes<'a, 'b, DB: DrawingBackend>(
    plot: &'a DrawingArea<DB, plotters::coord::Shift>,
    losses: impl Iterator<Item = &'b [f32]> + Clone,
    step_axis: bool,
) -> Option<RunsAxes<'a, DB>> {
    let steps = losses.clone().map(<[f32]>::len).max().unwrap_or(1).max(2);
    let smoothed = super::smoothed_runs(losses);
    let scale = LossScale::new(smoothed.iter().flatten().map(|p| p.1), true);
    let mut chart = ChartBuilder::on(plot)
        .margin(10)
        .x_label_area_size(if step_axis { 30 } else { 20 })
        .y_label_area_size(50)
        .build_cartesian_2d(1usize..steps, scale.range.clone())
        .ok()?;
    let mut mesh = chart.configure_mesh();
    if step_axis {
        mesh.x_desc("step");
    } else {
        mesh.x_label_formatter(&|_| String::new());
    }
    mesh.y_desc(scale.desc("training loss (smoothed)"))
        .y_labels(scale.label_count())
        .y_label_formatter(&|v| scale.label(*v))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 11))
        .draw()
        .ok()?;
    Some(RunsAxes {
        chart,
        smoothed,
        scale,
    })
}
