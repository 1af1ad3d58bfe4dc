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
    let c = small(2, 4);
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
            "parameter {i}: {g} against {fd}"
        );
        checked += 1;
    }
    assert!(checked > 200);
}

#[test]
fn a_step_on_the_gpu_is_the_cpu_paths() {
    let c = small(1, 8);
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
        };
        let mut t = block_on(TinyTransformer::new(c, Optimizer::adam(), seed, None)).unwrap();
        let (before, _) = block_on(t.evaluate(&train)).unwrap();
        block_on(t.train(&train, 400, 0.01)).unwrap();
        let (after, loss) = block_on(t.evaluate(&train)).unwrap();
        eprintln!("seed {seed}: training accuracy {before} → {after}, loss {loss}");
        assert!(after >= 0.95, "seed {seed}: {after}");
    }
}
