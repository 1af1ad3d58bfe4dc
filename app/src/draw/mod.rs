//! Drawing on canvases: the decision-boundary heatmap and the loss chart.

use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

pub mod cluster;
pub mod heatmap;
pub mod loss_chart;
pub mod network;
pub mod optimizers;
pub mod scaling;
pub mod scaling_runs;
pub mod schedule;
pub mod surface;
pub mod vision;

/// Okabe–Ito colours, checked apart for colour-blind students (`lab_state::palette`).
pub const CLASS_COLORS: [(u8, u8, u8); 5] = lab_state::palette::CLASSES;
/// The two colours of two-series charts (train and test, loss and its target).
const PAIR: [(u8, u8, u8); 2] = lab_state::palette::PAIR;
pub const BLUE: plotters::style::RGBColor = plotters::style::RGBColor(PAIR[0].0, PAIR[0].1, PAIR[0].2);
pub const ORANGE: plotters::style::RGBColor = plotters::style::RGBColor(PAIR[1].0, PAIR[1].1, PAIR[1].2);

pub fn css(rgb: (u8, u8, u8)) -> String {
    format!("rgb({},{},{})", rgb.0, rgb.1, rgb.2)
}

/// A value's colour: its sign picks orange (above zero) or blue (below), its size the strength;
/// values beyond ±1 saturate. For regression outputs and for what neurons compute.
pub fn value_color(v: f32) -> (u8, u8, u8) {
    let col = if v >= 0.0 {
        CLASS_COLORS[0]
    } else {
        CLASS_COLORS[1]
    };
    let t = v.abs().min(1.0) * 0.8;
    let mix = |c: u8| (255.0 * (1.0 - t) + c as f32 * t) as u8;
    (mix(col.0), mix(col.1), mix(col.2))
}

/// An exponential moving average of a per-step series with Adam's bias correction (so it does not
/// lag the start), as (step from 1, value) points: noisy mini-batch values are easier to read so.
pub fn smoothed(values: &[f32], decay: f32) -> Vec<(usize, f32)> {
    let (mut ema, mut weight) = (0.0f32, 0.0f32);
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            ema = decay * ema + (1.0 - decay) * v;
            weight = decay * weight + (1.0 - decay);
            (i + 1, ema / weight)
        })
        .collect()
}

/// The 2-D drawing context of a canvas.
pub fn context(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas.get_context("2d").ok().flatten()?.dyn_into().ok()
}

/// An offscreen `size × size` canvas with one pixel per colour (rows from the top), to be drawn
/// scaled up: heatmaps computed on a coarse grid.
pub fn pixels_canvas(size: usize, colors: impl Iterator<Item = (u8, u8, u8)>) -> Option<HtmlCanvasElement> {
    pixels_canvas_rect(size, size, colors)
}

/// An offscreen `w × h` canvas with one pixel per colour, rows from the top.
pub fn pixels_canvas_rect(
    w: usize,
    h: usize,
    colors: impl Iterator<Item = (u8, u8, u8)>,
) -> Option<HtmlCanvasElement> {
    let doc = web_sys::window()?.document()?;
    let canvas: HtmlCanvasElement = doc.create_element("canvas").ok()?.dyn_into().ok()?;
    canvas.set_width(w as u32);
    canvas.set_height(h as u32);
    let rgba: Vec<u8> = colors.take(w * h).flat_map(|(r, g, b)| [r, g, b, 255]).collect();
    let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&rgba), w as u32, h as u32).ok()?;
    context(&canvas)?.put_image_data(&image, 0.0, 0.0).ok()?;
    Some(canvas)
}
