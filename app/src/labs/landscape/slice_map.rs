//! A loss-landscape slice as a map a student can read: the log-loss interpolated bilinearly at
//! display resolution and filled in bands, so the band edges are smooth contour lines (drawn
//! darker), the axes named (α, β) with their values, a colour bar with the loss it stands for,
//! the lowest point of the slice marked, the trained weights (the dot) and the training path.

use web_sys::HtmlCanvasElement;

use plot_text::shading::{band, bilinear, BANDS};

use crate::landscape::surface_chart::{height_color, Slice};
use crate::draw::ticks::value_label;
use crate::draw::{context, css, pixels_canvas_rect, polyline};

/// Space for the β axis (left), the α axis (bottom) and the colour bar (right), in pixels.
const LEFT: f64 = 42.0;
const BOTTOM: f64 = 36.0;
const RIGHT: f64 = 64.0;
const TOP: f64 = 8.0;

pub fn draw_map(canvas: &HtmlCanvasElement, s: &Slice, range: (f32, f32)) {
    let Some(ctx) = context(canvas) else { return };
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w, h);
    let (pw, ph) = (
        (w - LEFT - RIGHT).max(10.0) as usize,
        (h - TOP - BOTTOM).max(10.0) as usize,
    );
    if s.res < 2 || s.grid.len() < s.res * s.res {
        return;
    }
    // Log-loss at every display pixel (row 0 of the grid is β = −span: the bottom).
    let scale = (s.res - 1) as f32;
    let logs: Vec<f32> = (0..ph)
        .flat_map(|py| (0..pw).map(move |px| (px, py)))
        .map(|(px, py)| {
            let x = px as f32 / (pw - 1) as f32 * scale;
            let y = (1.0 - py as f32 / (ph - 1) as f32) * scale;
            bilinear(s.grid, s.res, x, y).max(1e-6).ln()
        })
        .collect();
    let bands: Vec<i32> = logs.iter().map(|&l| band(l, range)).collect();
    let colors = (0..pw * ph).map(|i| {
        let b = bands[i];
        if b < 0 {
            return (208, 208, 208);
        }
        // A pixel whose right or lower neighbour is in another band lies on a contour line.
        let edge = (i % pw + 1 < pw && bands[i + 1] != b) || (i + pw < pw * ph && bands[i + pw] != b);
        let c = height_color(logs[i], range, true);
        if edge {
            (c.0 / 2 + 20, c.1 / 2 + 20, c.2 / 2 + 20)
        } else {
            c
        }
    });
    if let Some(img) = pixels_canvas_rect(pw, ph, colors) {
        let _ = ctx.draw_image_with_html_canvas_element(&img, LEFT, TOP);
    }
    let (pw, ph) = (pw as f64, ph as f64);
    let to_px = |p: [f32; 2]| {
        (
            LEFT + ((p[0] / s.span + 1.0) / 2.0) as f64 * pw,
            TOP + ((1.0 - p[1] / s.span) / 2.0) as f64 * ph,
        )
    };
    // The training path, the trained weights (dot) and the slice's lowest point (ring).
    ctx.set_stroke_style_str("#1d2330");
    ctx.set_line_width(2.0);
    polyline(&ctx, s.path.iter().map(|p| to_px(*p)));
    let (cx, cy) = to_px([0.0, 0.0]);
    ctx.set_fill_style_str("#1d2330");
    ctx.begin_path();
    let _ = ctx.arc(cx, cy, 4.0, 0.0, std::f64::consts::TAU);
    ctx.fill();
    if let Some((i, _)) = s
        .grid
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .min_by(|a, b| a.1.total_cmp(b.1))
    {
        let step = 2.0 * s.span / (s.res - 1) as f32;
        let (row, col) = (i / s.res, i % s.res);
        let (mx, my) = to_px([-s.span + col as f32 * step, -s.span + row as f32 * step]);
        ctx.set_stroke_style_str("#ffffff");
        ctx.set_line_width(2.0);
        ctx.begin_path();
        let _ = ctx.arc(mx, my, 6.0, 0.0, std::f64::consts::TAU);
        ctx.stroke();
        ctx.set_fill_style_str("#1d2330");
        ctx.set_font("11px sans-serif");
        let _ = ctx.fill_text("min", mx + 8.0, my - 6.0);
    }
    axes(&ctx, s.span, pw, ph);
    colour_bar(&ctx, range, LEFT + pw + 10.0, ph);
}

/// α along the bottom and β up the left, ticks at −span, 0 and span.
fn axes(ctx: &web_sys::CanvasRenderingContext2d, span: f32, pw: f64, ph: f64) {
    ctx.set_fill_style_str("#1d2330");
    ctx.set_stroke_style_str("#1d2330");
    ctx.set_line_width(1.0);
    ctx.stroke_rect(LEFT, TOP, pw, ph);
    ctx.set_font("11px sans-serif");
    for (k, v) in [-span, 0.0, span].iter().enumerate() {
        let label = value_label(*v as f64);
        let f = k as f64 / 2.0;
        ctx.set_text_align("center");
        let _ = ctx.fill_text(&label, LEFT + f * pw, TOP + ph + 13.0);
        ctx.set_text_align("right");
        let _ = ctx.fill_text(&label, LEFT - 4.0, TOP + (1.0 - f) * ph + 4.0);
    }
    ctx.set_font("13px sans-serif");
    ctx.set_text_align("center");
    let _ = ctx.fill_text("α (first direction)", LEFT + pw / 2.0, TOP + ph + 29.0);
    ctx.save();
    let _ = ctx.translate(13.0, TOP + ph / 2.0);
    let _ = ctx.rotate(-std::f64::consts::FRAC_PI_2);
    let _ = ctx.fill_text("β (second direction)", 0.0, 0.0);
    ctx.restore();
    ctx.set_text_align("start");
}

/// The bands from low (bottom) to high, labelled with the loss (not its log) at both ends and
/// the middle.
fn colour_bar(ctx: &web_sys::CanvasRenderingContext2d, (lo, hi): (f32, f32), x: f64, ph: f64) {
    let bw = 12.0;
    for b in 0..BANDS as usize {
        let t = (b as f32 + 0.5) / BANDS;
        ctx.set_fill_style_str(&css(height_color(lo + t * (hi - lo), (lo, hi), true)));
        let y0 = TOP + ph * (1.0 - (b + 1) as f64 / BANDS as f64);
        ctx.fill_rect(x, y0, bw, ph / BANDS as f64 + 0.5);
    }
    ctx.set_stroke_style_str("#1d2330");
    ctx.stroke_rect(x, TOP, bw, ph);
    ctx.set_fill_style_str("#1d2330");
    ctx.set_font("11px sans-serif");
    for (f, l) in [(0.0, lo), (0.5, (lo + hi) / 2.0), (1.0, hi)] {
        let _ = ctx.fill_text(
            &value_label(l.exp() as f64),
            x + bw + 3.0,
            TOP + (1.0 - f) * ph + 4.0,
        );
    }
    ctx.save();
    let _ = ctx.translate(x + bw + 3.0, TOP + ph + 14.0);
    let _ = ctx.fill_text("loss", 0.0, 0.0);
    ctx.restore();
}
