//! The allreduce animation: workers around a ring (servers across the middle), each with its
//! buffer's chunks shaded by how many workers' gradients they hold, and the messages of the
//! current step as arrows; and the schedule's messages as a table.

use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use engine::collectives::{Coverage, Schedule};

use crate::draw::context;

/// Node positions: workers on a circle, servers in a row across the middle.
fn positions(s: &Schedule, w: f64, h: f64) -> Vec<(f64, f64)> {
    let (cx, cy, r) = (w / 2.0, h / 2.0 + 8.0, (w.min(h) / 2.0 - 40.0).max(20.0));
    let p = s.workers.max(1) as f64;
    let mut out: Vec<(f64, f64)> = (0..s.workers)
        .map(|i| {
            let a = -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * i as f64 / p;
            (cx + r * a.cos(), cy + r * a.sin())
        })
        .collect();
    for k in 0..s.servers {
        let x = cx + (k as f64 - (s.servers as f64 - 1.0) / 2.0) * 50.0;
        out.push((x, cy));
    }
    out
}

/// The schedule's messages as CSV, one row each: step, sender, receiver, values, add or copy.
pub fn schedule_table(s: &Schedule) -> String {
    let messages = s.steps.iter().enumerate().flat_map(|(k, msgs)| {
        msgs.iter().map(move |m| {
            let op = if m.reduce { "add" } else { "copy" };
            [k + 1, m.from, m.to, m.start, m.len]
                .map(|v| v.to_string())
                .into_iter()
                .chain([op.to_string()])
        })
    });
    crate::figures::csv("step,from,to,first_value,values,operation", messages)
}

/// Frame `step` of the animation (0 = the workers' own gradients; k = after step k, with step k's
/// messages drawn as arrows: orange adds into the receiver, blue overwrites it).
pub fn animation(canvas: &HtmlCanvasElement, s: &Schedule, cov: &Coverage, step: usize) -> Option<()> {
    let ctx = context(canvas)?;
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w, h);
    let step = step.min(cov.frames.len().saturating_sub(1));
    let frame = &cov.frames[step];
    let pos = positions(s, w, h);
    let p = s.workers.max(1);
    let big = p > 16;
    if step > 0 {
        for m in &s.steps[step - 1] {
            let (a, b) = (pos[m.from], pos[m.to]);
            let color = if m.reduce {
                "rgba(213,94,0,0.75)"
            } else {
                "rgba(0,114,178,0.75)"
            };
            arrow(&ctx, a, b, color, if big { 1.0 } else { 2.0 });
        }
    }
    // Each node's buffer: one cell per chunk of the schedule, darker the more workers it sums.
    let (bw, bh) = if big { (16.0, 6.0) } else { (44.0, 14.0) };
    let n = s.n.max(1) as f64;
    for (node, &(x, y)) in pos.iter().enumerate() {
        let x0 = x - bw / 2.0;
        for (seg, mask) in frame[node].iter().enumerate() {
            let (a, z) = (cov.bounds[seg] as f64 / n, cov.bounds[seg + 1] as f64 / n);
            let t = mask.count_ones() as f64 / p as f64;
            let color = if t >= 1.0 {
                "rgb(0,158,115)".to_string()
            } else {
                let mix = |c: f64| (255.0 * (1.0 - t) + c * t) as u8;
                format!("rgb({},{},{})", mix(0.0), mix(114.0), mix(178.0))
            };
            ctx.set_fill_style_str(&color);
            ctx.fill_rect(x0 + a * bw, y - bh / 2.0, (z - a) * bw, bh);
        }
        ctx.set_stroke_style_str("#444");
        ctx.set_line_width(1.0);
        ctx.stroke_rect(x0, y - bh / 2.0, bw, bh);
        if !big || node % 8 == 0 || node >= s.workers {
            ctx.set_fill_style_str("#333");
            ctx.set_font("11px sans-serif");
            let name = if node < s.workers {
                format!("w{node}")
            } else {
                format!("server {}", node - s.workers)
            };
            let _ = ctx.fill_text(&name, x0, y - bh / 2.0 - 3.0);
        }
    }
    ctx.set_fill_style_str("#333");
    ctx.set_font("12px sans-serif");
    let _ = ctx.fill_text(
        "chunk shade: share of the workers' gradients summed in (green = all)",
        8.0,
        h - 8.0,
    );
    Some(())
}

fn arrow(ctx: &CanvasRenderingContext2d, a: (f64, f64), b: (f64, f64), color: &str, width: f64) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt().max(1e-6);
    let (ux, uy) = (dx / len, dy / len);
    // Stop short of the boxes, and bend a little so that a→b and b→a do not overlap.
    let (sa, sb) = (
        (a.0 + ux * 14.0, a.1 + uy * 14.0),
        (b.0 - ux * 14.0, b.1 - uy * 14.0),
    );
    let (mx, my) = ((sa.0 + sb.0) / 2.0 - uy * 10.0, (sa.1 + sb.1) / 2.0 + ux * 10.0);
    ctx.set_stroke_style_str(color);
    ctx.set_fill_style_str(color);
    ctx.set_line_width(width);
    ctx.begin_path();
    ctx.move_to(sa.0, sa.1);
    ctx.quadratic_curve_to(mx, my, sb.0, sb.1);
    ctx.stroke();
    let (hx, hy) = (sb.0 - mx, sb.1 - my);
    let hl = (hx * hx + hy * hy).sqrt().max(1e-6);
    let (hx, hy) = (hx / hl * 7.0, hy / hl * 7.0);
    ctx.begin_path();
    ctx.move_to(sb.0, sb.1);
    ctx.line_to(sb.0 - hx - hy * 0.5, sb.1 - hy + hx * 0.5);
    ctx.line_to(sb.0 - hx + hy * 0.5, sb.1 - hy - hx * 0.5);
    ctx.close_path();
    ctx.fill();
}
