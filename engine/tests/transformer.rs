//! The transformer (`engine::transformer`): its parameter layout by hand, its gradient against
//! central finite differences of its own loss (two blocks, every kind of parameter), its steps on
//! the GPU against the CPU path, and that it learns modular addition's training pairs.

use engine::data::sequences::modular_addition;
use engine::data::Dataset;
use engine::optim::Optimizer;
use engine::transformer::{Layout, TinyTransformer, TransformerConfig};
use pollster::block_on;

use crate::common::{assert_close, gpu};

fn small(blocks: usize, batch: usize) -> TransformerConfig {
    TransformerConfig {
        vocab: 7,
        seq: 3,
        width: 8,
        heads: 2,
        hidden: 16,
        blocks,
        batch,
        layer_norm: false,
    }
}

/// `rows` random sequences of `seq` tokens below `vocab`, labels too.
fn random_set(c: &TransformerConfig, rows: usize, seed: u64) -> Dataset {
    let mut r = engine::rng::Rng::new(seed);
    Dataset {
        x: (0..rows * c.seq).map(|_| r.below(c.vocab) as f32).collect(),
        y: (0..rows).map(|_| r.below(c.vocab) as u32).collect(),
        dim: c.seq,
        classes: c.vocab,
        targets: Vec::new(),
    }
}

#[test]
fn the_layout_with_layer_norm_by_hand() {
    // Each block gains γ, β before the attention and before the MLP (4 × 8 after b_2), and the
    // model a final γ, β: 2 × (536 + 32) + 80 + 16.
    let l = Layout::new(&TransformerConfig {
        layer_norm: true,
        ..small(2, 4)
    });
    let b = &l.blocks[0];
    assert_eq!(
        (b.b2, b.ln1, b.ln2, l.blocks[1].qkv),
        (608, Some(616), Some(632), 648)
    );
    assert_eq!((l.ln_f, l.n), (Some(1216), 1232));
    // They start as the identity and are not decayed.
    let p = engine::transformer::initial_params(&small_norm(), &l, 1);
    assert!(p[616..624].iter().all(|g| *g == 1.0) && p[624..632].iter().all(|b| *b == 0.0));
    assert!(p[1216..1224].iter().all(|g| *g == 1.0));
    let slices = engine::transformer::decayed_slices(&l);
    assert!(
        slices
            .iter()
            .all(|(o, n)| o + n <= 616 || (*o >= 648 && o + n <= 1184)),
        "{slices:?}"
    );
}

fn small_norm() -> TransformerConfig {
    TransformerConfig {
        layer_norm: true,
        ..small(2, 4)
    }
}

#[test]
fn the_layout_by_hand() {
    // Table 7 × 8, positions 3 × 8; a block: W_qkv 24 × 8, W_out 8 × 8, W_1 16 × 8, b_1 16,
    // W_2 8 × 16, b_2 8 = 536.
    let l = Layout::new(&small(2, 4));
    assert_eq!(
        (l.table, l.pos, l.blocks[0].qkv, l.blocks[1].qkv, l.n),
        (0, 56, 80, 616, 1152)
    );
    assert_eq!(
        (
            l.blocks[0].out,
            l.blocks[0].w1,
            l.blocks[0].b1,
            l.blocks[0].w2,
            l.blocks[0].b2
        ),
        (272, 336, 464, 480, 608)
    );
}

#[test]
fn the_gradient_is_the_losss_derivative() {
    for layer_norm in [false, true] {
        gradient_check(TransformerConfig {
            layer_norm,
            ..small(2, 4)
        });
    }
}

/// Every fifth parameter's gradient against central differences of the loss, on one batch.
fn gradient_check(c: TransformerConfig) {
    let set = random_set(&c, 4, 3);
    let rows = [0, 1, 2, 3];
    let mut t = block_on(TinyTransformer::new(c, Optimizer::Sgd, 5, None)).unwrap();
    let p = block_on(t.params()).unwrap();
    let (_, grads) = block_on(t.loss_and_gradient(&set, &rows)).unwrap();
    let eps = 1e-2;
    let mut checked = 0;
    for i in (0..p.len()).step_by(5) {
        let mut at = |x: f32| {
            let mut q = p.clone();
            q[i] = x;
            t.set_params(&q);
            f64::from(block_on(t.loss_and_gradient(&set, &rows)).unwrap().0)
        };
        let fd = (at(p[i] + eps) - at(p[i] - eps)) / (2.0 * f64::from(eps));
        let g = f64::from(grads[i]);
        assert!(
            (fd - g).abs() < 2e-3 + 0.02 * g.abs(),
            "parameter {i} (layer norm {}): {g} against {fd}",
            c.layer_norm
        );
        checked += 1;
    }
    assert!(checked > 200);
}

#[test]
fn a_step_on_the_gpu_is_the_cpu_paths() {
    for layer_norm in [false, true] {
        let c = TransformerConfig {
            layer_norm,
            ..small(1, 8)
        };
        gpu_against_cpu(c);
    }
}

fn gpu_against_cpu(c: TransformerConfig) {
    let set = random_set(&c, 32, 4);
    let on = |gpu| {
        let mut t = block_on(TinyTransformer::new(c, Optimizer::adam(), 6, gpu)).unwrap();
        let losses = block_on(t.train(&set, 3, 0.01)).unwrap();
        (losses, block_on(t.params()).unwrap())
    };
    let (gpu_losses, gpu_params) = on(Some(gpu()));
    let (cpu_losses, cpu_params) = on(None);
    assert_close("losses", &gpu_losses, &cpu_losses, 1e-5, 1e-4);
    assert_close("params", &gpu_params, &cpu_params, 1e-5, 1e-3);
}

#[test]
fn it_learns_modular_additions_training_pairs() {
    // p = 7, every pair trained on; the same at two seeds.
    let (train, _) = modular_addition(7, 1.0, 1);
    for seed in [1, 2] {
        let c = TransformerConfig {
            vocab: 8,
            seq: 3,
            width: 32,
            heads: 2,
            hidden: 64,
            blocks: 1,
            batch: 32,
            layer_norm: false,
        };
        let mut t = block_on(TinyTransformer::new(c, Optimizer::adam(), seed, None)).unwrap();
        let (before, _) = block_on(t.evaluate(&train)).unwrap();
        block_on(t.train(&train, 400, 0.01)).unwrap();
        let (after, loss) = block_on(t.evaluate(&train)).unwrap();
        eprintln!("seed {seed}: training accuracy {before} → {after}, loss {loss}");
        assert!(after >= 0.95, "seed {seed}: {after}");
    }
}

#[test]
fn adamw_decays_the_embeddings_and_weights_and_not_the_biases() {
    // By hand for two blocks: the table and positions (0..80), each block's W_qkv, W_out, W_1
    // (80..464) and W_2 (480..608); b_1 and b_2 are left out.
    let layout = Layout::new(&small(2, 4));
    assert_eq!(
        engine::transformer::decayed_slices(&layout),
        [(0, 80), (80, 384), (480, 128), (616, 384), (1016, 128)]
    );
    // One step from the same start on one repeated sequence, so the step's batch is known: the
    // first Adam step moves each parameter by lr·g/(|g| + ε), and AdamW also by lr·λ·w where it
    // decays.
    let c = small(2, 4);
    let set = random_set(&c, 1, 9);
    let (lr, decay) = (0.01, 0.5);
    let adamw = Optimizer::AdamW {
        beta1: 0.9,
        beta2: 0.98,
        eps: 1e-8,
        weight_decay: decay,
    };
    for gpu in [None, Some(gpu())] {
        let mut t = block_on(TinyTransformer::new(c, adamw, 3, gpu)).unwrap();
        let start = block_on(t.params()).unwrap();
        let (_, g) = block_on(t.loss_and_gradient(&set, &[0; 4])).unwrap();
        block_on(t.train(&set, 1, lr)).unwrap();
        let after = block_on(t.params()).unwrap();
        let decayed = |i: usize| {
            engine::transformer::decayed_slices(&layout)
                .iter()
                .any(|(o, n)| (*o..o + n).contains(&i))
        };
        let expected: Vec<f32> = (0..start.len())
            .map(|i| {
                let w = start[i] - lr * g[i] / (g[i].abs() + 1e-8);
                if decayed(i) {
                    w - lr * decay * start[i]
                } else {
                    w
                }
            })
            .collect();
        assert_close("AdamW's first step", &after, &expected, 1e-5, 1e-4);
        assert!(
            start[464..480].iter().zip(&after[464..480]).any(|(a, b)| a != b),
            "b_1 moves by its gradient"
        );
    }
}
