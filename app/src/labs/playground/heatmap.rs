//! The decision boundary: each grid cell coloured by the predicted class, paler where the model is
//! unsure, with the training points on top.

use web_sys::HtmlCanvasElement;

use crate::draw::{context, css, pixels_canvas, value_color, CLASS_COLORS};
use engine::data::Dataset;

/// Colour of one cell from its class probabilities: the probability-weighted class colour,
/// blended towards white as confidence drops to chance.
fn cell_color(probs: &[f32]) -> (u8, u8, u8) {
    let c = probs.len() as f32;
    let (mut r, mut g, mut b) = (0.0, 0.0, 0.0);
    let mut max_p = 0.0f32;
    for (i, &p) in probs.iter().enumerate() {
        let col = CLASS_COLORS[i % CLASS_COLORS.len()];
        r += p * col.0 as f32;
        g += p * col.1 as f32;
        b += p * col.2 as f32;
        max_p = max_p.max(p);
    }
    let confidence = ((max_p - 1.0 / c) / (1.0 - 1.0 / c)).clamp(0.0, 1.0) * 0.7;
    let mix = |v: f32| (255.0 * (1.0 - confidence) + v * confidence) as u8;
    (mix(r), mix(g), mix(b))
}

/// A grid × grid canvas with one pixel per heatmap cell.
fn cells_canvas(probs: &[f32], grid: usize, classes: usize) -> Option<HtmlCanvasElement> {
    let colors = probs.chunks(classes).map(|cell| {
        if classes == 1 {
            value_color(cell[0])
        } else {
            // Raw MSE outputs are not probabilities: clamp them into [0, 1] for the colour.
            let p: Vec<f32> = cell.iter().map(|v| v.clamp(0.0, 1.0)).collect();
            cell_color(&p)
        }
    });
    pixels_canvas(grid, colors)
}

/// What the heatmap shows.
pub struct View<'a> {
    pub grid: usize,
    /// Outputs per cell: the classes, or 1 for a regression value.
    pub classes: usize,
    /// grid × grid × classes predictions, rows from the top; None before the first prediction.
    pub probs: Option<&'a [f32]>,
    pub train: &'a Dataset,
    /// Drawn hollow when given.
    pub test: Option<&'a Dataset>,
    pub extent: f32,
}

/// Draws the predictions over the square [-extent, extent]² (a blank field before there are
/// any), then the training points (filled) and the test points (hollow).
pub fn draw(canvas: &HtmlCanvasElement, v: &View) {
    let Some(ctx) = context(canvas) else { return };
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w, h);
    if let Some(cells) = v.probs.and_then(|p| cells_canvas(p, v.grid, v.classes)) {
        // One pixel per cell, scaled up with smoothing: a smooth boundary from a coarse grid.
        ctx.set_image_smoothing_enabled(true);
        let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&cells, 0.0, 0.0, w, h);
    }
    let color = |d: &Dataset, i: usize| {
        if d.is_regression() {
            value_color(d.targets[i])
        } else {
            CLASS_COLORS[d.y[i] as usize % CLASS_COLORS.len()]
        }
    };
    let sets = [(Some(v.train), false), (v.test, true)];
    for (data, hollow) in sets.iter().filter_map(|(d, h)| d.map(|d| (d, *h))) {
        // A large upload draws an even sample: tens of thousands of dots hide the boundary and
        // slow every frame.
        for i in (0..data.len()).step_by(drawn_stride(data.len())) {
            let p = data.point(i);
            let x = (p[0] / v.extent + 1.0) as f64 / 2.0 * w;
            let y = (1.0 - p[1] / v.extent) as f64 / 2.0 * h;
            ctx.begin_path();
            let _ = ctx.arc(x, y, 3.5, 0.0, std::f64::consts::TAU);
            if hollow {
                ctx.set_fill_style_str("#ffffff");
                ctx.fill();
                ctx.set_stroke_style_str(&css(color(data, i)));
                ctx.set_line_width(2.0);
            } else {
                ctx.set_fill_style_str(&css(color(data, i)));
                ctx.fill();
                ctx.set_stroke_style_str("#ffffff");
                ctx.set_line_width(1.0);
            }
            ctx.stroke();
        }
    }
}

/// Dots the plot draws of one set at most.
pub const MAX_DRAWN: usize = 1500;

/// Every how many points of a set of `n` the plot draws one.
pub fn drawn_stride(n: usize) -> usize {
    n.div_ceil(MAX_DRAWN).max(1)
}
