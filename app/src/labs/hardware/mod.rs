//! The hardware lab (`/hardware`): the device's roofline measured in the page (engine::roofline's
//! probes), each kernel of a training step placed under it with its hand-counted FLOPs and bytes,
//! and a matrix product counted on a systolic array cycle by cycle (docs/theory.md §11). `page`
//! lays it out, `run` measures, `figures` shows, `systolic` draws the array.

pub mod draw;
pub mod graph_chart;
mod figures;
mod lesson;
mod page;
mod run;
mod systolic;

use leptos::html::Canvas;
use leptos::prelude::*;

use lab_sims::hardware::record::HardwareRecord;

use crate::hardware::draw as charts;

/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use page::HardwarePage as Page;

#[derive(Clone, Copy)]
struct Canvases {
    roofline: NodeRef<Canvas>,
    tiles: NodeRef<Canvas>,
    graph: NodeRef<Canvas>,
    distributed: NodeRef<Canvas>,
}

const GRAPH_HEAD: &str =
    "node,phase,layer,computes,kernel_op,product,reads,writes,flops,bytes,inputs_from,fused_kernel";

/// The step's graph, a row per node: what the drawing shows, in words.
fn graph_rows(g: &engine::plan::StepGraph) -> impl Iterator<Item = [String; 12]> + '_ {
    let tensors = |ts: &[engine::plan::Tensor]| {
        ts.iter()
            .map(|t| format!("{} {}", t.name, t.dims()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    g.nodes.iter().enumerate().map(move |(i, n)| {
        let from: Vec<String> = (g.edges.iter().filter(|e| e.to == i))
            .map(|e| (e.from + 1).to_string())
            .collect();
        [
            (i + 1).to_string(),
            format!("{:?}", n.phase).to_lowercase(),
            n.layer.map_or(String::new(), |l| (l + 1).to_string()),
            crate::hardware::graph_chart::label(n),
            n.op.clone(),
            n.product.clone().unwrap_or_default(),
            tensors(&n.reads),
            tensors(&n.writes),
            n.flops.to_string(),
            n.bytes.to_string(),
            from.join(" "),
            (n.fused_kernel + 1).to_string(),
        ]
    })
}

/// The numbers behind the roofline, as CSV.
fn tables(record: &HardwareRecord) {
    use crate::figures::{csv, set_table};
    let rows = (record.kernels.iter().enumerate())
        .map(|(k, t)| (format!("{} {}", k + 1, t.name), t))
        .chain(record.sweep.iter().map(|(n, t)| (format!("matmul {n}x{n}"), t)))
        .map(|(name, t)| {
            [
                name,
                t.ms.to_string(),
                t.flops.to_string(),
                t.bytes.to_string(),
                HardwareRecord::intensity(t).map_or(String::new(), |i| i.to_string()),
            ]
        });
    set_table("hw-roofline", csv("kernel,ms,flops,bytes,flops_per_byte", rows));
    let tiles = record.tiles.iter().map(|t| {
        [
            t.code.clone(),
            t.edge.to_string(),
            t.tiles.to_string(),
            t.bytes.to_string(),
            t.ms.map_or(String::new(), |ms| ms.to_string()),
        ]
    });
    if let Some(g) = &record.graph {
        set_table("hw-graph", csv(GRAPH_HEAD, graph_rows(g)));
    }
    set_table("hw-tiles", csv("shape,edge,tiles,bytes,ms", tiles));
    let points = record.distributed.iter().map(|p| {
        [
            p.workers.to_string(),
            p.worker_batch.to_string(),
            p.flops.to_string(),
            p.bytes.to_string(),
            p.attainable.to_string(),
        ]
    });
    set_table(
        "hw-distributed",
        csv(
            "workers,worker_batch,flops,bytes_sent,attainable_flops_per_s",
            points,
        ),
    );
}

fn redraw(c: &Canvases, record: &HardwareRecord) {
    tables(record);
    if let Some(x) = c.roofline.get_untracked() {
        charts::roofline(x, record);
    }
    if let (Some(x), Some(g)) = (c.graph.get_untracked(), &record.graph) {
        x.set_height(crate::hardware::graph_chart::height(g));
        crate::hardware::graph_chart::step_graph(x, g, record.fused);
    }
    if let Some(x) = c.distributed.get_untracked() {
        charts::distributed(x, record);
    }
    // The 64 × 64 shape (the default's) drawn; the table has every shape.
    if let (Some(x), false) = (c.tiles.get_untracked(), record.tiles.is_empty()) {
        charts::tiles(x, (record.gemm.m, record.gemm.n, record.gemm.k), 64);
    }
}
