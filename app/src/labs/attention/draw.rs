//! The attention lab's charts (plotters on canvases): accuracy over training (training dashed,
//! test solid, a colour per weight decay), the losses on a log scale with the weights' norm, and
//! every head's attention on the example as a grid of squares, query rows by key columns, with
//! the tokens on the axes and a colour bar from 0 to 1.

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use lab_sims::attention::memory::MemoryPoint;
use lab_sims::attention::record::{AttentionRecord, AttentionRun, Point};

use crate::draw::legend::{self, Key};
use crate::draw::axes::{area, color};

/// A run's label in legends.
fn label(r: &AttentionRun) -> String {
    if r.decay > 0.0 {
        format!("weight decay {}", r.decay)
    } else {
        "no weight decay".into()
    }
}

fn series(r: &AttentionRun, value: impl Fn(&Point) -> f64) -> Vec<(f64, f64)> {
    r.points.iter().map(|p| (p.step as f64, value(p))).collect()
}

/// Training (dashed) and test (solid) accuracy of every run against the step.
pub fn accuracy(canvas: HtmlCanvasElement, record: &AttentionRecord) {
    let Some(root) = area(canvas) else { return };
    let mut keys = Vec::new();
    for (i, r) in record.runs.iter().enumerate() {
        keys.push(Key::line(format!("test, {}", label(r)), color(i)));
        keys.push(Key::dashed(format!("training, {}", label(r)), color(i)));
    }
    let plot = legend::below(&root, &keys);
    let steps = record.plan.steps.max(1) as f64;
    let Ok(mut chart) = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(52)
        .build_cartesian_2d(0f64..steps, 0f64..100f64)
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .x_desc("training step")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc("accuracy (%)")
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw();
    for (i, r) in record.runs.iter().enumerate() {
        let col = color(i);
        let test = series(r, |p| 100.0 * f64::from(p.test_accuracy));
        let train = series(r, |p| 100.0 * f64::from(p.train_accuracy));
        let _ = chart.draw_series(LineSeries::new(test, col.stroke_width(2)));
        let _ = chart.draw_series(DashedLineSeries::new(train, 6, 4, col.stroke_width(2)));
    }
}

/// The losses (log scale; training dashed, test solid) and, on the right axis, the weights' norm
/// (dotted), of every run.
pub fn losses(canvas: HtmlCanvasElement, record: &AttentionRecord) {
    let Some(root) = area(canvas) else { return };
    let mut keys = Vec::new();
    for (i, r) in record.runs.iter().enumerate() {
        keys.push(Key::line(format!("test loss, {}", label(r)), color(i)));
        keys.push(Key::dashed(
            format!("training loss / ‖θ‖ (thin), {}", label(r)),
            color(i),
        ));
    }
    let plot = legend::below(&root, &keys);
    let all = record.runs.iter().flat_map(|r| r.points.iter());
    let (lo, hi) = all
        .clone()
        .flat_map(|p| [p.train_loss, p.test_loss])
        .filter(|l| l.is_finite() && *l > 0.0)
        .fold((f32::MAX, f32::MIN), |(a, b), l| (a.min(l), b.max(l)));
    let (lo, hi) = if lo <= hi {
        (f64::from(lo).max(1e-6) / 2.0, f64::from(hi) * 2.0)
    } else {
        (1e-3, 10.0)
    };
    let norm = all.map(|p| p.weight_norm).fold(1.0, f64::max) * 1.1;
    let steps = record.plan.steps.max(1) as f64;
    let Ok(chart) = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(52)
        .right_y_label_area_size(48)
        .build_cartesian_2d(0f64..steps, (lo..hi).log_scale())
    else {
        return;
    };
    let mut chart = chart.set_secondary_coord(0f64..steps, 0f64..norm);
    let _ = chart
        .configure_mesh()
        .x_desc("training step")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc("cross-entropy (nats, log scale)")
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw();
    let _ = chart
        .configure_secondary_axes()
        .y_desc("weights' norm ‖θ‖₂")
        .label_style(("sans-serif", 12))
        .draw();
    for (i, r) in record.runs.iter().enumerate() {
        let col = color(i);
        let positive = |v: f32| f64::from(v).max(lo);
        let _ = chart.draw_series(LineSeries::new(
            series(r, |p| positive(p.test_loss)),
            col.stroke_width(2),
        ));
        let _ = chart.draw_series(DashedLineSeries::new(
            series(r, |p| positive(p.train_loss)),
            6,
            4,
            col.stroke_width(2),
        ));
        let _ = chart.draw_secondary_series(DashedLineSeries::new(
            series(r, |p| p.weight_norm),
            2,
            3,
            col.stroke_width(1),
        ));
    }
}

/// The shade of an attention weight in [0, 1]: white to the palette's blue.
fn shade(w: f32) -> RGBColor {
    let (r, g, b) = lab_state::palette::PAIR[0];
    let t = f64::from(w.clamp(0.0, 1.0));
    let mix = |c: u8| (255.0 * (1.0 - t) + f64::from(c) * t) as u8;
    RGBColor(mix(r), mix(g), mix(b))
}

/// Every head's attention of `run` on the record's example: a square per block and head, a row
/// per query position over its key columns (the future masked, blank), tokens on both axes.
pub fn patterns(canvas: HtmlCanvasElement, record: &AttentionRecord, run: &AttentionRun) {
    let Some(root) = area(canvas) else { return };
    let plan = &record.plan;
    let (seq, heads) = (plan.seq(), plan.heads);
    let squares = run.patterns.len();
    if squares == 0 || record.example.len() != seq {
        crate::draw::placeholder(&root, "Press Run: each head's attention on the example.");
        return;
    }
    let (w, _) = root.dim_in_pixel();
    let (grid, bar) = root.split_horizontally(w.saturating_sub(70) as i32);
    let cols = heads.min(squares).max(1);
    let rows = squares.div_ceil(cols);
    let (gw, gh) = grid.dim_in_pixel();
    // Room for the token labels left of and above each square, and its title.
    let label = 22i32;
    let cell = (((gw as i32 / cols as i32 - label - 8) / seq as i32)
        .min((gh as i32 / rows as i32 - label - 22) / seq as i32))
    .clamp(3, 40);
    let font: TextStyle = ("sans-serif", 11).into_font().color(&RGBColor(40, 40, 40));
    let tokens: Vec<String> = record.example.iter().map(|t| plan.token_name(*t)).collect();
    for (k, square) in run.patterns.iter().enumerate() {
        let (block, head) = (k / heads, k % heads);
        let x0 = (k % cols) as i32 * (label + seq as i32 * cell + 8) + label;
        let y0 = (k / cols) as i32 * (label + seq as i32 * cell + 22) + label + 18;
        let _ = grid.draw_text(
            &format!("block {}, head {}", block + 1, head + 1),
            &font,
            (x0, y0 - label - 16),
        );
        for q in 0..seq {
            for key in 0..=q {
                let (x, y) = (x0 + key as i32 * cell, y0 + q as i32 * cell);
                let v = square.get(q * seq + key).copied().unwrap_or(0.0);
                let _ = grid.draw(&Rectangle::new([(x, y), (x + cell, y + cell)], shade(v).filled()));
            }
        }
        let _ = grid.draw(&Rectangle::new(
            [(x0, y0), (x0 + seq as i32 * cell, y0 + seq as i32 * cell)],
            RGBColor(160, 160, 160).stroke_width(1),
        ));
        if cell >= 9 {
            for (i, t) in tokens.iter().enumerate() {
                let c = i as i32 * cell + cell / 2 - 3;
                let _ = grid.draw_text(t, &font, (x0 - label + 2, y0 + c - 2));
                let _ = grid.draw_text(t, &font, (x0 + c, y0 - 14));
            }
        }
    }
    // The colour bar, 0 at the foot, 1 at the top.
    let (_, bh) = bar.dim_in_pixel();
    let (top, foot) = (30i32, bh as i32 - 30);
    for y in top..foot {
        let v = 1.0 - (y - top) as f32 / (foot - top).max(1) as f32;
        let _ = bar.draw(&Rectangle::new([(10, y), (28, y + 1)], shade(v).filled()));
    }
    let _ = bar.draw(&Rectangle::new(
        [(10, top), (28, foot)],
        RGBColor(160, 160, 160).stroke_width(1),
    ));
    for (v, y) in [(1.0, top), (0.5, (top + foot) / 2), (0.0, foot)] {
        let _ = bar.draw_text(&format!("{v}"), &font, (32, y - 6));
    }
    let _ = bar.draw_text("weight", &font, (4, top - 22));
}

/// One block's activation memory against the sequence length (log–log): what the engine's step
/// keeps (dots), Korthikanti et al.'s count for its setting (line), the paper's own setting
/// (16-bit, dropout, layer norms; dashed) and, per device, tensor parallelism over t devices.
pub fn memory(canvas: HtmlCanvasElement, points: &[MemoryPoint], current: usize) {
    let Some(root) = area(canvas) else { return };
    let tensors: Vec<usize> = points
        .first()
        .map_or(Vec::new(), |p| p.tensor.iter().map(|(t, _)| *t).collect());
    let mut keys = vec![
        Key::line(
            "Korthikanti's count, this engine (f32, no dropout or layer norm)",
            color(0),
        ),
        Key::dashed("the paper's setting (16-bit, dropout, layer norms, MLP 4h)", color(1)),
    ];
    keys.extend(
        tensors
            .iter()
            .enumerate()
            .map(|(i, t)| Key::dashed(format!("per device, heads over {t} devices"), color(2 + i))),
    );
    let plot = legend::below(&root, &keys);
    let all = points.iter().flat_map(|p| {
        [p.engine.unwrap_or(p.formula), p.formula, p.paper]
            .into_iter()
            .chain(p.tensor.iter().map(|(_, b)| *b))
    });
    let (lo, hi) = all.fold((f64::MAX, 1.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let (x0, x1) = (
        points.first().map_or(8.0, |p| p.seq as f64),
        points.last().map_or(2048.0, |p| p.seq as f64),
    );
    let Ok(mut chart) = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(84)
        .build_cartesian_2d((x0..x1).log_scale(), ((lo / 2.0).max(1.0)..hi * 2.0).log_scale())
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .x_desc("sequence length (tokens, log scale)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc("bytes kept per block (log scale)")
        .y_label_formatter(&|y| crate::chart_text::bytes(*y))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw();
    let line =
        |f: &dyn Fn(&MemoryPoint) -> f64| points.iter().map(|p| (p.seq as f64, f(p))).collect::<Vec<_>>();
    let _ = chart.draw_series(LineSeries::new(line(&|p| p.formula), color(0).stroke_width(2)));
    let _ = chart.draw_series(points.iter().filter_map(|p| {
        p.engine
            .map(|e| Circle::new((p.seq as f64, e), 4, color(0).filled()))
    }));
    let _ = chart.draw_series(DashedLineSeries::new(
        line(&|p| p.paper),
        6,
        4,
        color(1).stroke_width(2),
    ));
    for (i, t) in tensors.iter().enumerate() {
        let per = line(&|p| p.tensor.iter().find(|(x, _)| x == t).map_or(0.0, |(_, b)| *b));
        let _ = chart.draw_series(DashedLineSeries::new(per, 3, 3, color(2 + i).stroke_width(2)));
    }
    // The model's own sequence length.
    let c = current as f64;
    let _ = chart.draw_series(DashedLineSeries::new(
        vec![(c, lo / 2.0), (c, hi * 2.0)],
        2,
        4,
        RGBColor(120, 120, 120).stroke_width(1),
    ));
}
