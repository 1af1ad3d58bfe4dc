//! The network diagram, as in TensorFlow Playground: a column of neurons per layer, each drawn as
//! its own small heatmap (what that neuron computes over the input square), and links whose colour
//! follows the weight's sign and whose thickness its size. Hovering a neuron shows it enlarged.

use web_sys::HtmlCanvasElement;

use crate::draw::{context, css, pixels_canvas, value_color, CLASS_COLORS};

/// Neurons drawn per column; more are summarized as "+N".
const MAX_SHOWN: usize = 10;
const SIZE: f64 = 26.0;
const GAP: f64 = 7.0;
const ENLARGED: f64 = 120.0;

/// How a column's values are coloured.
#[derive(Clone, Copy, PartialEq)]
pub enum Shade {
    /// Diverging around zero (inputs, hidden activations, regression output).
    Values,
    /// Class probabilities, each neuron in its class's colour.
    Probabilities,
}

pub struct Column {
    pub title: String,
    pub shade: Shade,
    /// One grid × grid image per neuron, rows from the top.
    pub neurons: Vec<Vec<f32>>,
}

pub struct Diagram {
    pub grid: usize,
    pub columns: Vec<Column>,
    /// weights[c][to][from]: the links from column c to column c + 1.
    pub weights: Vec<Vec<Vec<f32>>>,
}

/// Where neuron `i` of column `c` sits: (x, y) of its top-left corner.
fn position(d: &Diagram, c: usize, i: usize, w: f64, h: f64) -> (f64, f64) {
    let cols = d.columns.len().max(1) as f64;
    let x = 20.0 + c as f64 * (w - 40.0 - SIZE - ENLARGED) / (cols - 1.0).max(1.0);
    let n = d.columns[c].neurons.len().min(MAX_SHOWN) as f64;
    let top = 34.0 + ((h - 44.0) - (n * SIZE + (n - 1.0) * GAP)).max(0.0) / 2.0;
    (x, top + i as f64 * (SIZE + GAP))
}

/// The neuron under (x, y), as (column, index).
pub fn hit(d: &Diagram, canvas: &HtmlCanvasElement, x: f64, y: f64) -> Option<(usize, usize)> {
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    for (c, col) in d.columns.iter().enumerate() {
        for i in 0..col.neurons.len().min(MAX_SHOWN) {
            let (nx, ny) = position(d, c, i, w, h);
            if x >= nx && x <= nx + SIZE && y >= ny && y <= ny + SIZE {
                return Some((c, i));
            }
        }
    }
    None
}

fn image(values: &[f32], grid: usize, shade: Shade, class: usize) -> Option<HtmlCanvasElement> {
    let colors = values.iter().map(|&v| match shade {
        Shade::Values => value_color(v),
        Shade::Probabilities => {
            let col = CLASS_COLORS[class % CLASS_COLORS.len()];
            let t = v.clamp(0.0, 1.0) * 0.85;
            let mix = |c: u8| (255.0 * (1.0 - t) + c as f32 * t) as u8;
            (mix(col.0), mix(col.1), mix(col.2))
        }
    });
    pixels_canvas(grid, colors)
}

pub fn draw(canvas: &HtmlCanvasElement, d: &Diagram, hovered: Option<(usize, usize)>) {
    let Some(ctx) = context(canvas) else { return };
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w, h);
    // Links first, under the neurons; thickness relative to the largest weight of the layer.
    for (c, layer) in d.weights.iter().enumerate() {
        let max = layer.iter().flatten().fold(1e-6f32, |m, v| m.max(v.abs()));
        for (to, row) in layer.iter().enumerate().take(MAX_SHOWN) {
            for (from, &wt) in row.iter().enumerate().take(MAX_SHOWN) {
                let (x0, y0) = position(d, c, from, w, h);
                let (x1, y1) = position(d, c + 1, to, w, h);
                ctx.begin_path();
                ctx.move_to(x0 + SIZE, y0 + SIZE / 2.0);
                ctx.line_to(x1, y1 + SIZE / 2.0);
                let col = if wt >= 0.0 {
                    CLASS_COLORS[0]
                } else {
                    CLASS_COLORS[1]
                };
                ctx.set_stroke_style_str(&css(col));
                ctx.set_global_alpha(0.25 + 0.6 * (wt.abs() / max) as f64);
                ctx.set_line_width(0.4 + 3.5 * (wt.abs() / max) as f64);
                ctx.stroke();
            }
        }
    }
    ctx.set_global_alpha(1.0);
    ctx.set_image_smoothing_enabled(true);
    ctx.set_font("11px sans-serif");
    for (c, col) in d.columns.iter().enumerate() {
        let (x, _) = position(d, c, 0, w, h);
        ctx.set_fill_style_str("#5b6472");
        let _ = ctx.fill_text(&col.title, x - 6.0, 14.0);
        for (i, values) in col.neurons.iter().enumerate().take(MAX_SHOWN) {
            let (nx, ny) = position(d, c, i, w, h);
            if let Some(img) = image(values, d.grid, col.shade, i) {
                let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&img, nx, ny, SIZE, SIZE);
            }
            ctx.set_stroke_style_str(if hovered == Some((c, i)) {
                "#1d2330"
            } else {
                "#b8c0cc"
            });
            ctx.set_line_width(if hovered == Some((c, i)) { 2.0 } else { 1.0 });
            ctx.stroke_rect(nx, ny, SIZE, SIZE);
        }
        if col.neurons.len() > MAX_SHOWN {
            let (nx, ny) = position(d, c, MAX_SHOWN - 1, w, h);
            ctx.set_fill_style_str("#5b6472");
            let _ = ctx.fill_text(
                &format!("+{}", col.neurons.len() - MAX_SHOWN),
                nx,
                ny + SIZE + 12.0,
            );
        }
    }
    if let Some((c, i)) = hovered {
        let col = &d.columns[c];
        if let Some(img) = col.neurons.get(i).and_then(|v| image(v, d.grid, col.shade, i)) {
            let (x, y) = (w - ENLARGED - 10.0, 30.0);
            let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&img, x, y, ENLARGED, ENLARGED);
            ctx.set_stroke_style_str("#1d2330");
            ctx.set_line_width(1.0);
            ctx.stroke_rect(x, y, ENLARGED, ENLARGED);
            ctx.set_fill_style_str("#1d2330");
            let _ = ctx.fill_text(
                &format!("{}, neuron {}", col.title, i + 1),
                x,
                y + ENLARGED + 14.0,
            );
        }
    }
}
