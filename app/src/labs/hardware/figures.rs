//! The hardware page's charts and tables: the roofline, the step's kernels, the systolic array,
//! and the "what to try" panel.

use leptos::prelude::*;

use lab_sims::hardware::record::{Bound, HardwareRecord};
use lab_sims::hardware::tiling::product_flops;
use lab_state::hardware::HardwareLab;

use super::Canvases;

fn si(v: f64, unit: &str) -> String {
    let (scaled, prefix) = if v >= 1e9 {
        (v / 1e9, "G")
    } else if v >= 1e6 {
        (v / 1e6, "M")
    } else if v >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    format!("{scaled:.2} {prefix}{unit}")
}

/// The device and its roofs, in words.
fn roofs_text(r: &HardwareRecord) -> impl IntoView {
    r.roofs.map(|roofs| {
        let emulated = r.emulated.then_some(" This is an emulation — a GPU run by the processor (SwiftShader, lavapipe) or the CPU path — so these are a processor's figures, not a graphics card's.");
        view! {
            <p class="verdict" data-testid="hw-roofs" aria-live="polite">
                {format!("{}: ", r.device)}
                <span data-metric="peak-gflops" data-metric-value=roofs.gflops.to_string()>{format!("{:.1} GFLOP/s", roofs.gflops)}</span>
                " attainable arithmetic, "
                <span data-metric="bandwidth-gbs" data-metric-value=roofs.gbs.to_string()>{format!("{:.1} GB/s", roofs.gbs)}</span>
                " memory bandwidth; the roofs meet at "
                <span data-metric="ridge" data-metric-value=roofs.ridge().to_string()>{format!("{:.2} FLOPs per byte", roofs.ridge())}</span>
                "."
                {emulated}
            </p>
        }
    })
}

/// A row per kernel of the step.
fn kernel_rows(r: &HardwareRecord) -> impl IntoView {
    let step = r.step_ms();
    let head = view! {
        <tr><th>"#"</th><th>"kernel"</th><th>"ms"</th><th>"share of the step"</th><th>"FLOPs"</th><th>"bytes (at least)"</th><th>"FLOPs per byte"</th><th>"GFLOP/s attained"</th><th>"bound"</th></tr>
    };
    let rows = r.kernels.iter().enumerate().map(|(k, t)| {
        let i = HardwareRecord::intensity(t);
        let bound = match r.bound(t) {
            Some(Bound::Memory) if t.flops == 0.0 => "memory (no arithmetic counted)",
            Some(Bound::Memory) => "memory",
            Some(Bound::Compute) => "compute",
            None => "–",
        };
        let share = 100.0 * t.ms / step.max(1e-12);
        view! {
            <tr>
                <td>{(k + 1).to_string()}</td>
                <td>{t.name.clone()}</td>
                <td>{format!("{:.3}", t.ms)}</td>
                <td data-metric=format!("share-{}", k + 1) data-metric-value=share.to_string()>{format!("{share:.1} %")}</td>
                <td>{si(t.flops, "")}</td>
                <td>{si(t.bytes, "B")}</td>
                <td data-metric=format!("intensity-{}", k + 1) data-metric-value=i.map_or(String::new(), |i| i.to_string())>{i.map_or("–".into(), |i| format!("{i:.2}"))}</td>
                <td>{format!("{:.2}", t.flops / (t.ms.max(1e-9) * 1e6))}</td>
                <td>{bound}</td>
            </tr>
        }
    }).collect_view();
    let summary = (r.roofs.is_some() && !r.kernels.is_empty()).then(|| {
        let metric = |name| r.metric(name).map_or(String::new(), |v| v.to_string());
        view! {
            <tr hidden>
                <td data-metric="memory-bound" data-metric-value=metric("memory-bound")></td>
                <td data-metric="largest-intensity" data-metric-value=metric("largest-intensity")></td>
            </tr>
        }
    });
    view! { {head}{rows}{summary} }
}

/// How the kernels were timed, in words.
fn clock_text(r: &HardwareRecord) -> Option<&'static str> {
    use engine::backend::Clock;
    Some(match r.kernels.first()?.clock {
        Clock::Timestamps => "Timed by the GPU's own clock: timestamp queries at the start and end of a pass of repeated dispatches of each kernel.",
        Clock::Repeated => "Timed by the page's clock around repeated dispatches of each kernel, less a read-back's time: this browser offers no timestamp queries, or rounds them too coarsely to resolve a kernel (Chrome rounds to 0.1 ms unless its WebGPU developer features are on).",
        Clock::Cpu => "Timed by the page's clock around repeated runs of each kernel's CPU twin.",
    })
}

/// Each kernel and the ops it runs, with the bytes fusion saves.
fn fusion_rows(r: &HardwareRecord) -> impl IntoView {
    let head = view! {
        <tr><th>"#"</th><th>"kernel dispatched"</th><th>"the ops it runs"</th><th>"FLOPs"</th><th>"bytes, as one kernel"</th><th>"bytes, op by op"</th><th>"saved"</th></tr>
    };
    let rows = r.dispatches.iter().enumerate().map(|(k, d)| {
        let ops = d.ops.iter().map(|o| o.name.clone()).collect::<Vec<_>>().join(" → ");
        let apart = d.separate_bytes();
        view! {
            <tr>
                <td>{(k + 1).to_string()}</td>
                <td>{d.kernel.name.clone()}</td>
                <td>{ops}</td>
                <td>{si(d.kernel.flops, "")}</td>
                <td>{si(d.kernel.bytes, "B")}</td>
                <td>{si(apart, "B")}</td>
                <td>{if apart > d.kernel.bytes { si(apart - d.kernel.bytes, "B") } else { "–".into() }}</td>
            </tr>
        }
    }).collect_view();
    let saved = r.metric("fusion-saved").map(
        |v| view! { <tr hidden><td data-metric="fusion-saved" data-metric-value=v.to_string()></td></tr> },
    );
    view! { {head}{rows}{saved} }
}

/// The graph in numbers: its nodes, the kernels that run them, the backward's FLOPs against the
/// forward's.
fn graph_text(r: &HardwareRecord) -> Option<impl IntoView + use<>> {
    use engine::plan::Phase;
    let g = r.graph.as_ref()?;
    let (forward, backward) = (g.flops_of(Phase::Forward), g.flops_of(Phase::Backward));
    let kernels = g.nodes.last().map_or(0, |n| n.fused_kernel + 1);
    let ratio = r.metric("backward-ratio")?;
    let (step, share) = (r.metric("step-forwards")?, r.metric("first-layer-share")?);
    Some(view! {
        {format!("{} ops, {} tensors passed between them; ", g.nodes.len(), g.edges.len())}
        {format!("{kernels} kernels run them with fusion on. ")}
        "The backward pass costs "
        <span data-metric="backward-ratio" data-metric-value=ratio.to_string()>{format!("{ratio:.2}×")}</span>
        {format!(" the forward's FLOPs ({} against {}): two products a layer (the weights' gradient and the input's) for the forward's one, less the first layer's input gradient, which nothing needs. So forward and backward cost ", si(backward, "FLOPs"), si(forward, "FLOPs"))}
        <span data-metric="step-forwards" data-metric-value=step.to_string()>{format!("{step:.2}")}</span>
        {format!(" forward passes, not the rule of thumb's 3: the first layer is {:.0} % of the forward's FLOPs, and 3 − {:.2} = {step:.2}. The rule holds where the first layer is a small share (deep networks).", share * 100.0, share)}
    })
}

/// How the engine chose its tiles here, and what the autotune timed this visit, as rates.
fn tuning_view(r: &HardwareRecord) -> impl IntoView {
    let how = (!r.tuning.is_empty()).then(|| format!("The engine's tiles on this device: {}.", r.tuning));
    let table = (!r.tuned.is_empty()).then(|| {
        let rows = r.tuned.iter().map(|t| view! {
            <tr>
                <td>{t.class.clone()}</td>
                <td>{t.code.clone()}</td>
                <td>{format!("{:.3}", t.ms)}</td>
                <td>{format!("{:.1}", t.gflops)}</td>
                <td>{if t.chosen { "chosen" } else { "" }}</td>
            </tr>
        }).collect_view();
        view! {
            <table class="results" data-testid="hw-tuned">
                <tr><th>"products"</th><th>"tile shape"</th><th>"ms a pass"</th><th>"GFLOP/s"</th><th></th></tr>
                {rows}
            </table>
        }
    });
    view! { <p class="small" data-testid="hw-tuning">{how}</p>{table} }
}

/// Where the workers leave the compute roof, in words.
fn distributed_text(r: &HardwareRecord) -> Option<impl IntoView + use<>> {
    let from = r.metric("network-bound-from")?;
    let (peak, bandwidth) = r.cluster_roofs?;
    Some(view! {
        "The ridge is at " {format!("{:.1}", peak / bandwidth)} " FLOPs per byte sent; from "
        <span data-metric="network-bound-from" data-metric-value=from.to_string()>{format!("{from:.0}")}</span>
        " workers on, a worker waits on the network."
    })
}

/// The settings' product in each tile shape.
fn tile_rows(r: &HardwareRecord) -> impl IntoView {
    let head = view! {
        <tr><th>"tile shape"</th><th>"tiles of C (workgroups)"</th><th>"bytes from global memory"</th><th>"ms on this device"</th><th>"GFLOP/s"</th></tr>
    };
    let flops = product_flops(r.gemm.m, r.gemm.n, r.gemm.k);
    let rows = r.tiles.iter().map(|t| {
        let mut name = if t.code.ends_with("k4") { format!("{0} × {0}, k split in four", t.edge) } else { format!("{0} × {0}", t.edge) };
        if r.tile_choice.as_deref() == Some(t.code.as_str()) {
            name.push_str(" (the engine's here)");
        }
        view! {
            <tr>
                <td>{name}</td>
                <td>{t.tiles.to_string()}</td>
                <td data-metric=format!("tile-bytes-{}", t.code) data-metric-value=t.bytes.to_string()>{si(t.bytes, "B")}</td>
                <td>{t.ms.map_or("– (no GPU tiles on the CPU path)".into(), |ms| format!("{ms:.3}"))}</td>
                <td>{t.ms.map_or("–".into(), |ms| format!("{:.2}", flops / (ms.max(1e-9) * 1e6)))}</td>
            </tr>
        }
    }).collect_view();
    view! { {head}{rows} }
}

pub fn figures(
    canvases: Canvases,
    record: RwSignal<Option<HardwareRecord>>,
    settings: RwSignal<HardwareLab>,
) -> impl IntoView {
    view! {
        <section class="views">
            <figure class="wide">
                {move || record.with(|r| r.as_ref().map(roofs_text))}
                <canvas node_ref=canvases.roofline data-testid="hw-roofline" data-empty="Press Run: this device's roofline, and the step's kernels under it." width="640" height="420"></canvas>
                <figcaption>"The roofline of this device, measured in the page: GFLOP/s against arithmetic intensity (FLOPs per byte moved), both on log scales. The flat roof is the compute probe's rate (chains of fused multiply-adds, no memory traffic); the slope is the copy probe's bandwidth times the intensity. Orange, numbered as in the table below: the kernels of one training step, each at its hand-counted intensity and the rate it attained. Blue: square matrix products of n = 8 to 512, whose intensity grows as n/6. Read it: a kernel left of the corner (the ridge) can go no faster than memory feeds it; right of it, no faster than the arithmetic. How far below its roof a kernel sits is what tuning could still win. A point a little above the roof is timing noise, or a kernel better tuned than the probes: the roofs are what the page measured, not the data sheet's peaks."</figcaption>
            </figure>
            <figure class="wide">
                <canvas node_ref=canvases.graph data-testid="hw-graph" data-empty="Press Run: the training step as a graph of ops, forward and backward." width="960" height="420"></canvas>
                <p class="small" data-testid="hw-graph-text">{move || record.with(|r| r.as_ref().and_then(graph_text))}</p>
                <figcaption>"The training step as a graph, drawn from the engine's own plan: each box an op (its number, what it computes, its operands' shapes rows first, its FLOPs and the bytes it moves at the least), each line a tensor one op writes and a later one reads. The forward pass runs down the left, a row per layer; the loss sits at the foot; the backward pass climbs the right beside the layer it differentiates, reading what that layer's forward kept (its input, a ReLU's input, a pool's arg-max); the update at the top right reads every gradient. With the fused step on, a coloured outline and K-number mark the kernel that runs each op: one dispatch for several boxes. The table button lists every node in words."</figcaption>
            </figure>
            <figure class="wide">
                <p class="small" data-testid="hw-clock">{move || record.with(|r| r.as_ref().and_then(clock_text))}</p>
                <table class="results" data-testid="hw-kernels">
                    {move || record.with(|r| r.as_ref().map(kernel_rows))}
                </table>
                <figcaption>"Each kernel of the step the engine dispatches (fused, or one per op with the setting off), timed on this device (the line above says by which clock). FLOPs count a multiply-add as 2; bytes are what the kernel must read and write at the least, each value once, 4 bytes a float (theory §11.1). An element-wise kernel (an activation, the loss) has no arithmetic counted: it is memory-bound on any device. The update counts its operations per parameter (SGD: w − η·g, 2 FLOPs for 12 bytes, 1/6 of a FLOP a byte; Adam 16 for 28): far left of any ridge, memory-bound too (theory §11.1)."</figcaption>
            </figure>
            <figure class="wide">
                <table class="results" data-testid="hw-fusion">
                    {move || record.with(|r| r.as_ref().map(fusion_rows))}
                </table>
                <figcaption>"The step as the engine runs it: each kernel dispatched and the ops of the network's forward and backward pass it covers, in order (gather the batch, multiply, add the bias, the activation; the loss; then the backward products and the update). A fused kernel runs several ops in one pass: the same FLOPs, but what one op wrote and the next read again stays on the chip, so it moves fewer bytes — its intensity rises, toward the compute roof. Turn \"fused step\" off to dispatch every op as a kernel of its own."</figcaption>
            </figure>
            <figure class="wide">
                <canvas node_ref=canvases.tiles data-testid="hw-tiles" data-empty="Press Run: one tile of the product and what it reads." width="640" height="360"></canvas>
                <table class="results" data-testid="hw-tile-table">
                    {move || record.with(|r| r.as_ref().map(tile_rows))}
                </table>
                {move || record.with(|r| r.as_ref().map(tuning_view))}
                <figcaption>"Tiling the product of the systolic settings below (by default W1's first layer): a workgroup computes one tile of C, reading its panel of A (its rows, all of k) and of B (its columns, all of k) into workgroup memory once and using each value there as many times as the tile is wide. A is read once per column of tiles and B once per row of tiles, so larger tiles move fewer bytes (theory §11.2, counted by hand in sims/src/hardware/tiling.rs); but they leave fewer workgroups to share among the GPU's cores. The table times the product in each of the engine's tile shapes on this device (on a GPU; the CPU path has no tiles) and marks the one the engine would use for it. On a real GPU the engine's autotune times every shape on W1's products and on larger squares once per browser and keeps the fastest of each size; when it timed in this visit, its candidates and their rates are listed below the table (an emulated GPU keeps 64 × 64 untimed; /bench?tiles=time times any device again)."</figcaption>
            </figure>
            {super::systolic::systolic(settings)}
            <figure class="wide">
                <canvas node_ref=canvases.distributed data-testid="hw-distributed" data-empty="Press Run: the cluster lab's model on the network's roofline." width="640" height="380"></canvas>
                <p class="small" data-testid="hw-distributed-text">{move || record.with(|r| r.as_ref().and_then(distributed_text))}</p>
                <figcaption>"The roofline of data-parallel training, for the cluster lab's MNIST model (by default its experiment: a global batch of 64 split among the workers, each worker at 5 GFLOP/s, a 10 Gb Ethernet between them, a ring allreduce; the settings under \"Distributed roofline\" change them, and the chart follows at once): a worker's step does its share of the batch's FLOPs and sends about twice the gradient, so its intensity is FLOPs per byte sent, and it computes no faster than min(its speed, intensity × the link's bandwidth). Adding workers to a fixed batch divides the FLOPs but not the bytes: the point walks left, and past the ridge the network, not the arithmetic, sets the pace (theory §11.4; the cluster lab simulates the same in time)."</figcaption>
            </figure>
            {crate::lessons::lesson("hw", super::lesson::STEPS)}
        </section>
    }
}
