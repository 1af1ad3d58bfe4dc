//! A training chunk costs one readback (its metrics come back with its last step), a view of the
//! model (probabilities, every layer, the weights) one more, and the numbers are the same as
//! reading each buffer on its own.

use crate::common;

use engine::data::toy::{ToyConfig, ToyKind};
use engine::train::{DataConfig, TrainConfig, Trainer};

fn config() -> TrainConfig {
    TrainConfig {
        data: DataConfig::Toy(ToyConfig {
            kind: ToyKind::Spiral,
            points: 200,
            ..ToyConfig::default()
        }),
        ..Default::default()
    }
}

#[test]
fn a_chunk_and_a_view_cost_one_readback_each() {
    let ctx = common::gpu();
    let grid = engine::heatmap_grid(16, 1.0);
    let mut t = pollster::block_on(Trainer::new(config(), Some(ctx.clone()), 256)).unwrap();
    pollster::block_on(t.train(3)).unwrap(); // warm-up
    let before = ctx.readbacks();
    let metrics = pollster::block_on(t.train(25)).unwrap();
    assert_eq!(metrics.len(), 25);
    assert_eq!(ctx.readbacks() - before, 1, "one readback for 25 steps' metrics");

    let before = ctx.readbacks();
    let (probs, layers, params) = pollster::block_on(t.snapshot(&grid, true)).unwrap();
    assert_eq!(ctx.readbacks() - before, 1, "one readback for the whole view");
    // The same numbers as reading each buffer on its own.
    let (alone, alone_layers) = pollster::block_on(t.predict_layers(&grid)).unwrap();
    assert_eq!((probs, layers), (alone, alone_layers));
    assert_eq!(params.unwrap(), pollster::block_on(t.params()).unwrap());

    // The CPU path gives the same metrics for the same seed (the chunk's last step read with it).
    let mut cpu = pollster::block_on(Trainer::new(config(), None, 256)).unwrap();
    pollster::block_on(cpu.train(3)).unwrap();
    let on_cpu = pollster::block_on(cpu.train(25)).unwrap();
    for (g, c) in metrics.iter().zip(&on_cpu) {
        assert_eq!(g.step, c.step);
        assert!(
            (g.loss - c.loss).abs() < 1e-4,
            "step {}: {} vs {}",
            g.step,
            g.loss,
            c.loss
        );
    }
}

#[test]
fn staging_buffers_are_kept_not_made_per_readback() {
    let ctx = common::gpu();
    let mut t = pollster::block_on(Trainer::new(config(), Some(ctx.clone()), 256)).unwrap();
    for _ in 0..50 {
        pollster::block_on(t.train(4)).unwrap();
        pollster::block_on(t.params()).unwrap();
    }
    let kept = ctx.staging_buffers();
    assert!(
        kept <= 4,
        "{kept} staging buffers after 100 readbacks of two sizes"
    );
}
