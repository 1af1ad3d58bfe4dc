//! The step's graph (`Plan::graph`) held to hand counts: W1's every edge, phase, product and
//! fused kernel written out below from the network on paper (784-128-10, batch 64), its FLOPs
//! as the forward's plus the backward's two products a layer (less the first layer's input
//! gradient, which nothing needs), and W2's convolutions' backward reading what their forward
//! kept.

use engine::plan::{Phase, StepGraph};
use engine::workloads::{w1, w2};
use pollster::block_on;

fn graph_of(config: engine::train::TrainConfig) -> StepGraph {
    let data = engine::data::Dataset {
        x: vec![0.5; 100 * 784],
        y: vec![1; 100],
        dim: 784,
        classes: 10,
        targets: vec![],
    };
    let t = block_on(engine::train::Trainer::with_data(config, data, None, 1)).unwrap();
    t.plan().graph(&t.compiled)
}

fn edges(g: &StepGraph) -> Vec<(usize, usize, &str)> {
    g.edges
        .iter()
        .map(|e| (e.from, e.to, e.tensor.as_str()))
        .collect()
}

#[test]
fn w1s_graph_is_the_network_on_paper() {
    let g = graph_of(w1());
    use Phase::*;
    let phases: Vec<Phase> = g.nodes.iter().map(|n| n.phase).collect();
    let want = [
        Batch, Forward, Forward, Forward, Forward, Forward, Loss, Loss, Backward, Backward, Backward,
        Backward, Backward, Backward, Update,
    ];
    assert_eq!(phases, want);
    // x = gather; h = relu(x·W1ᵀ + b1); z = h·W2ᵀ + b2; softmax cross-entropy; its mean.
    // Backward: dW2 = dzᵀ·h, db2, dh = dz·W2, relu', dW1 = dhᵀ·x, db1; then the update.
    let mut want = vec![
        (0, 1, "batch.x"),
        (1, 2, "train.act1"),
        (2, 3, "train.act1"),
        (3, 4, "train.act2"),
        (4, 5, "train.act3"),
        (5, 6, "train.act3"),
        (0, 6, "batch.y"),
        (6, 7, "batch.loss"),
        (6, 7, "batch.correct"),
        (6, 8, "batch.d_logits"),
        (3, 8, "train.act2"),
        (6, 9, "batch.d_logits"),
        (6, 10, "batch.d_logits"),
        (2, 11, "train.act1"),
        (10, 11, "train.d_act2"),
        (11, 12, "train.d_act1"),
        (0, 12, "batch.x"),
        (11, 13, "train.d_act1"),
        (8, 14, "grads"),
        (9, 14, "grads"),
        (12, 14, "grads"),
        (13, 14, "grads"),
    ];
    let mut got = edges(&g);
    want.sort();
    got.sort();
    assert_eq!(got, want);
    let products: Vec<(usize, &str)> = g
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| Some((i, n.product.as_deref()?)))
        .collect();
    assert_eq!(
        products,
        [
            (1, "64×784 · 784×128"),
            (4, "64×128 · 128×10"),
            (8, "10×64 · 64×128"),
            (10, "64×10 · 10×128"),
            (12, "128×64 · 64×784"),
        ]
    );
    assert_eq!(g.nodes[3].writes[0].dims(), "64×128");
    assert_eq!(g.nodes[6].reads[0].dims(), "64×10");
    // Fused: gather+matmul+bias+ReLU, matmul+bias, the loss and its mean, dW2+db2 | dh+ReLU',
    // dW1+db1, the update.
    let fused: Vec<usize> = g.nodes.iter().map(|n| n.fused_kernel).collect();
    assert_eq!(fused, [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 5]);
    let flops = |p: Phase| {
        g.nodes
            .iter()
            .filter(|n| n.phase == p)
            .map(|n| n.flops)
            .sum::<f64>()
    };
    let (layer1, layer2) = (2.0 * 64.0 * 784.0 * 128.0, 2.0 * 64.0 * 128.0 * 10.0);
    assert_eq!(flops(Forward), layer1 + layer2);
    assert_eq!(flops(Backward), layer1 + 2.0 * layer2);
}

#[test]
fn w2s_backward_reads_what_its_forward_kept() {
    let g = graph_of(w2());
    let e = edges(&g);
    let find = |op: &str, layer: usize| {
        g.nodes
            .iter()
            .position(|n| n.op == op && n.layer == Some(layer) && n.phase == Phase::Backward)
            .unwrap_or_else(|| panic!("{op} of layer {layer}"))
    };
    let forward = |op: &str, layer: usize| {
        g.nodes
            .iter()
            .position(|n| n.op == op && n.layer == Some(layer) && n.phase == Phase::Forward)
            .unwrap_or_else(|| panic!("{op} of layer {layer}"))
    };
    // Each convolution's weight gradient reads its forward's input; each pool's backward its
    // arg-max; each ReLU's backward its forward's input.
    assert!(e.contains(&(0, find("conv2d:backward_weight", 0), "batch.x")));
    assert!(e.contains(&(
        forward("pool:max_forward", 2),
        find("conv2d:backward_weight", 3),
        "train.act3"
    )));
    assert!(e.contains(&(
        forward("pool:max_forward", 2),
        find("pool:max_backward_tiled", 2),
        "train.argmax3"
    )));
    assert!(e.contains(&(
        forward("pool:max_forward", 5),
        find("pool:max_backward_tiled", 5),
        "train.argmax6"
    )));
    assert!(e.contains(&(
        forward("conv2d:forward", 0),
        find("activation:backward", 1),
        "train.act1"
    )));
    let conv = &g.nodes[forward("conv2d:forward", 3)];
    assert_eq!(conv.product.as_deref(), Some("64×8×12×12 ⊛ 16×8×5×5"));
    assert_eq!(conv.writes[0].dims(), "64×16×8×8");
    // The first layer has no input gradient: nothing below it has weights.
    assert!(!g
        .nodes
        .iter()
        .any(|n| n.op == "conv2d:backward_input" && n.layer == Some(0)));
    // The fused list covers the teaching kernels in order.
    assert!(g.nodes.windows(2).all(|w| w[1].fused_kernel >= w[0].fused_kernel));
}
