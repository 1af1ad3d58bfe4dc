//! The cluster lab's drawings (the animation is `crate::cluster::schedule_chart`): one iteration's timeline, speed-up / efficiency / bytes against
//! worker count, loss against modelled time, and time to accuracy against worker count.

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use lab_sims::cluster::ScalingPoint;
use lab_sims::cluster_run::ClusterRun;
use lab_sims::timeline::{Phase, Segment};

use crate::draw::context;
use crate::draw::legend::{self, Key};
use crate::draw::axes::{area, batch_range, line_with_dots, log2_chart, log_range, value_label};

/// One colour per algorithm (the first seven) or per run, checked apart for colour-blind students
/// (`lab_state::palette::RUNS`).
fn rgb(i: usize) -> RGBColor {
    let runs = lab_state::palette::RUNS;
    let (r, g, b) = runs[i % runs.len()];
    RGBColor(r, g, b)
}

/// A log10 axis label in bytes.
fn bytes_label(v: &f32) -> String {
    let b = 10f64.powf(*v as f64);
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.0} kB", b / 1e3)
    } else {
        format!("{b:.0} B")
    }
}

/// A log10 axis label in seconds, three figures at most.
fn seconds_label(v: &f32) -> String {
    let t = 10f64.powf(*v as f64);
    let (x, unit) = if t >= 1.0 {
        (t, "s")
    } else if t >= 1e-3 {
        (t * 1e3, "ms")
    } else {
        (t * 1e6, "µs")
    };
    let digits = if x >= 100.0 {
        0
    } else if x >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:.digits$} {unit}")
}

/// A time axis label: seconds in the unit that reads best.
pub fn seconds(t: f64) -> String {
    if t >= 1.0 {
        format!("{t:.2} s")
    } else if t >= 1e-3 {
        format!("{:.2} ms", t * 1e3)
    } else {
        format!("{:.1} µs", t * 1e6)
    }
}

/// Per worker, a compute lane (forward, backward by bucket, waiting) and beneath it a
/// communication lane.
pub fn timeline(canvas: &HtmlCanvasElement, segments: &[Segment], workers: usize, title: &str) -> Option<()> {
    let rows = segments.iter().map(|g| {
        [
            g.worker.to_string(),
            format!("{:?}", g.phase).to_lowercase(),
            g.start.to_string(),
            g.end.to_string(),
            g.bucket.to_string(),
        ]
    });
    crate::figures::table_of(
        canvas,
        crate::figures::csv("worker,phase,start_s,end_s,bucket", rows),
    );
    let ctx = context(canvas)?;
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w, h);
    let end = segments.iter().map(|s| s.end).fold(0.0, f64::max);
    if end <= 0.0 || workers == 0 {
        return Some(());
    }
    let shown = workers.min(16);
    let (left, top, bottom) = (40.0, 22.0, 34.0);
    let row = (h - top - bottom) / shown as f64;
    let x = |t: f64| left + (w - left - 10.0) * t / end;
    ctx.set_font("11px sans-serif");
    ctx.set_fill_style_str("#333");
    let _ = ctx.fill_text(title, left, 13.0);
    for s in segments.iter().filter(|s| s.worker < shown) {
        let y = top + row * s.worker as f64;
        let (color, y0, hh) = match s.phase {
            Phase::Forward => ("rgb(86,180,233)", y, row * 0.45),
            Phase::Backward if s.bucket % 2 == 0 => ("rgb(0,114,178)", y, row * 0.45),
            Phase::Backward => ("rgb(40,80,150)", y, row * 0.45),
            Phase::Wait => ("rgb(225,225,225)", y, row * 0.45),
            Phase::Comm if s.bucket % 2 == 0 => ("rgb(230,159,0)", y + row * 0.5, row * 0.4),
            Phase::Comm => ("rgb(213,94,0)", y + row * 0.5, row * 0.4),
        };
        ctx.set_fill_style_str(color);
        ctx.fill_rect(x(s.start), y0, (x(s.end) - x(s.start)).max(0.5), hh);
    }
    ctx.set_fill_style_str("#333");
    for k in 0..shown {
        let _ = ctx.fill_text(&format!("w{k}"), 6.0, top + row * k as f64 + row * 0.45);
    }
    if workers > shown {
        // Under the rows, between the axis labels: the title line is long already.
        let _ = ctx.fill_text(
            &format!("(first {shown} of {workers} workers)"),
            w / 2.0 - 70.0,
            h - bottom + 14.0,
        );
    }
    let _ = ctx.fill_text("0", left, h - bottom + 14.0);
    let _ = ctx.fill_text(&seconds(end), w - 70.0, h - bottom + 14.0);
    let legend = [
        ("rgb(86,180,233)", "forward"),
        ("rgb(0,114,178)", "backward (by layer)"),
        ("rgb(225,225,225)", "idle"),
        ("rgb(230,159,0)", "allreduce"),
    ];
    let mut lx = left;
    for (c, name) in legend {
        ctx.set_fill_style_str(c);
        ctx.fill_rect(lx, h - 14.0, 10.0, 10.0);
        ctx.set_fill_style_str("#333");
        let _ = ctx.fill_text(name, lx + 13.0, h - 5.0);
        lx += 20.0 + 6.5 * name.len() as f64;
    }
    Some(())
}

/// What a scaling chart plots.
#[derive(Clone, Copy)]
pub enum Metric {
    Speedup,
    Efficiency,
    Bytes,
}

/// One line per algorithm against worker count (log2); speed-up on log-log axes with the ideal
/// line, efficiency from 0 to 1, bytes per iteration on a log axis.
pub fn scaling(
    canvas: HtmlCanvasElement,
    points: &[ScalingPoint],
    labels: &[(usize, String)],
    metric: Metric,
) -> Option<()> {
    let rows = points.iter().map(|p| {
        let name = labels
            .iter()
            .find(|(i, _)| *i == engine_algorithm_index(p))
            .map_or("", |(_, l)| l.as_str());
        [
            name.to_string(),
            p.workers.to_string(),
            p.seconds.to_string(),
            p.samples.to_string(),
            p.speedup.to_string(),
            p.efficiency.to_string(),
            p.bytes.to_string(),
        ]
    });
    crate::figures::table_of(
        &canvas,
        crate::figures::csv(
            "algorithm,workers,seconds_per_iteration,samples,speedup,efficiency,bytes",
            rows,
        ),
    );
    let root = area(canvas)?;
    let value = |p: &ScalingPoint| match metric {
        Metric::Speedup => p.speedup as f32,
        Metric::Efficiency => p.efficiency as f32,
        Metric::Bytes => p.bytes as f32,
    };
    let xs = batch_range(points.iter().map(|p| p.workers));
    let (ys, log, desc) = match metric {
        Metric::Speedup => (
            log_range(
                points
                    .iter()
                    .map(value)
                    .chain(points.iter().map(|p| p.workers as f32)),
                1.3,
            ),
            true,
            "speed-up over one worker",
        ),
        Metric::Efficiency => (0f32..1.05f32, false, "efficiency (speed-up / workers)"),
        Metric::Bytes => (
            log_range(points.iter().map(value), 1.5),
            true,
            "bytes on the wire per iteration",
        ),
    };
    let format: Option<fn(&f32) -> String> = match metric {
        Metric::Bytes => Some(bytes_label),
        Metric::Speedup => Some(value_label),
        Metric::Efficiency => None,
    };
    let has = |i: usize| {
        points
            .iter()
            .any(|p| engine_algorithm_index(p) == i && (value(p) > 0.0 || !log))
    };
    let mut keys = Vec::new();
    if let Metric::Speedup = metric {
        keys.push(Key::line("ideal (p×)", RGBColor(120, 120, 120)));
    }
    keys.extend(
        labels
            .iter()
            .filter(|(i, _)| has(*i))
            .map(|(i, l)| Key::line(l.clone(), rgb(*i))),
    );
    let plot = legend::below(&root, &keys);
    let mut chart = log2_chart(&plot, xs.clone(), ys, "workers", desc, format)?;
    let y = |v: f32| if log { v.max(1e-30).log10() } else { v };
    if let Metric::Speedup = metric {
        let ideal: Vec<(f32, f32)> = points
            .iter()
            .map(|p| ((p.workers as f32).log2(), y(p.workers as f32)))
            .collect();
        chart
            .draw_series(LineSeries::new(ideal, BLACK.mix(0.4).stroke_width(1)))
            .ok()?;
    }
    for (i, _) in labels {
        let series: Vec<(f32, f32)> = points
            .iter()
            .filter(|p| engine_algorithm_index(p) == *i)
            .filter(|p| value(p) > 0.0 || !log)
            .map(|p| ((p.workers as f32).log2(), y(value(p))))
            .collect();
        if series.is_empty() {
            continue;
        }
        line_with_dots(&mut chart, series, rgb(*i))?;
    }
    root.present().ok()
}

/// The position of a point's algorithm in [`crate::cluster::ALGORITHMS`], its colour.
fn engine_algorithm_index(p: &ScalingPoint) -> usize {
    crate::cluster::algorithm_index(p.algorithm)
}

/// Each run's smoothed loss against modelled time, on a log axis when `log` (and every loss is
/// positive).
pub fn loss_vs_time(canvas: HtmlCanvasElement, runs: &[ClusterRun], log: bool) -> Option<()> {
    let rows = runs.iter().flat_map(|r| {
        r.losses
            .iter()
            .zip(&r.times)
            .enumerate()
            .map(move |(k, (l, t))| [r.label.clone(), (k + 1).to_string(), t.to_string(), l.to_string()])
    });
    crate::figures::table_of(&canvas, crate::figures::csv("run,update,modelled_s,loss", rows));
    let root = area(canvas)?;
    let end = runs
        .iter()
        .filter_map(|r| r.times.last())
        .fold(0.0f64, |a, &b| a.max(b));
    let (unit, name) = if end >= 1.0 {
        (1.0, "s")
    } else if end >= 1e-3 {
        (1e3, "ms")
    } else {
        (1e6, "µs")
    };
    let lines: Vec<Vec<(f32, f32)>> = runs
        .iter()
        .map(|r| {
            crate::draw::smoothed(&r.losses, 0.9)
                .into_iter()
                .filter(|(_, v)| v.is_finite())
                .map(|(k, v)| ((r.times[k - 1] * unit) as f32, v))
                .collect()
        })
        .collect();
    let scale = crate::draw::loss_chart::LossScale::new(lines.iter().flatten().map(|p| p.1), log);
    let keys: Vec<Key> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| Key::line(r.label.clone(), rgb(i)))
        .collect();
    let plot = legend::below(&root, &keys);
    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(50)
        .build_cartesian_2d(0f32..(end * unit).max(1e-9) as f32, scale.range.clone())
        .ok()?;
    chart
        .configure_mesh()
        .x_desc(format!("modelled time ({name})"))
        .y_desc(scale.desc("training loss (smoothed)"))
        .x_labels(6)
        .y_labels(scale.label_count())
        .x_label_formatter(&|v| crate::draw::ticks::value_label(*v as f64))
        .y_label_formatter(&|v| scale.label(*v))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 12))
        .draw()
        .ok()?;
    for (i, line) in lines.into_iter().enumerate() {
        let line = line.into_iter().map(|(t, v)| (t, scale.y(v)));
        chart
            .draw_series(LineSeries::new(line, rgb(i).stroke_width(2)))
            .ok()?;
    }
    root.present().ok()
}

/// Modelled seconds to the target against worker count, one line per algorithm; runs that missed
/// the target are left out.
pub fn time_to_accuracy(
    canvas: HtmlCanvasElement,
    runs: &[ClusterRun],
    labels: &[(usize, String)],
) -> Option<()> {
    let rows = runs.iter().map(|r| {
        let (t, step) = r.reached.as_ref().map_or((String::new(), String::new()), |c| {
            (c.time.to_string(), c.step.to_string())
        });
        [r.label.clone(), r.config.workers.to_string(), t, step]
    });
    crate::figures::table_of(
        &canvas,
        crate::figures::csv("run,workers,modelled_s_to_target,updates_to_target", rows),
    );
    let root = area(canvas)?;
    let reached: Vec<(usize, usize, f32)> = runs
        .iter()
        .filter_map(|r| {
            let i = crate::cluster::algorithm_index(r.config.algorithm);
            r.reached.map(|c| (i, r.config.workers, c.time as f32))
        })
        .collect();
    let xs = batch_range(runs.iter().map(|r| r.config.workers));
    let ys = log_range(reached.iter().map(|r| r.2), 1.5);
    let keys: Vec<Key> = labels
        .iter()
        .filter(|(i, _)| reached.iter().any(|r| r.0 == *i))
        .map(|(i, l)| Key::line(l.clone(), rgb(*i)))
        .collect();
    let plot = legend::below(&root, &keys);
    let mut chart = log2_chart(
        &plot,
        xs,
        ys,
        "workers",
        "modelled time to the target",
        Some(seconds_label),
    )?;
    for (i, _) in labels {
        let series: Vec<(f32, f32)> = reached
            .iter()
            .filter(|r| r.0 == *i)
            .map(|r| ((r.1 as f32).log2(), r.2.log10()))
            .collect();
        if series.is_empty() {
            continue;
        }
        line_with_dots(&mut chart, series, rgb(*i))?;
    }
    root.present().ok()
}
