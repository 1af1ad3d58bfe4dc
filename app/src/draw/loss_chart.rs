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

/// Draws per-step training loss (and its running mean, which is easier to read than the noisy
/// mini-batch values), and the test loss where it was measured.
pub fn draw(canvas: HtmlCanvasElement, losses: &[(u64, f32)], test: &[(u64, f32)]) {
    let Some(backend) = CanvasBackend::with_canvas_object(canvas) else {
        return;
    };
    let root = backend.into_drawing_area();
    let _ = root.fill(&WHITE);
    let steps = losses.last().map_or(0, |l| l.0).max(10);
    let top = losses
        .iter()
        .chain(test)
        .map(|(_, l)| l)
        .copied()
        .filter(|l| l.is_finite())
        .fold(0.1f32, f32::max)
        * 1.05;
    let Ok(mut chart) = ChartBuilder::on(&root)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(45)
        .build_cartesian_2d(0u64..steps, 0f32..top)
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .x_desc("step")
        .y_desc("loss")
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw();
    let raw = RGBColor(170, 200, 225);
    let _ = chart.draw_series(LineSeries::new(losses.iter().copied(), &raw));
    let values: Vec<f32> = losses.iter().map(|l| l.1).collect();
    let steps_of = losses.iter().map(|l| l.0);
    let _ = chart.draw_series(LineSeries::new(
        steps_of.zip(super::smoothed(&values, 0.95).into_iter().map(|(_, v)| v)),
        ShapeStyle::from(&super::BLUE).stroke_width(2),
    ));
    // Test loss in the palette's orange, dashed by its sparser points.
    let _ = chart.draw_series(LineSeries::new(
        test.iter().copied(),
        ShapeStyle::from(&super::ORANGE).stroke_width(2),
    ));
    let _ = root.present();
}
