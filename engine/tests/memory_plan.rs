//! The liveness-based memory plan (`plan::liveness`; docs/theory.md §8.4): the backward's
//! gradient buffers share memory where their lives do not overlap, against a hand count of the
//! tensors live at each point of the step. (That the shared buffers still compute the step is
//! what every gradient test checks against its independent reference, all run on this plan:
//! finite differences on both backends, burn, the fused step against the teaching kernels,
//! checkpointing bit for bit.)

use engine::kernel::BufId;
use engine::model::Layer;
use engine::ops::activation::Activation;
use engine::ops::pool::PoolKind;
use engine::plan::liveness::transient;
use engine::plan::Plan;
use engine::train::{ModelConfig, TrainConfig, Trainer};

use crate::common;

/// The memory lab's network (`state::parallelism`'s defaults): 12 hidden layers of 64 ReLU
/// units on MNIST, batch 512.
fn deep_mlp(batch: usize) -> TrainConfig {
    TrainConfig {
        model: ModelConfig::Mlp {
            hidden: vec![64; 12],
            activation: Activation::Relu,
        },
        batch,
        ..Default::default()
    }
}

fn trainer(config: TrainConfig) -> Trainer {
    let (data, images, _) = common::mnist(1024, 0);
    pollster::block_on(Trainer::with_data(
        TrainConfig { data, ..config },
        images,
        None,
        1,
    ))
    .unwrap()
}

/// Bytes of the homes the transient buffers live in.
fn transient_allocation(plan: &Plan) -> u64 {
    let allocations = plan.table.allocations();
    plan.table
        .specs
        .iter()
        .enumerate()
        .filter(|(_, s)| transient(&s.name))
        .map(|(i, _)| allocations[i] as u64 * 4)
        .sum()
}

/// At each kernel of a list, the bytes of the transient buffers live there (written before it,
/// read at or after it).
fn live_bytes(plan: &Plan, list: &[Box<dyn engine::kernel::Kernel>]) -> Vec<u64> {
    let mut lives: Vec<Option<(usize, usize)>> = vec![None; plan.table.specs.len()];
    for (i, k) in list.iter().enumerate() {
        for (_, BufId(id)) in k.bindings() {
            lives[id] = Some(lives[id].map_or((i, i), |(s, _)| (s, i)));
        }
    }
    (0..list.len())
        .map(|i| {
            plan.table
                .specs
                .iter()
                .zip(&lives)
                .filter(|(s, l)| transient(&s.name) && l.is_some_and(|(a, b)| a <= i && i <= b))
                .map(|(s, _)| s.len as u64 * 4)
                .sum()
        })
        .collect()
}

/// The memory lab's network: 24 input gradients of 512 × 64 values (every layer's but the
/// first's, whose input is the data) and the logits' 512 × 10. By hand: in either order the
/// step runs in, a layer's backward holds the gradient it reads and the one it writes, two
/// 512 × 64 tensors at most (the teaching kernels: a product's input gradient, then its ReLU's;
/// the fused step: the product's output gradient and the ReLU's input gradient it writes at
/// once). The two orders together need three such buffers: the product's input gradient lives
/// beside its output gradient in one order and beside the ReLU's in the other, and those two
/// live at once in the fused order.
#[test]
fn the_deep_mlps_gradients_take_three_buffers_where_it_held_twenty_five() {
    let t = trainer(deep_mlp(512));
    let plan = t.plan();
    let layer = 512 * 64 * 4;
    let gradients: Vec<u64> = (plan.table.specs.iter())
        .filter(|s| transient(&s.name))
        .map(|s| s.len as u64 * 4)
        .collect();
    let unshared: u64 = gradients.iter().sum();
    assert_eq!(unshared, 512 * 10 * 4 + 24 * layer, "{gradients:?}");
    let peak = |list| live_bytes(plan, list).into_iter().max().unwrap_or(0);
    assert_eq!(peak(&plan.train), 2 * layer, "the teaching order");
    assert_eq!(peak(&plan.fused), 2 * layer, "the fused order");
    assert_eq!(transient_allocation(plan), 3 * layer);
    // Nothing else shares, and the step's allocation fell by the difference.
    let own: u64 = (plan.table.specs.iter())
        .filter(|s| !transient(&s.name))
        .map(|s| s.len as u64 * 4)
        .sum();
    assert_eq!(plan.table.total_bytes(), own + 3 * layer);
    for (i, s) in plan.table.specs.iter().enumerate() {
        assert!(transient(&s.name) || s.home.0 == i, "{} shares", s.name);
    }
}

/// Buffers that live at the same kernel never share, in either order, for networks with every
/// kind of gradient: a CNN with pooling and batch norm (partial sums, arg-max), and a residual
/// network (a skip's gradient that waits for its block).
#[test]
fn no_two_buffers_live_at_once_share_memory() {
    let relu = Layer::Activation {
        kind: Activation::Relu,
    };
    let bn = Layer::BatchNorm { momentum: 0.1 };
    let net = |layers: Vec<Layer>| TrainConfig {
        model: ModelConfig::Layers { layers },
        batch: 8,
        ..Default::default()
    };
    let mut cnn_layers = vec![common::conv3x3(4, 1), bn.clone()];
    cnn_layers.extend(common::conv_relu_pool(4, 3, 1, 1, PoolKind::Max));
    cnn_layers.extend([Layer::Flatten, Layer::Dense { units: 10 }]);
    let cnn = net(cnn_layers);
    let resnet = net(vec![
        common::conv3x3(4, 2),
        relu.clone(),
        Layer::Residual {
            layers: vec![
                common::conv3x3(4, 1),
                bn.clone(),
                relu.clone(),
                common::conv3x3(4, 1),
            ],
            projection: false,
        },
        Layer::Residual {
            layers: vec![common::conv3x3(8, 2), bn, relu],
            projection: true,
        },
        Layer::Flatten,
        Layer::Dense { units: 10 },
    ]);
    for config in [deep_mlp(32), cnn, resnet] {
        let t = trainer(config);
        let plan = t.plan();
        for list in [&plan.train, &plan.fused] {
            for k in list.iter() {
                let homes: Vec<BufId> = k.bindings().iter().map(|&(_, id)| plan.table.home(id)).collect();
                let ids: Vec<BufId> = k.bindings().iter().map(|&(_, id)| id).collect();
                for (a, &ha) in homes.iter().enumerate() {
                    for (b, &hb) in homes.iter().enumerate() {
                        assert!(
                            ids[a] == ids[b] || ha != hb,
                            "{} binds two buffers of one home",
                            k.name()
                        );
                    }
                }
            }
            // At every kernel the live gradients fit their homes' memory.
            let most = live_bytes(plan, list).into_iter().max().unwrap_or(0);
            assert!(most <= transient_allocation(plan));
        }
    }
}
