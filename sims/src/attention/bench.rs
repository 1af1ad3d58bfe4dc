//! The attention lab's model as a benchmark workload, T1 (README, "Benchmarks"): timed like the
//! /bench page's W1 and W2 (samples per second over every step but the first), and written out
//! whole — configuration, initial weights and every step's batch — so that another library
//! (bench/peers: jax-js) trains the same model from the same start on the same batches, and its
//! loss curve can be held to the lab's step by step.

use std::rc::Rc;

use serde::Serialize;
use serde_json::{json, Value};

use super::AttentionPlan;
use engine::error::Error;
use engine::gpu::GpuContext;
use engine::transformer::{batch_tokens, decayed_slices, Layout, TinyTransformer, TransformerConfig};

/// The workload's name on the /bench page and in the comparison's tables.
pub const T1: &str = "T1";

/// What a timed run measured (the fields the peers' page publishes too).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TransformerBench {
    pub workload: String,
    pub backend: String,
    pub steps: usize,
    pub batch: usize,
    pub first_step_ms: f64,
    /// Sequences per second over every step but the first (pipelines compiled, buffers warm).
    pub samples_per_sec_steady: f64,
    pub samples_per_sec_total: f64,
    /// The step's products at the steady rate, counted by [`step_flops`].
    pub gflops: f64,
    pub final_loss: f32,
    pub losses: Vec<f32>,
    pub test_accuracy: f32,
}

/// The floating-point operations of one training step per sequence, counting a multiply-add as
/// two and the backward pass as twice the forward (the convention of Kaplan et al. 2020): per
/// block the Q/K/V, output and two MLP products over every position and the scores and weighted
/// values over every query–key square (the kernel computes the masked half too), then the head
/// at the last position.
pub fn step_flops(c: &TransformerConfig) -> f64 {
    let (t, d, f, v) = (c.seq as f64, c.width as f64, c.hidden as f64, c.vocab as f64);
    let block = 2.0 * t * d * (3.0 * d + d + 2.0 * f) + 2.0 * 2.0 * t * t * d;
    3.0 * (c.blocks as f64 * block + 2.0 * d * v)
}

/// The weight decay a benchmark run trains at: the plan's first.
fn decay(plan: &AttentionPlan) -> f32 {
    plan.decays.first().copied().unwrap_or(0.0)
}

/// Trains `plan`'s model for `steps` steps (at least 2) on the GPU `gpu` gives, else the CPU
/// path, timing the first step apart, then measures the test accuracy. `now_ms` is the clock.
pub async fn run(
    plan: &AttentionPlan,
    gpu: Option<Rc<GpuContext>>,
    steps: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<TransformerBench, Error> {
    let steps = steps.max(2);
    let (train, test) = plan.data();
    let optimizer = AttentionPlan::optimizer(decay(plan));
    let mut model = TinyTransformer::new(plan.config(), optimizer, plan.seed, gpu).await?;
    let t0 = now_ms();
    let mut losses = model.train(&train, 1, plan.lr).await?;
    let t1 = now_ms();
    losses.extend(model.train(&train, steps - 1, plan.lr).await?);
    let t2 = now_ms();
    let (test_accuracy, _) = model.evaluate(&test).await?;
    let batch = plan.batch as f64;
    let steady = (steps - 1) as f64 * batch / ((t2 - t1) / 1000.0);
    Ok(TransformerBench {
        workload: T1.into(),
        backend: model.backend_name(),
        steps,
        batch: plan.batch,
        first_step_ms: t1 - t0,
        samples_per_sec_steady: steady,
        samples_per_sec_total: steps as f64 * batch / ((t2 - t0) / 1000.0),
        gflops: step_flops(&plan.config()) * steady / 1e9,
        final_loss: losses.last().copied().unwrap_or(f32::NAN),
        losses,
        test_accuracy,
    })
}

/// The tensors in the flat parameters: (name — `table`, `pos`, `block0.qkv`, …, `lnf.g` —,
/// offset, shape, whether AdamW decays it).
fn tensors(c: &TransformerConfig) -> Vec<(String, usize, Vec<usize>, bool)> {
    let layout = Layout::new(c);
    let decayed = decayed_slices(&layout);
    let is_decayed = |off: usize| decayed.iter().any(|(o, len)| off >= *o && off < o + len);
    let (d, f) = (c.width, c.hidden);
    let mut out = vec![
        ("table".to_string(), layout.table, vec![c.vocab, d]),
        ("pos".to_string(), layout.pos, vec![c.seq, d]),
    ];
    for (i, b) in layout.blocks.iter().enumerate() {
        let mut add =
            |name: &str, off: usize, shape: Vec<usize>| out.push((format!("block{i}.{name}"), off, shape));
        add("qkv", b.qkv, vec![3 * d, d]);
        add("out", b.out, vec![d, d]);
        add("w1", b.w1, vec![f, d]);
        add("b1", b.b1, vec![f]);
        add("w2", b.w2, vec![d, f]);
        add("b2", b.b2, vec![d]);
        for (name, gamma) in [("ln1", b.ln1), ("ln2", b.ln2)] {
            if let Some(g) = gamma {
                add(&format!("{name}.g"), g, vec![d]);
                add(&format!("{name}.b"), g + d, vec![d]);
            }
        }
    }
    if let Some(g) = layout.ln_f {
        out.push(("lnf.g".into(), g, vec![d]));
        out.push(("lnf.b".into(), g + d, vec![d]));
    }
    out.into_iter()
        .map(|(name, off, shape)| (name, off, shape, is_decayed(off)))
        .collect()
}

/// The workload as another library needs it: the model (tensors named and placed in the flat
/// `params`, W as [outputs, inputs]), the optimizer, the initial weights, and the first `steps`
/// batches [`run`] trains on, as token ids (`seq` a sequence) and answers.
pub async fn export(plan: &AttentionPlan, steps: usize) -> Result<Value, Error> {
    let c = plan.config();
    let (train, _) = plan.data();
    let decay = decay(plan);
    let mut model = TinyTransformer::new(c, AttentionPlan::optimizer(decay), plan.seed, None).await?;
    let (ids, labels): (Vec<_>, Vec<_>) = (0..steps)
        .map(|_| batch_tokens(&train, &model.next_rows(train.len())))
        .unzip();
    let (beta1, beta2, eps) = AttentionPlan::ADAM;
    let tensors: Vec<Value> = tensors(&c)
        .into_iter()
        .map(|(name, offset, shape, decayed)| json!({ "name": name, "offset": offset, "shape": shape, "decayed": decayed }))
        .collect();
    Ok(json!({
        "workload": T1,
        "config": {
            "vocab": c.vocab, "seq": c.seq, "width": c.width, "heads": c.heads, "hidden": c.hidden,
            "blocks": c.blocks, "batch": c.batch, "layerNorm": c.layer_norm,
        },
        "optimizer": { "lr": plan.lr, "beta1": beta1, "beta2": beta2, "eps": eps, "weightDecay": decay },
        "tensors": tensors,
        "params": model.params().await?,
        "ids": ids,
        "labels": labels,
    }))
}
