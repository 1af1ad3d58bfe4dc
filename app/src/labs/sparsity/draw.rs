//! The sparsity lab's charts (plotters on canvases): test accuracy against the weights that
//! remain (each condition of the lottery experiment, and the dense network pruned in one shot),
//! the training curves of the conditions at one round, the first layer's surviving inputs as a
//! picture, and the share each layer lost.

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use lab_sims::sparsity::lottery::{Condition, SparseRun};
use lab_sims::sparsity::masks::Scope;
use lab_sims::sparsity::record::SparsityRecord;

use crate::draw::legend::{self, Key};
use crate::draw::axes::{area, color};

const GREY: RGBColor = RGBColor(120, 120, 120);

/// A condition's colour, the same in every chart (its place in the list of all conditions).
pub fn condition_color(c: Condition) -> RGBColor {
    let k = [
        Condition::Dense,
        Condition::Ticket,
        Condition::Reinit,
        Condition::Random,
        Condition::Rewind,
        Condition::Finetune,
        Condition::Set,
        Condition::Rigl,
        Condition::Structured,
    ]
    .iter()
    .position(|x| *x == c)
    .unwrap_or(0);
    color(k)
}

/// What a condition's line is called in legends.
pub fn condition_label(c: Condition) -> &'static str {
    match c {
        Condition::Dense => "dense",
        Condition::Ticket => "ticket: rewound to the initial weights",
        Condition::Rewind => "ticket rewound to an early step",
        Condition::Reinit => "same mask, fresh random weights",
        Condition::Random => "random mask, initial weights",
        Condition::Finetune => "pruned once after training, fine-tuned",
        Condition::Set => "SET: sparse from the start, regrown at random",
        Condition::Rigl => "RigL: sparse from the start, regrown by gradient",
        Condition::Structured => "whole neurons/filters pruned once, fine-tuned",
    }
}

/// The x of a sparsity: log₂ of 1 / (weights remaining), so that each halving is one step.
fn halvings(sparsity: f64) -> f64 {
    -(1.0 - sparsity).max(1e-4).log2()
}

/// Test accuracy against the share of weights remaining (log axis): a line per condition through
/// its rounds (the dense run at 100 %), and dashed, the trained dense network pruned in one shot
/// without retraining, globally and per layer.
pub fn accuracy(canvas: HtmlCanvasElement, record: &SparsityRecord) {
    let Some(root) = area(canvas) else { return };
    let conditions = record.conditions();
    let mut keys: Vec<Key> = conditions
        .iter()
        .map(|c| Key::line(condition_label(*c), condition_color(*c)))
        .collect();
    keys.push(Key::dashed("pruned once, not retrained: global", GREY));
    keys.push(Key::dashed("per layer", BLACK));
    let plot = legend::below(&root, &keys);
    let right = record
        .one_shot
        .iter()
        .map(|o| o.sparsity)
        .chain(record.runs.iter().map(|r| r.sparsity))
        .fold(0.0f64, f64::max);
    let x_max = halvings(right).max(1.0) + 0.2;
    let Ok(mut chart) = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(52)
        .build_cartesian_2d(-0.1f64..x_max, 0f64..100f64)
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .x_desc("weights remaining (log scale)")
        .y_desc("test accuracy (%)")
        .x_labels(8)
        .x_label_formatter(&|x| {
            let left = 100.0 * 0.5f64.powf(*x);
            if left >= 10.0 {
                format!("{left:.0} %")
            } else {
                format!("{left:.1} %")
            }
        })
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw();
    let dense = record.run(Condition::Dense, 0);
    for c in &conditions {
        let mut points: Vec<(f64, f64)> = dense
            .into_iter()
            .chain(record.runs.iter().filter(|r| r.condition == *c))
            .map(|r| (halvings(r.sparsity), 100.0 * f64::from(r.test_accuracy)))
            .collect();
        points.dedup();
        let col = condition_color(*c);
        let _ = chart.draw_series(LineSeries::new(points.clone(), col.stroke_width(2)));
        let _ = chart.draw_series(points.into_iter().map(|p| Circle::new(p, 4, col.filled())));
    }
    for (scope, col) in [(Scope::Global, GREY), (Scope::PerLayer, BLACK)] {
        let points: Vec<(f64, f64)> = (record.one_shot.iter())
            .filter(|o| o.scope == scope)
            .map(|o| (halvings(o.sparsity), 100.0 * f64::from(o.test_accuracy)))
            .collect();
        let _ = chart.draw_series(DashedLineSeries::new(points, 6, 4, col.stroke_width(1)));
    }
}

/// Test accuracy over training of every condition at `round` (and the dense run).
pub fn curves(canvas: HtmlCanvasElement, record: &SparsityRecord, round: usize) {
    let Some(root) = area(canvas) else { return };
    let runs: Vec<&SparseRun> = (record.runs.iter())
        .filter(|r| r.round == round || r.condition == Condition::Dense)
        .collect();
    let keys: Vec<Key> = runs
        .iter()
        .map(|r| Key::line(r.label(), condition_color(r.condition)))
        .collect();
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
        .y_desc("test accuracy (%)")
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw();
    for r in runs {
        // A rewound run's steps count from its rewind point.
        let offset = if r.condition == Condition::Rewind {
            record.plan.rewind_step as f64
        } else {
            0.0
        };
        let points: Vec<(f64, f64)> = r
            .curve
            .iter()
            .map(|(s, a)| (*s as f64 + offset, 100.0 * f64::from(*a)))
            .collect();
        let col = condition_color(r.condition);
        let _ = chart.draw_series(LineSeries::new(points.clone(), col.stroke_width(2)));
        let _ = chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3, col.filled())));
    }
}

/// The first layer's kept weights per input pixel of `run` (28 × 28 for the image sets): dark
/// where the largest share of the pixel's weights survived, white where none did; a colour bar
/// beside it, from 0 to that share.
pub fn input_mask(canvas: HtmlCanvasElement, run: &SparseRun, units: usize) {
    let Some(root) = area(canvas) else { return };
    let side = (run.input_kept.len() as f64).sqrt() as usize;
    if side * side != run.input_kept.len() || side == 0 {
        crate::draw::placeholder(
            &root,
            "The mask picture is drawn for an MLP, whose first layer reads the pixels one weight each.",
        );
        return;
    }
    let (w, h) = root.dim_in_pixel();
    let (picture, bar) = root.split_horizontally(w.saturating_sub(90) as i32);
    let cell = ((w.saturating_sub(100)).min(h.saturating_sub(20)) / side as u32).max(1) as i32;
    // The scale runs to the largest share kept (in steps of 5 %), so a sparse mask keeps contrast.
    let units = units.max(1) as f64;
    let most = run
        .input_kept
        .iter()
        .map(|k| f64::from(*k) / units)
        .fold(0.0, f64::max);
    let top = ((most * 20.0).ceil() / 20.0).clamp(0.05, 1.0);
    let shade = |share: f64| {
        let v = (255.0 * (1.0 - (share / top).clamp(0.0, 1.0))) as u8;
        RGBColor(v, v, v)
    };
    for (k, kept) in run.input_kept.iter().enumerate() {
        let (x, y) = ((k % side) as i32 * cell + 6, (k / side) as i32 * cell + 6);
        let _ = picture.draw(&Rectangle::new(
            [(x, y), (x + cell, y + cell)],
            shade(f64::from(*kept) / units).filled(),
        ));
    }
    let frame = side as i32 * cell;
    let _ = picture.draw(&Rectangle::new(
        [(6, 6), (6 + frame, 6 + frame)],
        GREY.stroke_width(1),
    ));
    // The colour bar: the share of the pixel's first-layer weights kept, 0 to 100 %.
    let font = ("sans-serif", 12).into_font().color(&RGBColor(40, 40, 40));
    let steps = 20;
    let y_top = 24;
    let tall = frame.max(60) - 30;
    for i in 0..steps {
        let share = top * (1.0 - i as f64 / steps as f64);
        let y0 = y_top + i * tall / steps;
        let _ = bar.draw(&Rectangle::new(
            [(10, y0), (28, y0 + tall / steps + 1)],
            shade(share).filled(),
        ));
    }
    let _ = bar.draw(&Rectangle::new(
        [(10, y_top), (28, y_top + tall)],
        GREY.stroke_width(1),
    ));
    let _ = bar.draw(&Text::new("kept", (6, 6), font.clone()));
    let _ = bar.draw(&Text::new(
        format!("{:.0} %", 100.0 * top),
        (32, y_top),
        font.clone(),
    ));
    let _ = bar.draw(&Text::new("0 %", (32, y_top + tall - 12), font));
}

/// The share of each layer's weights pruned by the runs of one condition, a bar per round.
pub fn layers(canvas: HtmlCanvasElement, record: &SparsityRecord) {
    let Some(root) = area(canvas) else { return };
    let tickets: Vec<&SparseRun> = (record.runs.iter())
        .filter(|r| r.condition == Condition::Ticket)
        .collect();
    let keys: Vec<Key> = tickets
        .iter()
        .enumerate()
        .map(|(i, r)| {
            Key::line(
                format!("round {}: {:.1} % overall", r.round, 100.0 * r.sparsity),
                color(i + 6),
            )
        })
        .collect();
    let plot = legend::below(&root, &keys);
    let n = record.layers.len().max(1);
    let Ok(mut chart) = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(52)
        .build_cartesian_2d(0f64..n as f64, 0f64..100f64)
    else {
        return;
    };
    let names = record.layers.clone();
    let _ = chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n * 2 + 1)
        .x_label_formatter(&|x| {
            let k = x.floor() as usize;
            if (x - k as f64 - 0.5).abs() < 0.01 {
                names.get(k).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_desc("layer (inputs → outputs)")
        .y_desc("weights pruned (%)")
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw();
    let width = 0.8 / tickets.len().max(1) as f64;
    for (i, r) in tickets.iter().enumerate() {
        let col = color(i + 6);
        let _ = chart.draw_series(r.layer_sparsity.iter().enumerate().map(|(l, s)| {
            let x0 = l as f64 + 0.1 + i as f64 * width;
            Rectangle::new([(x0, 0.0), (x0 + width * 0.9, 100.0 * s)], col.filled())
        }));
    }
}
