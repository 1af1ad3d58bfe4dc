//! The parallelism lab's charts (plotters on canvases): each layout's memory per device by class
//! against the device's memory, one device's memory through a step (plain and checkpointed), the
//! pipeline's stage × time chart with its bubbles, and the layouts' training losses.

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use lab_sims::parallelism::layout::step_curve;
use lab_sims::parallelism::layout_run::LayoutRun;
use lab_sims::parallelism::pipeline::{Pass, Timeline};
use lab_sims::parallelism::profile::DeviceBytes;
use lab_sims::parallelism::record::ParallelismRecord;

use crate::draw::legend::{self, Key};
use crate::draw::axes::{area, color};

const RED: RGBColor = RGBColor(200, 0, 0);
const IDLE: RGBColor = RGBColor(225, 225, 225);

/// The tensor classes, bottom to top, with their colours (the tested series palette).
pub const CLASSES: [&str; 5] = [
    "weights",
    "gradients",
    "optimizer state",
    "workspace",
    "activations",
];

fn class_color(i: usize) -> RGBColor {
    let (r, g, b) = lab_state::palette::SERIES[[0, 1, 2, 6, 5][i]];
    RGBColor(r, g, b)
}

fn classes(d: &DeviceBytes) -> [u64; 5] {
    [d.weights, d.gradients, d.optimizer, d.workspace, d.activations]
}

fn mb(b: u64) -> f64 {
    b as f64 / 1e6
}

fn class_keys(budget: bool) -> Vec<Key> {
    let mut keys: Vec<Key> = (0..5).map(|i| Key::line(CLASSES[i], class_color(i))).collect();
    if budget {
        keys.push(Key::dashed("one device's memory", RED));
    }
    keys
}

/// Stacked bars of each layout's devices (a pipeline's stages side by side), the device's memory
/// as a dashed red line.
pub fn memory_bars(canvas: HtmlCanvasElement, record: &ParallelismRecord) {
    let Some(root) = area(canvas) else { return };
    let plot = legend::below(&root, &class_keys(true));
    let budget = mb(record.machine.memory);
    let groups: Vec<(String, &[DeviceBytes])> = record
        .estimates
        .iter()
        .map(|e| (e.layout.short_label(), e.devices.as_slice()))
        .collect();
    let bars: usize = groups.iter().map(|g| g.1.len()).sum::<usize>() + groups.len();
    let top = groups
        .iter()
        .flat_map(|g| g.1.iter().map(|d| mb(d.total())))
        .fold(budget, f64::max)
        * 1.1;
    let Ok(mut chart) = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(34)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..bars.max(1) as f64, 0f64..top.max(1e-6))
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("MB per device")
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 11))
        .draw();
    let mut x = 0.5;
    for (name, devices) in &groups {
        let start = x;
        for d in devices.iter() {
            let mut y = 0.0;
            for (i, b) in classes(d).into_iter().enumerate() {
                let h = mb(b);
                let _ = chart.draw_series(std::iter::once(Rectangle::new(
                    [(x, y), (x + 0.9, y + h)],
                    class_color(i).filled(),
                )));
                y += h;
            }
            x += 1.0;
        }
        let centre = (start + x - 0.1) / 2.0;
        let _ = chart.draw_series(std::iter::once(Text::new(
            name.clone(),
            (centre, -top * 0.04),
            TextStyle::from(("sans-serif", 11).into_font()).pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Top,
            )),
        )));
        x += 1.0;
    }
    let _ = chart.draw_series(DashedLineSeries::new(
        [(0.0, budget), (bars as f64, budget)],
        6,
        4,
        RED.stroke_width(2),
    ));
}

/// One device's memory through a step of the plain layout: the classes held all step stacked,
/// the activations rising through the forward and falling through the backward; the
/// checkpointed step's total dashed over it.
pub fn step_memory(canvas: HtmlCanvasElement, record: &ParallelismRecord, segment: usize) {
    let Some(root) = area(canvas) else { return };
    let mut keys = class_keys(true);
    keys.insert(
        5,
        Key::dashed(format!("with checkpoints every {segment} layers"), BLACK),
    );
    let plot = legend::below(&root, &keys);
    let rows = record.config.batch;
    let whole = record.profile.at(rows);
    let fixed = [whole.weights, whole.gradients, whole.optimizer, whole.workspace];
    let base: u64 = fixed.iter().sum();
    let plain = step_curve(&record.profile, rows, None);
    let ckpt = step_curve(&record.profile, rows, Some(segment));
    let budget = mb(record.machine.memory);
    let peak = plain.iter().chain(&ckpt).map(|p| p.1).max().unwrap_or(0);
    let top = (mb(base + peak)).max(budget) * 1.1;
    let n = plain.len().max(ckpt.len()).max(2);
    let Ok(mut chart) = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..(n - 1) as f64, 0f64..top)
    else {
        return;
    };
    let forward_end = record.profile.layers.len() as f64;
    let _ = chart
        .configure_mesh()
        .x_labels(0)
        .x_desc(format!(
            "one step: forward (layers 1→{}), then backward",
            record.profile.layers.len()
        ))
        .y_desc("MB on the device")
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 11))
        .draw();
    let mut y0 = 0.0;
    for (i, b) in fixed.into_iter().enumerate() {
        let y1 = y0 + mb(b);
        let _ = chart.draw_series(std::iter::once(Rectangle::new(
            [(0.0, y0), ((n - 1) as f64, y1)],
            class_color(i).filled(),
        )));
        y0 = y1;
    }
    let scale = |k: usize, len: usize| k as f64 * (n - 1) as f64 / (len - 1).max(1) as f64;
    let acts: Vec<(f64, f64)> = plain
        .iter()
        .enumerate()
        .map(|(k, p)| (scale(k, plain.len()), y0 + mb(p.1)))
        .collect();
    let mut outline = acts;
    outline.extend([((n - 1) as f64, y0), (0.0, y0)]);
    let _ = chart.draw_series(std::iter::once(Polygon::new(
        outline,
        class_color(4).mix(0.85).filled(),
    )));
    let dashed: Vec<(f64, f64)> = ckpt
        .iter()
        .enumerate()
        .map(|(k, p)| (scale(k, ckpt.len()), y0 + mb(p.1)))
        .collect();
    let _ = chart.draw_series(DashedLineSeries::new(dashed, 5, 3, BLACK.stroke_width(2)));
    let _ = chart.draw_series(DashedLineSeries::new(
        [(0.0, budget), ((n - 1) as f64, budget)],
        6,
        4,
        RED.stroke_width(2),
    ));
    // Where the forward ends: the most activations held.
    let x = scale(forward_end as usize, plain.len());
    let _ = chart.draw_series(std::iter::once(PathElement::new(
        [(x, 0.0), (x, top)],
        RGBColor(120, 120, 120).stroke_width(1),
    )));
}

/// The stage × time chart: each stage's forwards (blue) and backwards (orange) of every
/// micro-batch, numbered, idle time (the bubble) grey; only the first `shown` pieces by start
/// time (all when None), a line where the last shown one ends, for the animation.
pub fn pipeline(canvas: HtmlCanvasElement, timeline: Option<&Timeline>, shown: Option<usize>) {
    let Some(root) = area(canvas) else { return };
    let keys = [
        Key::line("forward of micro-batch k", crate::draw::BLUE),
        Key::line("backward", crate::draw::ORANGE),
        Key::line("idle (the bubble)", IDLE),
    ];
    let plot = legend::below(&root, &keys);
    let Some(t) = timeline else {
        crate::draw::placeholder(
            &plot,
            "Add pipeline to the runs (2 or more stages) to see its schedule.",
        );
        return;
    };
    let end = t.makespan.max(1e-12) * 1e3;
    let stages = t.stages as f64;
    let Ok(mut chart) = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..end, stages..0f64)
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("ms into the step")
        // Ticks every half row; the row centres carry the stage's name.
        .y_labels(2 * t.stages + 1)
        .y_label_formatter(&|v| {
            let k = (v - 0.5).round();
            if (v - 0.5 - k).abs() < 1e-6 && k >= 0.0 && k < stages {
                format!("stage {}", k as usize + 1)
            } else {
                String::new()
            }
        })
        .label_style(("sans-serif", 11))
        .draw();
    for s in 0..t.stages {
        let y = s as f64;
        let _ = chart.draw_series(std::iter::once(Rectangle::new(
            [(0.0, y + 0.1), (end, y + 0.9)],
            IDLE.filled(),
        )));
    }
    let wide = t.micro <= 16;
    let mut order: Vec<&lab_sims::parallelism::pipeline::Slot> = t.slots.iter().collect();
    order.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.stage.cmp(&b.stage)));
    let k = shown.unwrap_or(order.len()).min(order.len());
    if k < order.len() {
        let now = order[..k].iter().map(|x| x.end * 1e3).fold(0.0, f64::max);
        let _ = chart.draw_series(std::iter::once(PathElement::new(
            [(now, 0.0), (now, stages)],
            BLACK.stroke_width(2),
        )));
    }
    for slot in order.into_iter().take(k) {
        let y = slot.stage as f64;
        let c = match slot.work.pass {
            Pass::Forward => crate::draw::BLUE,
            Pass::Backward => crate::draw::ORANGE,
        };
        let (a, b) = (slot.start * 1e3, slot.end * 1e3);
        let _ = chart.draw_series(std::iter::once(Rectangle::new(
            [(a, y + 0.1), (b, y + 0.9)],
            c.filled(),
        )));
        let _ = chart.draw_series(std::iter::once(Rectangle::new(
            [(a, y + 0.1), (b, y + 0.9)],
            WHITE.stroke_width(1),
        )));
        if wide {
            let _ = chart.draw_series(std::iter::once(Text::new(
                (slot.work.micro + 1).to_string(),
                ((a + b) / 2.0, y + 0.5),
                ("sans-serif", 10)
                    .into_font()
                    .color(&WHITE)
                    .pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Center,
                        plotters::style::text_anchor::VPos::Center,
                    )),
            )));
        }
    }
}

/// Each layout's training loss (smoothed, log scale): on top of each other when the layouts do
/// the same math.
pub fn losses(canvas: HtmlCanvasElement, runs: &[LayoutRun]) {
    let Some(root) = area(canvas) else { return };
    let keys: Vec<Key> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| match i {
            0 => Key::line(r.label.clone(), color(i)),
            _ => Key::dashed(r.label.clone(), color(i)),
        })
        .collect();
    let plot = legend::below(&root, &keys);
    let Some(crate::draw::loss_chart::RunsAxes {
        mut chart,
        smoothed,
        scale,
    }) = crate::draw::loss_chart::smoothed_runs_axes(&plot, runs.iter().map(|r| r.losses.as_slice()), true)
    else {
        return;
    };
    for (i, line) in smoothed.iter().enumerate() {
        let points = line.iter().map(|&(s, l)| (s, scale.y(l)));
        if i == 0 {
            let _ = chart.draw_series(LineSeries::new(points, color(i).stroke_width(4)));
        } else {
            let _ = chart.draw_series(DashedLineSeries::new(points, 7, 5, color(i).stroke_width(2)));
        }
    }
}

/// Checkpointing's trade as the segment length k varies: the peak activation bytes of one device
/// against the forward FLOPs re-run per step (as a share of one forward pass), one point per k,
/// the chosen k ringed.
pub fn remat_trade(canvas: HtmlCanvasElement, record: &ParallelismRecord, chosen: usize) {
    let Some(root) = area(canvas) else { return };
    let keys = [
        Key::line("checkpoints every k layers", class_color(4)),
        Key::line("the chosen k", BLACK),
    ];
    let plot = legend::below(&root, &keys);
    let p = &record.profile;
    let rows = record.config.batch;
    let n = p.layers.len().max(1);
    let forward = p.flops_per_row(0..n).0 * rows as f64;
    let points: Vec<(usize, f64, f64)> = lab_sims::parallelism::remat::trade(p, rows)
        .into_iter()
        .map(|(k, peak, rerun)| (k, 100.0 * rerun / forward.max(1.0), mb(peak)))
        .collect();
    let top = points.iter().map(|x| x.2).fold(0.0, f64::max) * 1.15;
    let right = points.iter().map(|x| x.1).fold(0.0, f64::max).max(1.0) * 1.1;
    let Ok(mut chart) = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(32)
        .y_label_area_size(50)
        .build_cartesian_2d(-right * 0.05..right, 0f64..top.max(1e-6))
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .x_desc("forward re-run per step (% of one forward pass)")
        .y_desc("peak activations (MB)")
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 11))
        .draw();
    for &(k, x, y) in &points {
        let _ = chart.draw_series(std::iter::once(Circle::new((x, y), 4, class_color(4).filled())));
        if k == chosen {
            let _ = chart.draw_series(std::iter::once(Circle::new((x, y), 8, BLACK.stroke_width(2))));
        }
        if k == chosen || k == 1 || k == n {
            let _ = chart.draw_series(std::iter::once(Text::new(
                if k == n {
                    format!("k={k} (no checkpoints)")
                } else {
                    format!("k={k}")
                },
                (x + right * 0.02, y + top * 0.05),
                ("sans-serif", 10).into_font(),
            )));
        }
    }
}
