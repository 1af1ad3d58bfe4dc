//! The parallelism lab's views: memory per device first (the lesson: which layouts fit), the
//! verdict and the table of time, traffic and accuracy, one device's memory through a step, the
//! pipeline's schedule, and the layouts' training losses.

use leptos::prelude::*;

use lab_sims::parallelism::layout::Estimate;
use lab_sims::parallelism::layout_run::LayoutRun;
use lab_sims::parallelism::record::ParallelismRecord;
use lab_state::parallelism::ParallelismLab as Settings;

use super::Canvases;

fn mb(b: u64) -> String {
    format!("{:.2} MB", b as f64 / 1e6)
}

/// A layout's test id: its way's name (the label's start).
fn key(run_label: &str) -> String {
    run_label.split(':').next().unwrap_or("").trim().to_string()
}

fn row(e: &Estimate, run: Option<&LayoutRun>, budget: u64) -> impl IntoView {
    let k = run.map(|r| key(&r.label)).unwrap_or_default();
    let accuracy = match run {
        Some(r) => match (r.diverged_at, r.test_accuracy) {
            (Some(s), _) => format!("diverged at step {s}"),
            (None, Some(a)) => format!("{:.1} %", a * 100.0),
            _ => "–".into(),
        },
        None => "not trained".into(),
    };
    let gap = |g: Option<f32>| {
        g.map_or("–".into(), |g| {
            if g == 0.0 {
                "identical".to_string()
            } else {
                format!("{g:.0e}")
            }
        })
    };
    let gaps = format!(
        "{} → {}",
        gap(run.and_then(|r| r.first_step_gap)),
        gap(run.and_then(|r| r.weight_gap))
    );
    let wire = if e.wire_bytes > 0.0 {
        mb(e.wire_bytes as u64)
    } else {
        "–".into()
    };
    let bubble = if e.timeline.is_some() {
        format!("{:.0} %", e.bubble * 100.0)
    } else {
        "–".into()
    };
    // The busiest device's largest tensor class: what a memory lesson asks about.
    let busiest = e.busiest();
    view! {
        <tr>
            <td title=e.layout.label()>{e.layout.short_label()}</td>
            <td>{e.layout.devices()}</td>
            <td data-metric=format!("peak-{k}") data-metric-value=e.peak.to_string() data-fits=e.fits.to_string()
                class:bad=!e.fits title=format!("{:.0} % of the device", 100.0 * e.peak as f64 / budget.max(1) as f64)>{mb(e.peak)}<br/><span class="muted small">{if e.fits { "fits" } else { "does not fit" }}</span><br/><span class="muted small" data-metric=format!("largest-{k}")>{busiest.largest()}</span></td>
            <td data-metric=format!("time-{k}") data-metric-value=e.step_seconds.to_string()>{format!("{:.2} ms", e.step_seconds * 1e3)}<br/><span class="muted small">{format!("{:.2} + {:.2}", e.compute_seconds * 1e3, e.comm_seconds * 1e3)}</span></td>
            <td data-metric=format!("wire-{k}") data-metric-value=e.wire_bytes.to_string()>{wire}</td>
            <td data-metric=format!("bubble-{k}") data-metric-value=(100.0 * e.bubble).to_string()>{bubble}</td>
            <td data-metric=format!("acc-{k}") data-metric-value=run.and_then(|r| r.test_accuracy).map_or(String::new(), |a| a.to_string())>{accuracy}</td>
            <td data-metric=format!("gap1-{k}") data-metric-value=run.and_then(|r| r.first_step_gap).map_or(String::new(), |g| g.to_string())>
                <span data-metric=format!("gap-{k}") data-metric-value=run.and_then(|r| r.weight_gap).map_or(String::new(), |g| g.to_string())>{gaps}</span>
            </td>
        </tr>
    }
}

/// Data parallelism and ZeRO's three stages on the ZeRO run's workers (4 without one).
fn zero_table(r: &ParallelismRecord) -> impl IntoView {
    use lab_sims::parallelism::layout::{estimate, Layout};
    use lab_sims::parallelism::zero::Stage;
    let workers = lab_sims::parallelism::layout::zero_table_workers(r.estimates.iter().map(|e| e.layout));
    let batch = r.config.batch;
    let rows = Stage::ALL.into_iter().filter_map(|stage| {
        let e = estimate(&Layout { data: workers, zero: stage, ..Layout::PLAIN }, &r.profile, batch, &r.machine).ok()?;
        let d = e.devices[0];
        Some(view! {
            <tr>
                <td>{stage.label()}</td>
                <td>{format!("{:.2} / {:.2} / {:.2}", d.weights as f64 / 1e6, d.gradients as f64 / 1e6, d.optimizer as f64 / 1e6)}</td>
                <td data-metric=format!("zero-peak-{}", stage as u8) data-metric-value=e.peak.to_string()>{mb(e.peak)}</td>
                <td data-metric=format!("zero-wire-{}", stage as u8) data-metric-value=e.wire_bytes.to_string()>{mb(e.wire_bytes as u64)}</td>
                <td>{format!("{:.2} ms", e.step_seconds * 1e3)}</td>
            </tr>
        })
    });
    view! {
        <table class="results" data-testid="par-zero">
            <tr><th>{format!("{workers} workers")}</th><th>"weights / grads / state per device (MB)"</th><th>"peak per device"</th><th>"sent per device"</th><th>"step"</th></tr>
            {rows.collect_view()}
        </table>
    }
}

pub fn figures(
    canvases: Canvases,
    record: RwSignal<Option<ParallelismRecord>>,
    settings: RwSignal<Settings>,
) -> impl IntoView {
    view! {
        <section class="views">
            <figure class="wide">
                <canvas node_ref=canvases.memory data-testid="par-memory" data-empty="Press Run: each layout's memory per device, by tensor class, against one device's memory." width="640" height="360"></canvas>
                <figcaption>"Memory of each device in each layout, by tensor class (a pipeline's stages side by side), from the buffers the engine allocates for the network, split as each layout splits them; dashed red: one device's memory. Read it: plain keeps everything on one device; checkpointing cuts only the activations; ZeRO-3 divides weights, gradients and Adam's two state copies by the workers (and each worker's activations by its share of the batch); a pipeline gives each device only its own layers."</figcaption>
            </figure>
            <figure class="wide">
                <ul class="verdict" data-testid="par-verdict" aria-live="polite">
                    {move || record.with(|r| r.as_ref().map(|r| lab_state::parallelism::verdict(r).into_iter().map(|line| view! { <li>{line}</li> }).collect_view()))}
                </ul>
                <div class="table-scroll"><table class="results" data-testid="par-table">
                    <tr><th>"layout"</th><th>"devices"</th><th>"peak per device (largest class)"</th><th>"step (compute + comm.)"</th><th>"sent per device"</th><th>"bubble"</th><th>"test acc."</th><th>"weights vs first: step 1 → end"</th></tr>
                    {move || record.with(|r| r.as_ref().map(|r| {
                        r.estimates.iter().enumerate().map(|(i, e)| row(e, r.runs.get(i), r.machine.memory)).collect_view()
                    }))}
                </table></div>
                <figcaption>"Each layout on the simulated devices (hover a name for it in full; ckpt /k: checkpoints every k layers; pipe p×m: p stages, m micro-batches): its busiest device's peak memory, its step time modelled from its FLOPs at the devices' speed plus its messages on the link (α-β-γ, as in the cluster lab), in ms, the bytes its busiest device sends per step, the pipeline's idle share, and, trained for real on the same batches from the same weights, its accuracy on 2,000 test images and how far its weights lie from the first run's after one step and at the end (largest |w − w₀| / (1 + |w₀|)). Read it: the layouts change memory and time, not the math: after one step the weights agree to float rounding (checkpointing: bit for bit). Over hundreds of steps Adam magnifies those last-bit differences in weights whose gradients hover near zero (it divides by √v), so the runs drift apart while learning equally well."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.step data-testid="par-step" data-empty="Press Run: one device's memory through a step." width="420" height="320"></canvas>
                <figcaption>{move || format!("One device's memory through a step of the plain layout: weights, gradients, optimizer state and workspace held all step; the activations (the top band) rise as the forward keeps each layer's output and fall as the backward uses and frees them (grey line: the forward's end). Dashed: checkpointing every {} layers keeps only each segment's input and re-runs the segment's forward just before its backward — the spikes; its peak is lower, its step does about one more forward.", settings.with(|s| s.segment_length()))}</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.remat data-testid="par-remat" data-empty="Press Run: checkpointing's trade for every segment length." width="420" height="320"></canvas>
                <figcaption>{move || format!("Checkpointing's trade, one point per segment length k (checkpoints every k layers of the {} layers): the most activation bytes one device holds in a step against the forward work re-run in the backward. k = 1 keeps every layer's input, the whole net as one segment (k = all) keeps everything and re-runs nothing; near k ≈ √layers the peak is lowest for about one extra forward (Chen et al. 2016). Ringed: the chosen k.", settings.with(|s| s.layers()))}</figcaption>
            </figure>
            <figure data-testid="par-zero-figure">
                {move || record.with(|r| r.as_ref().map(zero_table))}
                <figcaption>"ZeRO's stages on the ZeRO run's workers, against plain data parallelism on the same devices: what each device keeps (weights, gradients, optimizer state, in MB) and sends per step. Stage 1 partitions the optimizer state, stage 2 the gradients too, stage 3 the weights too; stages 1 and 2 send what data parallelism sends (a reduce-scatter and an allgather), stage 3 half as much again, gathering the weights for the backward too (Rajbhandari et al. 2020)."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.pipeline data-testid="par-pipeline" data-empty="Press Run: the pipeline's stages over one step." width="420" height="320"></canvas>
                {super::animation::buttons(canvases, record)}
                <figcaption>"The pipeline's step: each stage (a device) runs its layers' forward of each micro-batch (blue, numbered) and later its backward (orange); grey is idle, the bubble. The stages run at the slowest stage's pace. With equal stages and free links the bubble is (p − 1)/(m + p − 1) of the time; 1F1B and GPipe idle alike, but 1F1B starts backwards early, so stage s holds at most p − s micro-batches' activations instead of all m. (GPipe as published recomputes each micro-batch's activations in backward, keeping only its input; here it keeps them all, to show the schedule's own cost.)"</figcaption>
            </figure>
            <figure>
                <table class="results" data-testid="par-tensor">
                    <tr><th>"split"</th><th>"devices"</th><th>"largest |split − unsplit|"</th><th>"values sent per device"</th></tr>
                    {move || record.with(|r| r.as_ref().map(|r| r.tensor.iter().enumerate().map(|(i, c)| view! {
                        <tr>
                            <td>{c.split.clone()}</td>
                            <td>{c.devices}</td>
                            <td data-metric=format!("tensor-gap-{i}") data-metric-value=c.max_gap.to_string()>{if c.max_gap == 0.0 { "0 (bit-identical)".to_string() } else { format!("{:.1e}", c.max_gap) }}</td>
                            <td data-metric=format!("tensor-sent-{i}") data-metric-value=c.sent_per_device.to_string()>{format!("{:.0}", c.sent_per_device)}</td>
                        </tr>
                    }).collect_view()))}
                </table>
                <figcaption>"Tensor (model) parallelism, executed on the first run's trained weights and 256 test images: the first block (dense → ReLU → dense) split over as many devices as the pipeline has stages. By columns each device computes some outputs whole (an allgather joins them: bit-identical); by rows each computes a partial sum of every output (an allreduce adds them: equal to float rounding); Megatron's block splits the first layer by columns and the second by the matching rows, so the ReLU runs where its columns are and one allreduce ends the block (Shoeybi et al. 2019)."</figcaption>
            </figure>
            <figure class="wide">
                <canvas node_ref=canvases.losses data-testid="par-losses" data-empty="Press Run: each layout's training loss." width="640" height="320"></canvas>
                <figcaption>"The training loss of each layout (smoothed, log scale), on the same batches from the same initial weights; the first run solid and thick, the others dashed on top of it. Read it: one curve — checkpointing, ZeRO's sharded update and a pipeline's accumulated micro-batches compute the same update as the plain step."</figcaption>
            </figure>
            {crate::lessons::lesson("par", crate::parallelism::lesson::STEPS)}
        </section>
    }
}
