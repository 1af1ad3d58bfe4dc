//! The vision lab's drawings: loss and accuracy curves, grayscale images (a digit, filters,
//! feature maps, misclassified thumbnails) and the confusion matrix.

use plotters::prelude::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use engine::inspect::{Evaluation, Miss};

use crate::draw::context;
use crate::draw::legend::{self, Key};
use crate::draw::loss_chart::LossScale;
use crate::draw::axes::{area, line_with_dots};
use crate::figures::{csv, table_of};

/// At an epoch's end: (step, training-set loss, its accuracy, test loss, test accuracy).
pub type EpochPoint = (usize, f32, f32, f32, f32);

use crate::draw::{BLUE, ORANGE};

/// What `curves` draws, as CSV: the batch loss per step with the test loss at each epoch's end,
/// or with `accuracy` the training-set and test accuracy at each epoch's end.
pub fn curves_table(losses: &[f32], epochs: &[EpochPoint], accuracy: bool) -> String {
    if accuracy {
        csv(
            "step,train_accuracy,test_accuracy",
            epochs
                .iter()
                .map(|e| [e.0.to_string(), e.2.to_string(), e.4.to_string()]),
        )
    } else {
        let per_step = losses.iter().enumerate().map(|(k, l)| {
            let test = epochs
                .iter()
                .find(|e| e.0 == k + 1)
                .map_or(String::new(), |e| e.3.to_string());
            [(k + 1).to_string(), l.to_string(), test]
        });
        csv("step,batch_loss,test_loss", per_step)
    }
}

/// The loss per step (smoothed) with the test loss at each epoch's end, on a log axis when `log`;
/// or, with `accuracy`, the training-set and test accuracy at each epoch's end.
pub fn curves(
    canvas: HtmlCanvasElement,
    losses: &[f32],
    epochs: &[EpochPoint],
    accuracy: bool,
    log: bool,
) -> Option<()> {
    let root = area(canvas)?;
    let steps = losses.len().max(epochs.last().map_or(1, |e| e.0)).max(1) as f32;
    let keys = if accuracy {
        [Key::line("training set", BLUE), Key::line("test set", ORANGE)]
    } else {
        [
            Key::line("training batches (smoothed)", BLUE),
            Key::line("test set", ORANGE),
        ]
    };
    let plot = legend::below(&root, &keys);
    let smoothed = crate::draw::smoothed(losses, 0.95);
    let scale = if accuracy {
        LossScale {
            range: 0.0..1.0,
            log: false,
        }
    } else {
        LossScale::new(
            smoothed.iter().map(|p| p.1).chain(epochs.iter().map(|e| e.3)),
            log,
        )
    };
    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0f32..steps, scale.range.clone())
        .ok()?;
    chart
        .configure_mesh()
        .x_desc("step")
        .y_desc(if accuracy {
            "accuracy".to_string()
        } else {
            scale.desc("loss")
        })
        .x_labels(6)
        .y_labels(scale.label_count())
        .x_label_formatter(&|v| crate::draw::ticks::step_label(*v as f64))
        .y_label_formatter(&|v| scale.label(*v))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw()
        .ok()?;
    if accuracy {
        for (i, c) in [(2, BLUE), (4, ORANGE)] {
            let pts: Vec<(f32, f32)> = epochs
                .iter()
                .map(|e| (e.0 as f32, if i == 2 { e.2 } else { e.4 }))
                .collect();
            line_with_dots(&mut chart, pts, c)?;
        }
    } else {
        let line = smoothed.into_iter().map(|(s, v)| (s as f32, scale.y(v)));
        chart
            .draw_series(LineSeries::new(line, BLUE.stroke_width(2)))
            .ok()?;
        let test: Vec<(f32, f32)> = epochs.iter().map(|e| (e.0 as f32, scale.y(e.3))).collect();
        line_with_dots(&mut chart, test, ORANGE)?;
    }
    root.present().ok()
}

/// Draws a `w × h` grayscale image (values scaled from [lo, hi] to white…black, or diverging
/// blue/orange around zero when `signed`) at (x, y), `scale` pixels per value.
#[allow(clippy::too_many_arguments)]
pub fn gray(
    ctx: &CanvasRenderingContext2d,
    values: &[f32],
    w: usize,
    h: usize,
    x: f64,
    y: f64,
    scale: f64,
    signed: bool,
) {
    let (lo, hi) = values
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let span = if signed {
        lo.abs().max(hi.abs()).max(1e-6)
    } else {
        (hi - lo).max(1e-6)
    };
    let Some(img) = crate::draw::pixels_canvas_rect(
        w,
        h,
        values.iter().map(|&v| {
            if signed {
                crate::draw::value_color(v / span)
            } else {
                let t = ((v - lo) / span).clamp(0.0, 1.0);
                let g = (255.0 * (1.0 - t)) as u8;
                (g, g, g)
            }
        }),
    ) else {
        return;
    };
    ctx.set_image_smoothing_enabled(false);
    let _ =
        ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&img, x, y, w as f64 * scale, h as f64 * scale);
}

fn clear(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    let ctx = context(canvas)?;
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, canvas.width() as f64, canvas.height() as f64);
    Some(ctx)
}

/// The first convolution's filters (each filter's first channel, blue negative, orange
/// positive, each kernel on its own scale) and, when known, below them what training changed:
/// the filters minus their start (`change`, in the same layout).
pub fn filters(
    canvas: &HtmlCanvasElement,
    f: usize,
    c: usize,
    k: usize,
    w: &[f32],
    change: Option<&[f32]>,
) -> Option<()> {
    let n = f * c * k * k;
    let change = change.filter(|d| d.len() >= n);
    let rows = (0..n).filter_map(|i| {
        let v = w.get(i)?;
        let changed = change.map_or(String::new(), |d| d[i].to_string());
        Some(
            [i / (c * k * k), i / (k * k) % c, i / k % k, i % k]
                .map(|x| x.to_string())
                .into_iter()
                .chain([v.to_string(), changed]),
        )
    });
    table_of(
        canvas,
        csv("filter,channel,row,column,weight,change since the start", rows),
    );
    let cell = ((canvas.width() as f64 - 10.0) / 8.0).min(60.0);
    let block = 16.0 + f.div_ceil(8) as f64 * cell;
    let blocks = [
        Some(("weights now", &w[..n])),
        change.map(|d| ("change since the start", &d[..n])),
    ];
    canvas.set_height((blocks.iter().flatten().count() as f64 * block + 4.0) as u32);
    let ctx = clear(canvas)?;
    ctx.set_font("12px sans-serif");
    let scale = ((cell - 6.0) / k as f64).floor().max(1.0);
    for (b, (label, values)) in blocks.into_iter().flatten().enumerate() {
        let top = b as f64 * block;
        ctx.set_fill_style_str("#333");
        let _ = ctx.fill_text(label, 5.0, top + 12.0);
        for i in 0..f {
            let kernel = &values[i * c * k * k..i * c * k * k + k * k];
            let (x, y) = (5.0 + (i % 8) as f64 * cell, top + 16.0 + (i / 8) as f64 * cell);
            gray(&ctx, kernel, k, k, x, y, scale, true);
        }
    }
    Some(())
}

/// Each layer's output for one input: one row of channel images per layer with a spatial output.
pub fn feature_maps(canvas: &HtmlCanvasElement, layers: &[(String, [usize; 3], Vec<f32>)]) -> Option<()> {
    let rows = layers.iter().flat_map(|(name, [c, h, w], values)| {
        values.iter().enumerate().take(c * h * w).map(move |(i, v)| {
            [
                name.clone(),
                (i / (h * w)).to_string(),
                (i / w % h).to_string(),
                (i % w).to_string(),
                v.to_string(),
            ]
        })
    });
    table_of(canvas, csv("layer,channel,row,column,value", rows));
    let ctx = clear(canvas)?;
    let width = canvas.width() as f64;
    let mut y = 4.0;
    ctx.set_font("11px sans-serif");
    for (name, [c, h, w], values) in layers {
        ctx.set_fill_style_str("#333");
        let _ = ctx.fill_text(name, 4.0, y + 10.0);
        y += 14.0;
        let scale = (((width - 8.0) / (*c as f64).min(16.0)) - 3.0) / *w as f64;
        let scale = scale.clamp(1.0, 3.0);
        for ch in 0..(*c).min(16) {
            let plane = &values[ch * h * w..(ch + 1) * h * w];
            gray(
                &ctx,
                plane,
                *w,
                *h,
                4.0 + ch as f64 * (*w as f64 * scale + 3.0),
                y,
                scale,
                false,
            );
        }
        y += *h as f64 * scale + 8.0;
    }
    Some(())
}

/// The confusion matrix: rows are true classes, columns predictions; cells shaded by their share
/// of the row, with the counts.
pub fn confusion(canvas: &HtmlCanvasElement, e: &Evaluation, names: &[&str]) -> Option<()> {
    let n = e.classes;
    let rows = (0..n * n).map(|i| {
        let name = |k: usize| names.get(k).map_or(k.to_string(), |s| s.to_string());
        [name(i / n), name(i % n), e.confusion[i].to_string()]
    });
    table_of(canvas, csv("true_class,predicted_class,test_images", rows));
    let ctx = clear(canvas)?;
    let n = e.classes;
    let (left, top) = (70.0, 40.0);
    let cell = ((canvas.width() as f64 - left - 8.0) / n as f64)
        .min((canvas.height() as f64 - top - 8.0) / n as f64);
    ctx.set_font("11px sans-serif");
    ctx.set_fill_style_str("#333");
    let _ = ctx.fill_text("predicted →", left, 12.0);
    for r in 0..n {
        let total: u32 = e.confusion[r * n..(r + 1) * n].iter().sum::<u32>().max(1);
        ctx.set_fill_style_str("#333");
        let _ = ctx.fill_text(
            names.get(r).copied().unwrap_or(""),
            2.0,
            top + r as f64 * cell + cell * 0.65,
        );
        let _ = ctx.fill_text(&r.to_string(), left + r as f64 * cell + cell * 0.35, top - 6.0);
        for c in 0..n {
            let v = e.confusion[r * n + c];
            let t = v as f64 / total as f64;
            let base = if r == c {
                (0.0, 158.0, 115.0)
            } else {
                (213.0, 94.0, 0.0)
            };
            let mix = |b: f64| (255.0 * (1.0 - t) + b * t) as u8;
            ctx.set_fill_style_str(&format!("rgb({},{},{})", mix(base.0), mix(base.1), mix(base.2)));
            let (x, y) = (left + c as f64 * cell, top + r as f64 * cell);
            ctx.fill_rect(x, y, cell - 1.0, cell - 1.0);
            if v > 0 {
                ctx.set_fill_style_str(if t > 0.5 { "#fff" } else { "#333" });
                let _ = ctx.fill_text(&v.to_string(), x + 3.0, y + cell * 0.65);
            }
        }
    }
    Some(())
}

/// Thumbnails of misclassified test images with "predicted (true)" under each; the images come
/// from `image(index)`.
pub fn misses(canvas: &HtmlCanvasElement, misses: &[Miss], image: &dyn Fn(usize) -> Vec<f32>) -> Option<()> {
    let rows = misses.iter().map(|m| {
        [
            m.index.to_string(),
            m.label.to_string(),
            m.predicted.to_string(),
            m.confidence.to_string(),
        ]
    });
    table_of(
        canvas,
        csv("test_index,true_class,predicted_class,confidence", rows),
    );
    let ctx = clear(canvas)?;
    let per_row = 8;
    let (cell_w, cell_h) = ((canvas.width() as f64 - 4.0) / per_row as f64, 74.0);
    ctx.set_font("11px sans-serif");
    for (i, m) in misses.iter().enumerate() {
        let (x, y) = (
            4.0 + (i % per_row) as f64 * cell_w,
            4.0 + (i / per_row) as f64 * cell_h,
        );
        gray(&ctx, &image(m.index), 28, 28, x, y, 2.0, false);
        ctx.set_fill_style_str("#b3400a");
        let _ = ctx.fill_text(&format!("{} ({})", m.predicted, m.label), x, y + 68.0);
    }
    Some(())
}

/// Which thumbnail of [`misses`] a click at (x, y) hit.
pub fn miss_at(canvas: &HtmlCanvasElement, x: f64, y: f64) -> usize {
    let per_row = 8;
    let cell_w = (canvas.width() as f64 - 4.0) / per_row as f64;
    ((y - 4.0).max(0.0) / 74.0) as usize * per_row + ((x - 4.0).max(0.0) / cell_w) as usize
}
