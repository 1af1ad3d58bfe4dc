//! `lab attention`: trains the small transformer (`engine::transformer`) on a generated task and
//! prints a JSON line every `--every` steps: the step, the training loss, training and test
//! accuracy, and the weights' norm — on modular addition with weight decay, the grokking curves
//! (Power et al. 2022); on copying and sorting, also how much the last block attends to where
//! the answer stood. It runs the attention lab's own loop (`lab_sims::attention::run`).

use lab_sims::attention::run::run;
use lab_sims::attention::{AttentionPlan, Task};

use crate::io::gpu_of;
use crate::Backend;

#[derive(clap::Args)]
pub struct AttentionArgs {
    /// `modular` (a + b mod p), `copy` (repeat a sequence) or `sort` (write it out sorted)
    #[arg(long, default_value = "modular")]
    task: String,
    /// The modulus of `modular`; the vocabulary of `copy` and `sort`
    #[arg(long, default_value_t = 97)]
    p: usize,
    /// Pairs trained on (`modular`); the rest are the test set
    #[arg(long, default_value_t = 0.3)]
    train_fraction: f32,
    /// Tokens copied or sorted
    #[arg(long, default_value_t = 8)]
    len: usize,
    #[arg(long, default_value_t = 10_000)]
    steps: usize,
    #[arg(long, default_value_t = 500)]
    every: usize,
    #[arg(long, default_value_t = 1e-3)]
    lr: f32,
    /// AdamW's weight decay (0: Adam; both with β₂ 0.98)
    #[arg(long, default_value_t = 1.0)]
    weight_decay: f32,
    #[arg(long, default_value_t = 128)]
    width: usize,
    #[arg(long, default_value_t = 4)]
    heads: usize,
    #[arg(long, default_value_t = 512)]
    hidden: usize,
    #[arg(long, default_value_t = 1)]
    blocks: usize,
    #[arg(long, default_value_t = 512)]
    batch: usize,
    /// Pre-norm blocks (a layer norm before the attention and the MLP, one before the head)
    #[arg(long)]
    layer_norm: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, value_enum, default_value = "gpu")]
    backend: Backend,
}

pub fn attention(a: &AttentionArgs) -> anyhow::Result<()> {
    let task = match a.task.as_str() {
        "modular" => Task::Modular,
        "copy" => Task::Copy,
        "sort" => Task::Sort,
        other => anyhow::bail!("unknown task {other:?}: modular, copy or sort"),
    };
    let plan = AttentionPlan {
        task,
        p: a.p,
        train_fraction: a.train_fraction,
        len: a.len,
        width: a.width,
        heads: a.heads,
        hidden: a.hidden,
        blocks: a.blocks,
        batch: a.batch,
        layer_norm: a.layer_norm,
        steps: a.steps,
        every: a.every,
        lr: a.lr,
        decays: vec![a.weight_decay],
        seed: a.seed,
        example: 0,
    };
    let (train, test) = plan.data();
    // The lab's own loop: a line per measurement after the first step (the page also draws step 0).
    let run = pollster::block_on(run(
        &plan,
        a.weight_decay,
        gpu_of(a.backend)?,
        (&train, &test),
        |r| {
            let p = r.last().expect("a measurement");
            if p.step > 0 {
                let mut line = serde_json::json!({
                    "step": p.step, "train_loss": p.train_loss, "train_accuracy": p.train_accuracy,
                    "test_accuracy": p.test_accuracy, "test_loss": p.test_loss, "weight_norm": p.weight_norm,
                });
                if let Some(answer) = p.answer_attention {
                    line["answer_attention"] = answer.into();
                }
                println!("{line}");
            }
            async { true }
        },
    ))?;
    if let Some(why) = run.stopped {
        anyhow::bail!("stopped: {why}");
    }
    Ok(())
}
