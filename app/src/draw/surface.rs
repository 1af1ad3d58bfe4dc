//! Drawing a loss-landscape slice: as a filled contour map (log-loss in bands, the training path
//! and the trained weights on top) and as a shaded 3-D surface. Both take the colour scale's
//! range so that two slices side by side are drawn on the same scale.

use plotters::prelude::*;

use super::{context, css, value_color};

/// A slice: `res × res` losses, rows along β from −span (row 0), columns along α.
pub struct Slice<'a> {
    pub grid: &'a [f32],
    pub res: usize,
    pub span: f32,
    pub path: &'a [[f32; 2]],
}

/// Colour bands of the contour map.
const BANDS: f32 = 12.0;

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
fn height_color(log_loss: f32, (lo, hi): (f32, f32), banded: bool) -> (u8, u8, u8) {
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

pub fn draw_contours(canvas: &web_sys::HtmlCanvasElement, s: &Slice, range: (f32, f32)) {
    let Some(ctx) = context(canvas) else { return };
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w, h);
    let cell = (w / s.res as f64, h / s.res as f64);
    for (i, v) in s.grid.iter().enumerate() {
        let (row, col) = (i / s.res, i % s.res);
        let color = if v.is_finite() {
            css(height_color(v.max(1e-6).ln(), range, true))
        } else {
            "#d0d0d0".into()
        };
        ctx.set_fill_style_str(&color);
        // Row 0 is β = −span: draw it at the bottom.
        ctx.fill_rect(
            col as f64 * cell.0,
            h - (row + 1) as f64 * cell.1,
            cell.0 + 0.5,
            cell.1 + 0.5,
        );
    }
    let to_px = |p: [f32; 2]| {
        (
            ((p[0] / s.span + 1.0) / 2.0) as f64 * w,
            ((1.0 - p[1] / s.span) / 2.0) as f64 * h,
        )
    };
    ctx.set_stroke_style_str("#1d2330");
    ctx.set_line_width(2.0);
    ctx.begin_path();
    for (k, p) in s.path.iter().enumerate() {
        let (x, y) = to_px(*p);
        if k == 0 {
            ctx.move_to(x, y);
        } else {
            ctx.line_to(x, y);
        }
    }
    ctx.stroke();
    let (cx, cy) = to_px([0.0, 0.0]);
    ctx.set_fill_style_str("#1d2330");
    ctx.begin_path();
    let _ = ctx.arc(cx, cy, 4.0, 0.0, std::f64::consts::TAU);
    ctx.fill();
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
        .draw();
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
