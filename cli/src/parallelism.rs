//! `lab pipeline`, `lab zero`, `lab memory` and `lab layouts`: the parallelism models' figures as
//! JSON, for checking by hand.

use anyhow::Context;
use lab_sims::parallelism::pipeline::{bubble_closed_form, Costs, Schedule, Timeline};
use lab_sims::parallelism::zero::{per_device, wire_values, ClassBytes, Stage};

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ScheduleArg {
    Gpipe,
    #[value(name = "1f1b")]
    OneFOneB,
}

#[derive(clap::Args)]
pub struct PipelineArgs {
    #[arg(long, value_enum, default_value = "1f1b")]
    schedule: ScheduleArg,
    /// Stages (devices), p
    #[arg(long, default_value_t = 4, value_name = "P")]
    stages: usize,
    /// Micro-batches per batch, m
    #[arg(long, default_value_t = 8, value_name = "M")]
    micro: usize,
    /// Seconds of one micro-batch's forward through one stage
    #[arg(long, default_value_t = 1.0)]
    forward: f64,
    /// Seconds of its backward (about twice the forward)
    #[arg(long, default_value_t = 2.0)]
    backward: f64,
    /// Seconds to hand activations or their gradient to the next stage
    #[arg(long, default_value_t = 0.0)]
    transfer: f64,
    /// Print every slot of the timeline too
    #[arg(long)]
    slots: bool,
}

pub fn pipeline(a: &PipelineArgs) -> anyhow::Result<()> {
    if a.stages == 0 || a.micro == 0 {
        anyhow::bail!("--stages and --micro must be at least 1");
    }
    let schedule = match a.schedule {
        ScheduleArg::Gpipe => Schedule::GPipe,
        ScheduleArg::OneFOneB => Schedule::OneFOneB,
    };
    let costs = Costs {
        forward: a.forward,
        backward: a.backward,
        transfer: a.transfer,
    };
    let t = Timeline::simulate(schedule, a.stages, a.micro, costs);
    let peaks: Vec<usize> = (0..a.stages).map(|s| t.peak_in_flight(s)).collect();
    let mut out = serde_json::json!({
        "schedule": schedule.key(), "stages": a.stages, "micro": a.micro,
        "makespan": t.makespan, "bubble": t.bubble_fraction(),
        "bubbleClosedForm": bubble_closed_form(a.stages, a.micro),
        "peakInFlightPerStage": peaks,
    });
    if a.slots {
        out["slots"] = serde_json::to_value(&t.slots)?;
    }
    println!("{out}");
    Ok(())
}

#[derive(clap::Args)]
pub struct ZeroArgs {
    /// Parameters, Ψ
    #[arg(long, default_value_t = 7.5e9)]
    params: f64,
    /// Data-parallel workers, N
    #[arg(long, default_value_t = 64)]
    workers: usize,
    /// fp32 with this many optimizer copies (SGD 0, momentum 1, Adam 2) instead of the paper's
    /// mixed-precision Adam (2 + 2 + 12 bytes)
    #[arg(long, value_name = "COPIES")]
    fp32: Option<usize>,
}

pub fn zero(a: &ZeroArgs) -> anyhow::Result<()> {
    let bytes = a.fp32.map_or(ClassBytes::mixed_adam(), ClassBytes::fp32);
    for stage in Stage::ALL {
        let d = per_device(bytes, a.params, a.workers, stage);
        println!(
            "{}",
            serde_json::json!({
                "stage": stage as u8, "label": stage.label(),
                "weightsBytes": d.weights, "gradientsBytes": d.gradients, "optimizerBytes": d.optimizer,
                "totalBytes": d.total(), "sentValuesPerDevice": wire_values(a.params, a.workers, stage, 1),
            })
        );
    }
    Ok(())
}

#[derive(clap::Args)]
pub struct MemoryArgs {
    #[arg(long, value_name = "FILE.json")]
    config: Option<std::path::PathBuf>,
}

/// A config's training step by tensor class (from the engine's buffers), then the checkpointing
/// trade for every segment length: bytes kept and at the peak, FLOPs re-run.
pub fn memory(a: &MemoryArgs, data: &std::path::Path) -> anyhow::Result<()> {
    use lab_sims::parallelism::memory::step_memory;
    let config = crate::io::config_of(a.config.as_deref())?;
    let (mut t, _) = crate::io::build(data, config.clone(), None, 0)?;
    let m = step_memory(t.plan(), &config.optimizer);
    println!(
        "{}",
        serde_json::json!({
            "weightsBytes": m.weights, "gradientsBytes": m.gradients, "optimizerBytes": m.optimizer,
            "activationBytes": m.activation_bytes(), "workspaceBytes": m.workspace,
            "stepBytes": m.step_bytes(), "activations": m.activations,
        })
    );
    let rows = t.next_batch_rows();
    let n = t.compiled.layers.len();
    for segment in 1..=n {
        match pollster::block_on(t.checkpointed_loss_and_gradient(&rows, segment)) {
            Ok((_, _, r)) => println!(
                "{}",
                serde_json::json!({
                    "segment": segment, "checkpoints": r.checkpoints, "keptBytes": r.kept_bytes,
                    "peakBytes": r.peak_bytes, "allBytes": r.all_bytes,
                    "recomputeFlops": r.recompute_flops, "forwardFlops": r.forward_flops,
                })
            ),
            Err(e) => {
                // The memory above stands; only the trade is unavailable.
                eprintln!("lab: no checkpointing figures: {e}");
                break;
            }
        }
    }
    Ok(())
}

#[derive(clap::Args)]
pub struct LayoutsArgs {
    #[arg(long, value_name = "FILE.json")]
    config: Option<std::path::PathBuf>,
    /// Memory of one device, MB (10^6 bytes)
    #[arg(long, default_value_t = 8.0)]
    memory: f64,
    /// One device's speed, GFLOP/s
    #[arg(long, default_value_t = 100.0)]
    gflops: f64,
    /// The link between devices (nvlink, pcie, infiniband, 100gbe, 10gbe, wifi)
    #[arg(long, default_value = "pcie")]
    link: String,
    /// Also list every layout of at most this many devices that fits, fastest first
    #[arg(long, value_name = "DEVICES")]
    search: Option<usize>,
}

/// Plain, checkpointed (every √n layers), ZeRO-3 on 4 and a 4-stage pipeline of 8 micro-batches,
/// one JSON line each; then the search's layouts.
pub fn layouts(a: &LayoutsArgs, data: &std::path::Path) -> anyhow::Result<()> {
    use lab_sims::parallelism::layout::{estimate, search, Estimate, Layout, Machine};
    use lab_sims::parallelism::profile::Profile;
    let config = crate::io::config_of(a.config.as_deref())?;
    let (t, _) = crate::io::build(data, config.clone(), None, 0)?;
    let profile = Profile::of(&t);
    let machine = Machine {
        memory: (a.memory * 1e6) as u64,
        flops_per_second: a.gflops * 1e9,
        step_overhead: lab_sims::cluster::DEFAULT_STEP_OVERHEAD,
        link: engine::collectives::Link::preset(&a.link)
            .with_context(|| format!("--link {}: not a preset", a.link))?,
    };
    let k = ((profile.layers.len() as f64).sqrt().round() as usize).max(1);
    let print = |e: &Estimate| {
        println!(
            "{}",
            serde_json::json!({
                "layout": e.layout.label(), "devices": e.layout.devices(), "peakBytes": e.peak, "fits": e.fits,
                "perDevice": e.devices, "stepSeconds": e.step_seconds, "computeSeconds": e.compute_seconds,
                "commSeconds": e.comm_seconds, "wireBytes": e.wire_bytes, "bubble": e.bubble,
                "recomputeFlops": e.recompute_flops,
            })
        )
    };
    let corners = [
        Layout::PLAIN,
        Layout {
            segment: Some(k),
            ..Layout::PLAIN
        },
        Layout {
            data: 4,
            zero: lab_sims::parallelism::zero::Stage::Weights,
            ..Layout::PLAIN
        },
        Layout {
            stages: 4,
            micro: 8,
            ..Layout::PLAIN
        },
    ];
    for l in corners {
        match estimate(&l, &profile, config.batch, &machine) {
            Ok(e) => print(&e),
            Err(why) => eprintln!("lab: {}: {why}", l.label()),
        }
    }
    if let Some(d) = a.search {
        for e in search(&profile, config.batch, &machine, d) {
            print(&e);
        }
    }
    Ok(())
}
