//! Drawing on canvases: the decision-boundary heatmap and the loss chart.

use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

pub mod axes;
pub mod legend;
pub mod loss_chart;
pub use plot_text::ticks;

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

/// Each run's `smoothed` losses (decay 0.9), the points a diverged run left non-finite dropped:
/// what the multi-run loss charts draw.
pub fn smoothed_runs<'a>(losses: impl Iterator<Item = &'a [f32]>) -> Vec<Vec<(usize, f32)>> {
    losses
        .map(|l| smoothed(l, 0.9).into_iter().filter(|p| p.1.is_finite()).collect())
        .collect()
}

/// Strokes a line through `points` (canvas pixels) in the context's current stroke style.
pub fn polyline(ctx: &CanvasRenderingContext2d, points: impl IntoIterator<Item = (f64, f64)>) {
    ctx.begin_path();
    for (k, (x, y)) in points.into_iter().enumerate() {
        if k == 0 {
            ctx.move_to(x, y);
        } else {
            ctx.line_to(x, y);
        }
    }
    ctx.stroke();
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

/// An empty chart's message (what will appear, and what to press), centred in grey and wrapped
/// to the chart's width, so a panel is never a blank white box.
pub fn placeholder<DB: plotters::prelude::DrawingBackend>(
    root: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    message: &str,
) {
    use plotters::prelude::*;
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let (w, h) = root.dim_in_pixel();
    let style = TextStyle::from(("sans-serif", 15).into_font())
        .color(&RGBColor(91, 100, 114))
        .pos(Pos::new(HPos::Center, VPos::Center));
    let width = (w as usize / 8).max(12);
    let mut lines: Vec<String> = Vec::new();
    for word in message.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.len() + 1 + word.len() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    let top = h as i32 / 2 - (lines.len() as i32 - 1) * 10;
    for (i, line) in lines.iter().enumerate() {
        let _ = root.draw(&Text::new(
            line.clone(),
            (w as i32 / 2, top + i as i32 * 20),
            style.clone(),
        ));
    }
}

/// Every chart that nothing has drawn on yet (all its pixels clear) shows what will appear
/// there and what to press: the message in its `data-empty` attribute. Run once a page is on
/// screen; a chart already drawn keeps what it shows.
pub async fn placeholders() {
    crate::frame::next_frame().await;
    crate::frame::next_frame().await;
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(list) = doc.query_selector_all("canvas[data-empty]") else {
        return;
    };
    for i in 0..list.length() {
        let Some(canvas) = list.item(i).and_then(|n| n.dyn_into::<HtmlCanvasElement>().ok()) else {
            continue;
        };
        let (w, h) = (canvas.width(), canvas.height());
        let Some(ctx) = context(&canvas) else { continue };
        let drawn = ctx
            .get_image_data(0.0, 0.0, w as f64, h as f64)
            .is_ok_and(|d| d.data().iter().skip(3).step_by(4).any(|&a| a != 0));
        if drawn {
            continue;
        }
        let message = canvas.get_attribute("data-empty").unwrap_or_default();
        let Some(backend) = plotters_canvas::CanvasBackend::with_canvas_object(canvas) else {
            continue;
        };
        let root = plotters::prelude::IntoDrawingArea::into_drawing_area(backend);
        let _ = root.fill(&plotters::style::RGBColor(250, 251, 252));
        placeholder(&root, &message);
        let _ = root.present();
    }
}
