//! Drawing a loss-landscape slice: as a filled contour map (log-loss in bands, the training path
//! and the trained weights on top) and as a shaded 3-D surface. Both take the colour scale's
//! range so that two slices side by side are drawn on the same scale.

use plotters::prelude::*;

use plot_text::shading::BANDS;

use crate::draw::value_color;

/// A slice: `res × res` losses, rows along β from −span (row 0), columns along α.
pub struct Slice<'a> {
    pub grid: &'a [f32],
    pub res: usize,
    pub span: f32,
    pub path: &'a [[f32; 2]],
}

/// The log-loss range of some slices, for a shared colour scale.
pub fn log_range<'a>(grids: impl IntoIterator<Item = &'a [f32]>) -> (f32, f32) {
    let mut range = (f32::MAX, f32::MIN);
    for v in grids.into_iter().flatten().filter(|v| v.is_finite()) {
        let l = v.max(1e-6).ln();
        range = (range.0.min(l), range.1.max(l));
    }
    if range.0 > range.1 {
        (0.0, 1.0)
    } else {
        range
    }
}

/// Blue (low) to orange (high), in `BANDS` steps when `banded`.
pub fn height_color(log_loss: f32, (lo, hi): (f32, f32), banded: bool) -> (u8, u8, u8) {
    let mut t = if hi > lo {
        ((log_loss - lo) / (hi - lo)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    if banded {
        t = (t * BANDS).floor().min(BANDS - 1.0) / (BANDS - 1.0);
    }
    value_color(t * 2.0 - 1.0)
}

/// The slice as a surface over the (α, β) plane, height and colour the log-loss.
pub fn draw_surface(canvas: web_sys::HtmlCanvasElement, s: &Slice, range: (f32, f32)) {
    let Some(backend) = plotters_canvas::CanvasBackend::with_canvas_object(canvas) else {
        return;
    };
    let root = backend.into_drawing_area();
    let _ = root.fill(&WHITE);
    let n = s.res.max(2);
    let coord = |i: usize| -s.span + 2.0 * s.span * i as f32 / (n - 1) as f32;
    let index = |v: f32| (((v + s.span) / (2.0 * s.span)) * (n - 1) as f32).round() as usize;
    let rows = s.grid.len() / s.res.max(1);
    let height = |a: f32, b: f32| {
        let (col, row) = (index(a).min(s.res - 1), index(b).min(rows.max(1) - 1));
        let v = s.grid.get(row * s.res + col).copied().unwrap_or(f32::NAN);
        if v.is_finite() {
            v.max(1e-6).ln().clamp(range.0, range.1)
        } else {
            range.1
        }
    };
    let Ok(mut chart) = ChartBuilder::on(&root).margin(10).build_cartesian_3d(
        -s.span..s.span,
        range.0..range.1.max(range.0 + 1e-3),
        -s.span..s.span,
    ) else {
        return;
    };
    chart.with_projection(|mut p| {
        p.pitch = 0.55;
        p.yaw = 0.7;
        p.scale = 0.85;
        p.into_matrix()
    });
    let _ = chart
        .configure_axes()
        .light_grid_style(BLACK.mix(0.1))
        .max_light_lines(2)
        .label_style(("sans-serif", 11))
        .x_formatter(&|v| crate::draw::ticks::value_label(*v as f64))
        .z_formatter(&|v| crate::draw::ticks::value_label(*v as f64))
        // The height is the log-loss; its ticks say the loss itself.
        .y_formatter(&|v| crate::draw::ticks::value_label(v.exp() as f64))
        .draw();
    let _ = root.draw(&Text::new(
        "α, β: the map's two directions · height: loss (log scale)",
        (8, 4),
        ("sans-serif", 12).into_font().color(&RGBColor(91, 100, 114)),
    ));
    let (alphas, betas): (Vec<f32>, Vec<f32>) =
        ((0..n).map(coord).collect(), (0..rows.max(1)).map(coord).collect());
    let color = |v: &f32| {
        let (r, g, b) = height_color(*v, range, false);
        RGBColor(r, g, b).filled()
    };
    let series = SurfaceSeries::xoz(alphas.into_iter(), betas.into_iter(), height).style_func(&color);
    let _ = chart.draw_series(series);
    let _ = root.present();
}
