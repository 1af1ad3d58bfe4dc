//! The hardware lab's charts (plotters on canvases): the device's roofline with the step's
//! kernels and the product sweep under it (log axes drawn as linear axes over the logarithms,
//! labelled with the values), and the systolic array at one cycle.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use lab_sims::hardware::record::HardwareRecord;
use lab_sims::hardware::systolic::Pe;

use crate::draw::legend::{self, Key};
use crate::draw::axes::{area, color};
use crate::draw::{BLUE, ORANGE};

const GREY: RGBColor = RGBColor(120, 120, 120);
const IDLE: RGBColor = RGBColor(236, 236, 236);

/// "10", "0.1", "1k": a power of ten as a label.
fn power_label(log10: f64) -> String {
    let v = 10f64.powf(log10.round());
    if v >= 1e3 {
        format!("{:.0}k", v / 1e3)
    } else if v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// A log–log chart under a roofline of `peak` GFLOP/s and `gbs` GB/s, drawn with its roof: x the
/// log of FLOPs per byte, y the log of GFLOP/s, spanning the ridge and the `data` points (in
/// those logs), to at most eight decades below the peak. The roofline and the distributed
/// roofline are both drawn on one.
fn roof_chart<'a>(
    plot: &'a DrawingArea<CanvasBackend, Shift>,
    (peak, gbs): (f64, f64),
    data: impl Iterator<Item = (f64, f64)> + Clone,
    (x_desc, y_desc): (&str, &str),
) -> Option<ChartContext<'a, CanvasBackend, Cartesian2d<RangedCoordf64, RangedCoordf64>>> {
    let ridge = (peak / gbs).log10();
    let xs = data.clone().map(|p| p.0).chain([ridge]);
    let (x_lo, x_hi) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (x_lo, x_hi) = ((x_lo - 0.5).floor(), (x_hi + 0.5).ceil());
    let memory = |x: f64| (gbs * 10f64.powf(x)).log10();
    let y_hi = (peak.log10() + 0.3).ceil();
    let ys = data.map(|p| p.1).chain([memory(x_lo)]);
    let y_lo = (ys.fold(f64::MAX, f64::min) - 0.3).floor().max(y_hi - 8.0);
    let mut chart = ChartBuilder::on(plot)
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(52)
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
        .ok()?;
    let _ = chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_labels((x_hi - x_lo) as usize + 1)
        .y_labels((y_hi - y_lo) as usize + 1)
        .x_label_formatter(&|x| power_label(*x))
        .y_label_formatter(&|y| power_label(*y))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw();
    // The roofs: the memory slope up to the ridge, then flat.
    let roof = vec![(x_lo, memory(x_lo)), (ridge, peak.log10()), (x_hi, peak.log10())];
    let _ = chart.draw_series(LineSeries::new(roof, BLACK.stroke_width(2)));
    Some(chart)
}

/// The roofline: GFLOP/s against FLOPs per byte, both log scales; the measured roofs, each kernel
/// of the step with counted arithmetic (numbered as in the table), and the product sweep.
pub fn roofline(canvas: HtmlCanvasElement, record: &HardwareRecord) {
    let Some(root) = area(canvas) else { return };
    let Some(roofs) = record.roofs else {
        crate::draw::placeholder(&root, "Press Run: the probes measure this device's two roofs.");
        return;
    };
    let keys = [
        Key::line("roofs: min(peak, intensity × bandwidth), measured", BLACK),
        Key::line("kernels of the step (numbered as in the table)", ORANGE),
        Key::dashed("n × n matrix products, n = 8 … 512", BLUE),
    ];
    let plot = legend::below(&root, &keys);
    let rate = |flops: f64, ms: f64| flops / (ms.max(1e-9) * 1e6);
    let points: Vec<(usize, f64, f64)> = (record.kernels.iter().enumerate())
        .filter_map(|(k, t)| {
            HardwareRecord::intensity(t)
                .filter(|i| *i > 0.0)
                .map(|i| (k + 1, i.log10(), rate(t.flops, t.ms).max(1e-6).log10()))
        })
        .collect();
    let sweep: Vec<(f64, f64)> = (record.sweep.iter())
        .filter_map(|(_, t)| {
            HardwareRecord::intensity(t).map(|i| (i.log10(), rate(t.flops, t.ms).max(1e-6).log10()))
        })
        .collect();
    let data = points.iter().map(|p| (p.1, p.2)).chain(sweep.iter().copied());
    let labels = (
        "arithmetic intensity (FLOPs per byte, log scale)",
        "GFLOP/s (log scale)",
    );
    let Some(mut chart) = roof_chart(&plot, (roofs.gflops, roofs.gbs), data, labels) else {
        return;
    };
    let _ = chart.draw_series(DashedLineSeries::new(sweep.clone(), 5, 3, BLUE.stroke_width(2)));
    let _ = chart.draw_series(sweep.into_iter().map(|p| Circle::new(p, 3, BLUE.filled())));
    let font = ("sans-serif", 12).into_font().color(&RGBColor(40, 40, 40));
    for (k, x, y) in points {
        // Numbers beside their points, odd ones above and even ones below, so neighbours part.
        let dy = if k % 2 == 1 { -16 } else { 4 };
        let mark = EmptyElement::at((x, y))
            + Circle::new((0, 0), 5, color(k).filled())
            + Text::new(k.to_string(), (7, dy), font.clone());
        let _ = chart.draw_series(std::iter::once(mark));
    }
}

/// The systolic array at one cycle of its first fold: a square per PE, idle, loading a weight,
/// or multiplying and adding.
pub fn systolic(canvas: HtmlCanvasElement, grid: &[Pe], side: usize, cycle: usize) {
    let Some(root) = area(canvas) else { return };
    let keys = [
        Key::line("multiply-add this cycle", ORANGE),
        Key::line("loading a weight (weight-stationary)", BLUE),
        Key::line("idle", RGBColor(200, 200, 200)),
    ];
    let plot = legend::below(&root, &keys);
    let (w, h) = plot.dim_in_pixel();
    let side = side.max(1);
    let cell = ((w.min(h).saturating_sub(40)) / side as u32).max(1) as i32;
    let x0 = ((w as i32 - cell * side as i32) / 2).max(0);
    for (k, pe) in grid.iter().enumerate().take(side * side) {
        let (x, y) = (x0 + (k % side) as i32 * cell, 24 + (k / side) as i32 * cell);
        let fill = match pe {
            Pe::Idle => IDLE,
            Pe::Load => BLUE,
            Pe::Mac => ORANGE,
        };
        let inset = i32::from(cell > 4);
        let _ = plot.draw(&Rectangle::new(
            [(x, y), (x + cell - inset, y + cell - inset)],
            fill.filled(),
        ));
    }
    let busy = grid.iter().filter(|p| **p == Pe::Mac).count();
    let text = format!("cycle {cycle}: {busy} of {} PEs multiply-add", side * side);
    let font = ("sans-serif", 13).into_font().color(&GREY);
    let _ = plot.draw(&Text::new(text, (x0, 4), font));
}

/// One tile of C = A·B and what it reads: C (m × n) cut into `edge × edge` tiles, the first tile
/// highlighted, with its panel of A (its rows, all of k) to the left and of B (its columns, all of
/// k) above. Drawn to proportion where it fits, each matrix scaled alike.
pub fn tiles(canvas: HtmlCanvasElement, (m, n, k): (usize, usize, usize), edge: usize) {
    let Some(root) = area(canvas) else { return };
    let (w, h) = root.dim_in_pixel();
    let (w, h) = (f64::from(w) - 20.0, f64::from(h) - 50.0);
    // Width: k (A) + n (C); height: k (B) + m (C).
    let scale = (w / (k + n) as f64).min(h / (k + m) as f64);
    let px = |v: usize| (v as f64 * scale).round() as i32;
    let (x0, y0) = (10, 30);
    let (ax, by) = (x0 + px(k), y0 + px(k));
    let frame = |x: i32, y: i32, ww: i32, hh: i32, style: ShapeStyle| {
        let _ = root.draw(&Rectangle::new([(x, y), (x + ww.max(1), y + hh.max(1))], style));
    };
    let edge = edge.max(1);
    let (rows, cols) = (edge.min(m), edge.min(n));
    // A (m × k) left of C, B (k × n) above it, C at the corner; the panels the first tile reads.
    frame(x0, by, px(k), px(m), IDLE.filled());
    frame(ax, y0, px(n), px(k), IDLE.filled());
    frame(x0, by, px(k), px(rows), BLUE.mix(0.5).filled());
    frame(ax, y0, px(cols), px(k), BLUE.mix(0.5).filled());
    frame(ax, by, px(n), px(m), RGBColor(250, 250, 250).filled());
    for t in (0..m).step_by(edge) {
        for u in (0..n).step_by(edge) {
            frame(
                ax + px(u),
                by + px(t),
                px(edge.min(n - u)),
                px(edge.min(m - t)),
                GREY.stroke_width(1),
            );
        }
    }
    frame(ax, by, px(cols), px(rows), ORANGE.filled());
    let font = ("sans-serif", 12).into_font().color(&RGBColor(40, 40, 40));
    let _ = root.draw(&Text::new(
        format!("A ({m} × {k})"),
        (x0, by + px(m) + 4),
        font.clone(),
    ));
    let _ = root.draw(&Text::new(
        format!("B ({k} × {n})"),
        (ax + px(n) + 4, y0),
        font.clone(),
    ));
    let _ = root.draw(&Text::new(
        format!("C ({m} × {n}) in {edge} × {edge} tiles"),
        (ax, by + px(m) + 4),
        font.clone(),
    ));
    let reads = (rows + cols) * k;
    let _ = root.draw(&Text::new(
        format!("the orange tile reads the blue panels: ({rows} + {cols}) × {k} = {reads} floats, each used {} or {} times", cols, rows),
        (x0, 6),
        font,
    ));
}

/// The distributed roofline: FLOP/s a worker attains against FLOPs per byte it sends, log scales;
/// the worker's speed and the link's bandwidth as roofs, a point per worker count.
pub fn distributed(canvas: HtmlCanvasElement, record: &HardwareRecord) {
    let Some(root) = area(canvas) else { return };
    let Some((peak, bandwidth)) = record.cluster_roofs else {
        crate::draw::placeholder(
            &root,
            "Press Run: the cluster lab's model on the network's roofline.",
        );
        return;
    };
    let keys = [
        Key::line(
            "roofs: min(worker's FLOP/s, FLOPs per byte sent × link bandwidth)",
            BLACK,
        ),
        Key::line("a worker's step, by worker count (the label)", ORANGE),
    ];
    let plot = legend::below(&root, &keys);
    let points: Vec<(usize, f64, f64)> = (record.distributed.iter())
        .map(|p| (p.workers, p.intensity().log10(), (p.attainable / 1e9).log10()))
        .collect();
    let data = points.iter().map(|p| (p.1, p.2));
    let labels = (
        "FLOPs per byte sent (log scale)",
        "GFLOP/s a worker attains (log scale)",
    );
    let Some(mut chart) = roof_chart(&plot, (peak / 1e9, bandwidth / 1e9), data, labels) else {
        return;
    };
    let line: Vec<(f64, f64)> = points.iter().map(|p| (p.1, p.2)).collect();
    let _ = chart.draw_series(LineSeries::new(line, ORANGE.stroke_width(1)));
    let font = ("sans-serif", 12).into_font().color(&RGBColor(40, 40, 40));
    for (n, x, y) in points {
        let mark = EmptyElement::at((x, y))
            + Circle::new((0, 0), 5, ORANGE.filled())
            + Text::new(n.to_string(), (6, -16), font.clone());
        let _ = chart.draw_series(std::iter::once(mark));
    }
}
