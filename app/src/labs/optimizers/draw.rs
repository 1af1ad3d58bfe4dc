//! The optimizer lab's pictures: the surface's contours, each optimizer's path over them, and
//! the losses side by side.

use lab_sims::surfaces::{Path, Surface};

use crate::draw::{context, css};

/// Racer i's colour.
pub fn rgb(i: usize) -> (u8, u8, u8) {
    lab_state::palette::RACERS[i % lab_state::palette::RACERS.len()]
}

pub fn color(i: usize) -> String {
    css(rgb(i))
}

/// The surface as bands of log-loss (a contour map), drawn once per surface into an image.
pub fn draw_contours(canvas: &web_sys::HtmlCanvasElement, surface: Surface) {
    let Some(ctx) = context(canvas) else { return };
    let (w, h) = (canvas.width() as usize, canvas.height() as usize);
    let [x0, x1, y0, y1] = surface.view();
    let mut values = Vec::with_capacity(w * h);
    for py in 0..h {
        for px in 0..w {
            let x = x0 + (px as f32 + 0.5) / w as f32 * (x1 - x0);
            let y = y1 - (py as f32 + 0.5) / h as f32 * (y1 - y0);
            values.push(surface.value(x, y));
        }
    }
    let lo = values.iter().copied().fold(f32::INFINITY, f32::min);
    let mut rgba = Vec::with_capacity(w * h * 4);
    for v in values {
        // log(1 + v − min) in bands of 0.5: equal steps of relative height.
        let level = (1.0 + (v - lo).max(0.0)).ln();
        let band = (level / 0.5).floor();
        let shade = (level / 12.0).clamp(0.0, 1.0);
        let stripe = if (band as i64) % 2 == 0 { 0.0 } else { 10.0 };
        let c = |a: f32, b: f32| (a + (b - a) * shade - stripe).clamp(0.0, 255.0) as u8;
        rgba.extend_from_slice(&[c(235.0, 40.0), c(244.0, 70.0), c(250.0, 110.0), 255]);
    }
    if let Ok(img) =
        web_sys::ImageData::new_with_u8_clamped_array_and_sh(wasm_bindgen::Clamped(&rgba), w as u32, h as u32)
    {
        let _ = ctx.put_image_data(&img, 0.0, 0.0);
    }
    axis_labels(&ctx, [x0, x1, y0, y1], w as f64, h as f64);
    mark_minima(&ctx, surface, w as f64, h as f64);
}

/// Each global minimum as a white-edged ✕, and a valley of minima as a dashed curve: where the
/// racers should end.
fn mark_minima(ctx: &web_sys::CanvasRenderingContext2d, surface: Surface, w: f64, h: f64) {
    let [x0, x1, y0, y1] = surface.view();
    let to_px = |x: f32, y: f32| {
        (
            ((x - x0) / (x1 - x0)) as f64 * w,
            ((y1 - y) / (y1 - y0)) as f64 * h,
        )
    };
    for (colour, width) in [("#ffffff", 5.0), ("#1d2330", 2.0)] {
        ctx.set_stroke_style_str(colour);
        ctx.set_line_width(width);
        for [x, y] in surface.minima() {
            let (px, py) = to_px(x, y);
            crate::draw::polyline(ctx, [(px - 6.0, py - 6.0), (px + 6.0, py + 6.0)]);
            crate::draw::polyline(ctx, [(px - 6.0, py + 6.0), (px + 6.0, py - 6.0)]);
        }
    }
    if let Some(valley) = surface.minimum_valley() {
        ctx.set_stroke_style_str("#1d2330");
        ctx.set_line_width(1.5);
        let _ = ctx.set_line_dash(&js_sys::Array::of2(&6.0.into(), &4.0.into()));
        // Each branch of the valley separately (it is not defined where x = 0).
        for (a, b) in [(x0, -1e-3f32), (1e-3, x1)] {
            let points = (0..=200)
                .map(|k| a + (b - a) * k as f32 / 200.0)
                .map(|x| (x, valley(x)))
                .filter(|(_, y)| (y0..=y1).contains(y))
                .map(|(x, y)| to_px(x, y));
            crate::draw::polyline(ctx, points);
        }
        let _ = ctx.set_line_dash(&js_sys::Array::new());
    }
}

/// The map's coordinates written along its bottom (x) and left (y) edges, inside the map so that
/// a click still maps the whole canvas onto the surface's view.
fn axis_labels(ctx: &web_sys::CanvasRenderingContext2d, [x0, x1, y0, y1]: [f32; 4], w: f64, h: f64) {
    use crate::draw::ticks::value_label;
    ctx.set_fill_style_str("#1d2330");
    ctx.set_font("11px sans-serif");
    for (k, f) in [0.0, 0.5, 1.0].into_iter().enumerate() {
        let x = value_label((x0 + f * (x1 - x0)) as f64);
        let y = value_label((y0 + f * (y1 - y0)) as f64);
        ctx.set_text_align(["left", "center", "right"][k]);
        let _ = ctx.fill_text(&x, 3.0 + f as f64 * (w - 6.0), h - 4.0);
        ctx.set_text_align("left");
        let _ = ctx.fill_text(&y, 3.0, (h - 16.0) - f as f64 * (h - 30.0));
    }
    ctx.set_font("italic 13px sans-serif");
    ctx.set_text_align("center");
    let _ = ctx.fill_text("x", w * 0.75, h - 4.0);
    let _ = ctx.fill_text("y", 10.0, h * 0.25);
    ctx.set_text_align("start");
}

pub fn draw_paths(
    canvas: &web_sys::HtmlCanvasElement,
    surface: Surface,
    paths: &[(usize, Path)],
    upto: usize,
    start: [f32; 2],
) {
    let Some(ctx) = context(canvas) else { return };
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    let [x0, x1, y0, y1] = surface.view();
    let to_px = |p: [f32; 2]| {
        (
            ((p[0] - x0) / (x1 - x0)) as f64 * w,
            ((y1 - p[1]) / (y1 - y0)) as f64 * h,
        )
    };
    for (i, path) in paths {
        ctx.set_stroke_style_str(&color(*i));
        ctx.set_line_width(2.0);
        crate::draw::polyline(&ctx, path.points.iter().take(upto + 1).map(|p| to_px(*p)));
        if let Some(last) = path.points.get(upto.min(path.points.len().saturating_sub(1))) {
            let (px, py) = to_px(*last);
            ctx.begin_path();
            let _ = ctx.arc(px, py, 4.0, 0.0, std::f64::consts::TAU);
            ctx.set_fill_style_str(&color(*i));
            ctx.fill();
        }
    }
    let (sx, sy) = to_px(start);
    ctx.set_stroke_style_str("#1d2330");
    ctx.set_line_width(2.0);
    ctx.stroke_rect(sx - 5.0, sy - 5.0, 10.0, 10.0);
}

/// Each racer's loss per step; on a log axis (labelled at whole decades) when `log` and every
/// loss is positive, where a constant rate of convergence is a straight line.
pub fn draw_losses(
    canvas: web_sys::HtmlCanvasElement,
    paths: &[(usize, Path)],
    upto: usize,
    names: &[&str],
    log: bool,
) {
    use plotters::prelude::*;
    let Some(backend) = plotters_canvas::CanvasBackend::with_canvas_object(canvas) else {
        return;
    };
    let root = backend.into_drawing_area();
    let _ = root.fill(&WHITE);
    let keys: Vec<crate::draw::legend::Key> = paths
        .iter()
        .map(|(i, _)| {
            let c = rgb(*i);
            crate::draw::legend::Key::line(names[*i], RGBColor(c.0, c.1, c.2))
        })
        .collect();
    let plot = crate::draw::legend::below(&root, &keys);
    let all = paths.iter().flat_map(|(_, p)| p.losses.iter().copied());
    let steps = paths
        .iter()
        .map(|(_, p)| p.losses.len())
        .max()
        .unwrap_or(2)
        .max(2);
    let Some((mut chart, y)) = crate::draw::loss_chart::loss_axes(&plot, steps as u64, all, log) else {
        return;
    };
    for (i, path) in paths {
        let c = rgb(*i);
        let style = ShapeStyle::from(&RGBColor(c.0, c.1, c.2)).stroke_width(2);
        let points = path
            .losses
            .iter()
            .take(upto + 1)
            .enumerate()
            .map(|(k, &l)| (k as u64, y(l)));
        let _ = chart.draw_series(LineSeries::new(points, style));
    }
    let _ = root.present();
}
