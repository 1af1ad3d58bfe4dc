//! `lab pipeline` and `lab zero`: the parallelism models' figures as JSON, for checking by hand.

use engine::parallelism::pipeline::{bubble_closed_form, Costs, Schedule, Timeline};
use engine::parallelism::zero::{per_device, wire_values, ClassBytes, Stage};

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

pub fn pipeline(a: &PipelineArgs) -> Result<(), String> {
    if a.stages == 0 || a.micro == 0 {
        return Err("--stages and --micro must be at least 1".into());
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
        out["slots"] = serde_json::to_value(&t.slots).map_err(|e| e.to_string())?;
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

pub fn zero(a: &ZeroArgs) -> Result<(), String> {
    let bytes = a.fp32.map_or(ClassBytes::mixed_adam(), ClassBytes::fp32);
    for stage in Stage::ALL {
        let d = per_device(bytes, a.params, a.workers, stage);
        println!(
            "{}",
            serde_json::json!({
                "stage": stage as u8, "label": stage.label(),
                "weightsBytes": d.weights, "gradientsBytes": d.gradients, "optimizerBytes": d.optimizer,
                "totalBytes": d.total(), "sentValuesPerDevice": wire_values(a.params, a.workers, stage),
            })
        );
    }
    Ok(())
}
