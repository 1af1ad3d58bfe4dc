//! The loss curve, redrawn from the history each frame with plotters on a canvas.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

/// What the chart draws, as CSV: step, training loss, test loss (where measured).
pub fn table(losses: &[f32], test: &[(usize, f32)]) -> String {
    let rows = losses.iter().enumerate().map(|(i, l)| {
        let t = test
            .iter()
            .find(|(s, _)| *s == i + 1)
            .map_or(String::new(), |(_, t)| t.to_string());
        [(i + 1).to_string(), l.to_string(), t]
    });
    crate::figures::csv("step,train_loss,test_loss", rows)
}

/// Draws per-step training loss (and its running mean, which is easier to read than the noisy
/// mini-batch values), and the test loss where it was measured.
pub fn draw(canvas: HtmlCanvasElement, losses: &[f32], test: &[(usize, f32)]) {
    let Some(backend) = CanvasBackend::with_canvas_object(canvas) else {
        return;
    };
    let root = backend.into_drawing_area();
    let _ = root.fill(&WHITE);
    let steps = losses.len().max(10);
    let top = losses
        .iter()
        .chain(test.iter().map(|(_, l)| l))
        .copied()
        .filter(|l| l.is_finite())
        .fold(0.1f32, f32::max)
        * 1.05;
    let Ok(mut chart) = ChartBuilder::on(&root)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(45)
        .build_cartesian_2d(0usize..steps, 0f32..top)
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
    let _ = chart.draw_series(LineSeries::new(
        losses.iter().enumerate().map(|(i, &l)| (i + 1, l)),
        &raw,
    ));
    let _ = chart.draw_series(LineSeries::new(
        super::smoothed(losses, 0.95),
        ShapeStyle::from(&super::BLUE).stroke_width(2),
    ));
    // Test loss in the palette's orange, dashed by its sparser points.
    let _ = chart.draw_series(LineSeries::new(
        test.iter().copied(),
        ShapeStyle::from(&super::ORANGE).stroke_width(2),
    ));
    let _ = root.present();
}
