//! The training step drawn as its graph (`engine::plan::StepGraph`): the forward pass down the
//! left, a row per layer, the loss at the foot, the backward pass back up the right beside the
//! layer it differentiates, and the update at the top right — the U every backpropagation
//! diagram draws. Each box is a node (op, operands' shapes, FLOPs and bytes); each line a tensor
//! one node writes and a later one reads. With fusion on, the nodes one kernel runs share an
//! outline colour and its number.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use engine::plan::{Node, Phase, StepGraph};

use crate::draw::axes::{area, color};

const BOX_W: i32 = 170;
const BOX_H: i32 = 50;
const ROW_H: i32 = 64;
const GAP: i32 = 8;
const TOP: i32 = 30;
/// Where the backward half starts.
const RIGHT: i32 = 2 * (BOX_W + GAP) + 60;
const INK: RGBColor = RGBColor(40, 40, 40);
const EDGE: RGBColor = RGBColor(150, 150, 150);

fn fill(p: Phase) -> RGBColor {
    match p {
        Phase::Batch | Phase::Loss => RGBColor(238, 238, 238),
        Phase::Forward => RGBColor(222, 235, 247),
        Phase::Backward => RGBColor(253, 228, 204),
        Phase::Update => RGBColor(214, 240, 226),
    }
}

/// "12.8 MFLOP", "635 kB".
fn short(v: f64, unit: &str) -> String {
    let (v, p) = match v {
        v if v >= 1e9 => (v / 1e9, "G"),
        v if v >= 1e6 => (v / 1e6, "M"),
        v if v >= 1e3 => (v / 1e3, "k"),
        v => (v, ""),
    };
    format!("{v:.1} {p}{unit}")
}

/// What a node computes, in the lecture's words: the layer it belongs to and which of its
/// gradients it makes.
pub fn label(n: &Node) -> String {
    let kind = n.layer_kind.as_deref().unwrap_or("");
    let op = n.op.as_str();
    let weights = n.writes.iter().any(|t| t.name == "grads");
    match n.phase {
        Phase::Batch => "gather the batch".into(),
        Phase::Loss if op.starts_with("softmax") => "softmax, cross-entropy".into(),
        Phase::Loss => "mean over the batch".into(),
        Phase::Update => format!("{op} update"),
        Phase::Forward if op.starts_with("bias") => format!("{kind}: + bias"),
        Phase::Forward => kind.into(),
        Phase::Backward if op.ends_with("reduce") => "Σ parts → ∇W, ∇b".into(),
        Phase::Backward if op.ends_with("backward_weight") => format!("∇W parts: {kind}"),
        Phase::Backward if op.starts_with("bias") => format!("∇b of {kind}"),
        Phase::Backward if weights => format!("∇W of {kind}"),
        Phase::Backward if op == "matmul" || op.ends_with("backward_input") => format!("∇input of {kind}"),
        Phase::Backward => format!("∇ through {kind}"),
    }
}

/// Each node's box: its top-left corner. Rows: the batch, each layer with nodes, the loss.
pub fn layout(g: &StepGraph) -> Vec<(i32, i32)> {
    let mut layers: Vec<usize> = g.nodes.iter().filter_map(|n| n.layer).collect();
    layers.sort_unstable();
    layers.dedup();
    let row = |n: &Node| match (n.phase, n.layer) {
        (Phase::Batch | Phase::Update, _) => 0,
        (_, Some(l)) => 1 + layers.iter().position(|x| *x == l).unwrap_or(0),
        (_, None) => 1 + layers.len(),
    };
    // Places taken so far in each row, left half and right half.
    let mut used: Vec<[i32; 2]> = vec![[0, 0]; layers.len() + 2];
    g.nodes
        .iter()
        .map(|n| {
            let r = row(n);
            let side = usize::from(matches!(n.phase, Phase::Backward | Phase::Update));
            let slot = used[r][side];
            used[r][side] += 1;
            let x = 10 + side as i32 * RIGHT + slot * (BOX_W + GAP);
            (x, TOP + r as i32 * ROW_H)
        })
        .collect()
}

/// The canvas height the graph needs.
pub fn height(g: &StepGraph) -> u32 {
    let rows = layout(g).iter().map(|p| p.1).max().unwrap_or(0) + BOX_H + 20;
    rows.max(120) as u32
}

fn node_box(root: &DrawingArea<CanvasBackend, Shift>, i: usize, n: &Node, (x, y): (i32, i32), fused: bool) {
    let _ = root.draw(&Rectangle::new(
        [(x, y), (x + BOX_W, y + BOX_H)],
        fill(n.phase).filled(),
    ));
    let outline = if fused { color(n.fused_kernel) } else { EDGE };
    let _ = root.draw(&Rectangle::new(
        [(x, y), (x + BOX_W, y + BOX_H)],
        outline.stroke_width(if fused { 2 } else { 1 }),
    ));
    let bold = ("sans-serif", 11.5)
        .into_font()
        .style(FontStyle::Bold)
        .color(&INK);
    let font = ("sans-serif", 11).into_font().color(&INK);
    let _ = root.draw(&Text::new(
        format!("{} {}", i + 1, label(n)),
        (x + 4, y + 3),
        bold,
    ));
    if fused {
        let tag = ("sans-serif", 11)
            .into_font()
            .style(FontStyle::Bold)
            .color(&color(n.fused_kernel));
        let _ = root.draw(&Text::new(
            format!("K{}", n.fused_kernel + 1),
            (x + BOX_W - 28, y + 34),
            tag,
        ));
    }
    let shape = n
        .product
        .clone()
        .unwrap_or_else(|| match n.writes.iter().find(|t| t.shape.len() > 1) {
            Some(t) => t.dims(),
            None => n.writes.first().map_or(String::new(), |t| t.name.clone()),
        });
    let _ = root.draw(&Text::new(shape, (x + 4, y + 19), font.clone()));
    let cost = if n.flops > 0.0 {
        format!("{} · {}", short(n.flops, "FLOP"), short(n.bytes, "B"))
    } else {
        short(n.bytes, "B")
    };
    let _ = root.draw(&Text::new(cost, (x + 4, y + 34), font));
}

/// Draws the graph; `fused`: mark the kernel that runs each node.
pub fn step_graph(canvas: HtmlCanvasElement, g: &StepGraph, fused: bool) {
    let Some(root) = area(canvas) else { return };
    let at = layout(g);
    // Lines first, under the boxes: from the writer's bottom (or side) to the reader's top.
    for e in &g.edges {
        let ((fx, fy), (tx, ty)) = (at[e.from], at[e.to]);
        let (from, to) = if fy == ty {
            ((fx + BOX_W, fy + BOX_H / 2), (tx, ty + BOX_H / 2))
        } else if fy < ty {
            ((fx + BOX_W / 2, fy + BOX_H), (tx + BOX_W / 2, ty))
        } else {
            ((fx + BOX_W / 2, fy), (tx + BOX_W / 2, ty + BOX_H))
        };
        let _ = root.draw(&PathElement::new(vec![from, to], EDGE.stroke_width(1)));
        let _ = root.draw(&Circle::new(to, 3, EDGE.filled()));
    }
    for (i, n) in g.nodes.iter().enumerate() {
        node_box(&root, i, n, at[i], fused);
    }
    let font = ("sans-serif", 13).into_font().color(&INK);
    let _ = root.draw(&Text::new("forward ↓", (10, 6), font.clone()));
    let _ = root.draw(&Text::new("↑ backward, then the update", (10 + RIGHT, 6), font));
}
