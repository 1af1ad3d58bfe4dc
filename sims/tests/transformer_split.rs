//! Split run equals unsplit run for the transformer's heads over tensor-parallel devices
//! (docs/theory.md §12.6): with every block's heads and MLP units split over 1, 2 and 4 devices,
//! the forward pass reaches the engine's own loss, the backward its own gradient, and training
//! with the split gradient (Adam on each shard where it lies) the engine's own weights, with and
//! without layer norm.

use engine::data::Dataset;
use engine::optim::Optimizer;
use engine::rng::Rng;
use engine::transformer::{TinyTransformer, TransformerConfig};
use lab_sims::attention::split_check::{check, device_choices, CHECK_STEPS};
use lab_sims::attention::tensor_parallel::{sent_per_block, split_loss};
use lab_sims::attention::tensor_parallel_backward::split_gradient;
use lab_sims::attention::{AttentionPlan, Task};

fn config(layer_norm: bool) -> TransformerConfig {
    TransformerConfig {
        vocab: 9,
        seq: 5,
        width: 16,
        heads: 4,
        hidden: 32,
        blocks: 2,
        batch: 3,
        layer_norm,
    }
}

/// A batch of random tokens and answers, and the same as a set of `batch` rows.
fn batch(c: &TransformerConfig, seed: u64) -> (Vec<u32>, Vec<u32>, Dataset) {
    let mut r = Rng::new(seed);
    let ids: Vec<u32> = (0..c.batch * c.seq).map(|_| r.below(c.vocab) as u32).collect();
    let labels: Vec<u32> = (0..c.batch).map(|_| r.below(c.vocab) as u32).collect();
    let set = Dataset {
        x: ids.iter().map(|t| *t as f32).collect(),
        y: labels.clone(),
        dim: c.seq,
        classes: c.vocab,
        targets: Vec::new(),
    };
    (ids, labels, set)
}

fn model(c: TransformerConfig, seed: u64) -> TinyTransformer {
    pollster::block_on(TinyTransformer::new(c, Optimizer::adam(), seed, None)).unwrap()
}

#[test]
fn heads_split_over_tensor_parallel_devices_reach_the_engines_loss_and_gradient() {
    for layer_norm in [false, true] {
        let c = config(layer_norm);
        let (ids, labels, set) = batch(&c, 11);
        let mut t = model(c, 3);
        let params = pollster::block_on(t.params()).unwrap();
        let (loss, grads) = pollster::block_on(t.loss_and_gradient(&set, &[0, 1, 2])).unwrap();
        let largest = grads.iter().fold(0.0f32, |m, g| m.max(g.abs()));
        for devices in [1, 2, 4] {
            let split = split_loss(&c, &t.layout, &params, (&ids, &labels), devices);
            let (split_again, split_grads) = split_gradient(&c, &t.layout, &params, (&ids, &labels), devices);
            let what = format!("layer norm {layer_norm}, {devices} devices");
            assert!(
                (split - loss).abs() <= 1e-5 * loss,
                "{what}: {split} against the engine's {loss}"
            );
            assert_eq!(split, split_again, "{what}");
            let worst = (split_grads.iter().zip(&grads))
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            assert!(
                worst <= 2e-6 * largest,
                "{what}: a gradient {worst} away (largest {largest})"
            );
        }
    }
}

fn small_plan(layer_norm: bool) -> AttentionPlan {
    AttentionPlan {
        task: Task::Copy,
        p: 6,
        train_fraction: 0.5,
        len: 3,
        width: 16,
        heads: 4,
        hidden: 32,
        blocks: 2,
        batch: 8,
        layer_norm,
        steps: CHECK_STEPS,
        every: 1,
        lr: 0.01,
        decays: vec![0.0],
        seed: 7,
        example: 0,
    }
}

#[test]
fn training_with_the_heads_split_reaches_the_engines_weights() {
    for (layer_norm, devices) in [(false, 2), (true, 4)] {
        let plan = small_plan(layer_norm);
        assert_eq!(device_choices(&plan), [2, 4]);
        let check = pollster::block_on(check(&plan, devices, |_| async { true }))
            .unwrap()
            .unwrap();
        let (first, last) = (check.losses[0].0, check.losses[CHECK_STEPS - 1].0);
        assert!(last < first, "it trained: {first} → {last}");
        assert!(
            check.loss_gap() <= 1e-5 * first,
            "layer norm {layer_norm}: losses {:?}",
            check.losses
        );
        assert!(
            check.weight_gap <= 1e-5,
            "layer norm {layer_norm}: weights {} apart",
            check.weight_gap
        );
        // Two blocks, forward and backward, two allreduces each of s·b·d = 6·8·16 floats, of
        // which a ring sends 2(t − 1)/t.
        let t = devices as f64;
        assert_eq!(
            check.sent_per_step,
            2.0 * 2.0 * 2.0 * 2.0 * (t - 1.0) / t * 768.0 * 4.0
        );
    }
    let plan = AttentionPlan {
        heads: 3,
        ..small_plan(false)
    };
    assert!(
        pollster::block_on(check(&plan, 2, |_| async { true })).is_err(),
        "2 devices do not split 3 heads"
    );
    // By hand: s·b·d = 5·3·16 = 240 floats an allreduce; over 4 devices a ring sends 3/2 of it
    // per allreduce, two a block: 720 floats, 2,880 bytes; over 1 device nothing.
    assert_eq!(
        (
            sent_per_block(&config(false), 4),
            sent_per_block(&config(false), 1)
        ),
        (2880.0, 0.0)
    );
}
