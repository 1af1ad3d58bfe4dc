//! `lab attention`: trains the small transformer (`engine::transformer`) on a generated task and
//! prints a JSON line every `--every` steps: the step, the training loss, training and test
//! accuracy, and the weights' norm — on modular addition with weight decay, the grokking curves
//! (Power et al. 2022); on copying, the accuracy an induction head brings.

use engine::data::sequences::{copying, modular_addition};
use engine::optim::Optimizer;
use engine::transformer::{TinyTransformer, TransformerConfig};

use crate::io::gpu_of;
use crate::Backend;

#[derive(clap::Args)]
pub struct AttentionArgs {
    /// `modular` (a + b mod p) or `copy` (repeat a sequence)
    #[arg(long, default_value = "modular")]
    task: String,
    /// The modulus of `modular`; the vocabulary of `copy`
    #[arg(long, default_value_t = 97)]
    p: usize,
    /// Pairs trained on (`modular`); the rest are the test set
    #[arg(long, default_value_t = 0.3)]
    train_fraction: f32,
    /// Tokens copied (`copy`)
    #[arg(long, default_value_t = 8)]
    len: usize,
    #[arg(long, default_value_t = 10_000)]
    steps: usize,
    #[arg(long, default_value_t = 500)]
    every: usize,
    #[arg(long, default_value_t = 1e-3)]
    lr: f32,
    /// AdamW's weight decay (0: Adam)
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
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, value_enum, default_value = "gpu")]
    backend: Backend,
}

pub fn attention(a: &AttentionArgs) -> anyhow::Result<()> {
    let (train, test, vocab, seq) = match a.task.as_str() {
        "modular" => {
            let (train, test) = modular_addition(a.p, a.train_fraction, a.seed);
            (train, test, a.p + 1, 3)
        }
        "copy" => (
            copying(a.p, a.len, 4096, a.seed),
            copying(a.p, a.len, 512, a.seed + 1),
            a.p + 1,
            2 * a.len,
        ),
        other => anyhow::bail!("unknown task {other:?}: modular or copy"),
    };
    let config = TransformerConfig {
        vocab,
        seq,
        width: a.width,
        heads: a.heads,
        hidden: a.hidden,
        blocks: a.blocks,
        batch: a.batch,
    };
    let optimizer = if a.weight_decay > 0.0 {
        Optimizer::AdamW {
            beta1: 0.9,
            beta2: 0.98,
            eps: 1e-8,
            weight_decay: a.weight_decay,
        }
    } else {
        Optimizer::adam()
    };
    let mut t = pollster::block_on(TinyTransformer::new(
        config,
        optimizer,
        a.seed,
        gpu_of(a.backend)?,
    ))?;
    let mut done = 0;
    while done < a.steps {
        let steps = a.every.min(a.steps - done).max(1);
        let losses = pollster::block_on(t.train(&train, steps, a.lr))?;
        done += steps;
        let (train_accuracy, _) = pollster::block_on(t.evaluate(&train))?;
        let (test_accuracy, test_loss) = pollster::block_on(t.evaluate(&test))?;
        let norm = pollster::block_on(t.params())?
            .iter()
            .map(|p| f64::from(*p).powi(2))
            .sum::<f64>()
            .sqrt();
        let mut line = serde_json::json!({
            "step": done, "train_loss": losses.last(), "train_accuracy": train_accuracy,
            "test_accuracy": test_accuracy, "test_loss": test_loss, "weight_norm": norm,
        });
        if a.task == "copy" {
            line["answer_attention"] = answer_attention(&t, test.len(), a.len)?.into();
        }
        println!("{line}");
    }
    Ok(())
}

/// On copying, how much the last block's heads attend from the last position to where the
/// answer first stood (the copy's next token, at position `shown` of the original): the mean
/// over the last batch `evaluate` ran of the largest weight any head puts there. A head that
/// looks the answer up puts nearly all its weight there.
fn answer_attention(t: &TinyTransformer, rows: usize, len: usize) -> anyhow::Result<f64> {
    let c = t.config;
    let (b, seq) = (c.batch, c.seq);
    // `evaluate`'s last batch: from the last multiple of the batch on, the last row repeated.
    let start = (rows - 1) / b * b;
    let heads: Vec<Vec<f32>> = (0..c.heads)
        .map(|h| pollster::block_on(t.attention(c.blocks - 1, h)))
        .collect::<Result<_, _>>()?;
    let mut total = 0.0;
    for i in 0..b {
        // `copying` shows sample s's first s mod len tokens of the copy.
        let shown = (start + i).min(rows - 1) % len;
        let at = |h: &Vec<f32>| f64::from(h[i * seq * seq + (seq - 1) * seq + shown]);
        total += heads.iter().map(at).fold(0.0, f64::max);
    }
    Ok(total / b as f64)
}
