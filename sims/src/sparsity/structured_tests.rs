use super::*;
use engine::model::ModelSpec;
use engine::ops::activation::Activation;

fn mlp(hidden: &[usize]) -> Compiled {
    ModelSpec::mlp(4, hidden, 2, Activation::Relu).compile().unwrap()
}

fn w2() -> (ModelConfig, Compiled) {
    let config = engine::workloads::w2();
    let compiled = config.spec(10).compile().unwrap();
    (config.model, compiled)
}

#[test]
fn widths_keep_the_share_of_weights_asked() {
    // 4-10-2: 40 + 20 = 60 weights. Half: 30 = 6·h → h = 5.
    assert_eq!(kept_widths(&mlp(&[10]), 0.5), Some(vec![4, 5, 2]));
    // 87.5 %: 7.5 weights → h = 1 (6 weights).
    assert_eq!(kept_widths(&mlp(&[10]), 0.875), Some(vec![4, 1, 2]));
    assert_eq!(weights_of(&[784, 100, 10]), 79_400);
    assert_eq!(sparsity_of(&mlp(&[10]), &[4, 5, 2]), Some(0.5));
}

#[test]
fn the_cnn_is_read_as_channels_by_hand() {
    let (model, c) = w2();
    // conv 5×5 1→8 (200 weights), conv 5×5 8→16 (3,200), dense 16·4·4 → 10 (2,560).
    assert_eq!(widths_of(&c), Some(vec![1, 8, 16, 10]));
    let layers = weighted_layers(&c).unwrap();
    assert_eq!(layers.iter().map(|l| l.inner).collect::<Vec<_>>(), [25, 25, 16]);
    // Half the filters of each conv: 4·25 + 8·4·25 + 10·8·16 = 100 + 800 + 1,280 = 2,180 of 5,960.
    assert_eq!(weights_with(&layers, &[1, 4, 8, 10]), 2_180);
    // 60 % pruned leaves 2,384: q = 0.531 (4 and 8 filters) fits, q = 0.532 (4 and 9 filters:
    // 100 + 900 + 1,440 = 2,440) does not.
    assert_eq!(kept_widths(&c, 0.6), Some(vec![1, 4, 8, 10]));
    let small = smaller_model(&model, &[1, 4, 8, 10]).unwrap();
    let small = engine::train::TrainConfig {
        model: small,
        ..engine::workloads::w2()
    };
    assert_eq!(
        small
            .spec(10)
            .compile()
            .unwrap()
            .layers
            .iter()
            .map(|l| l.w_len)
            .sum::<usize>(),
        2_180
    );
    assert_eq!(describe(2, &[1, 4, 8, 10]), "conv 4, conv 8");
    assert_eq!(describe(0, &[4, 5, 3, 2]), "5-3");
}

#[test]
fn a_filter_goes_with_its_bias_and_the_next_layers_channel() {
    let (_, c) = w2();
    let mut p: Vec<f32> = (0..c.n_params).map(|i| 1.0 + (i % 7) as f32).collect();
    let conv1 = weighted_layers(&c).unwrap()[0];
    // Filter 3 of the first conv the weakest.
    p[conv1.w_off + 3 * 25..conv1.w_off + 4 * 25].fill(0.01);
    let (mask, kept) = unit_mask(&p, &c, &[1, 7, 16, 10]).unwrap();
    assert_eq!(kept[0], [0, 1, 2, 4, 5, 6, 7]);
    assert_eq!(kept[1], (0..16).collect::<Vec<_>>());
    // Its 25 weights, its bias, and channel 3 of each of the second conv's 16 filters (25 each).
    assert_eq!(mask.iter().filter(|m| **m == 0.0).count(), 25 + 1 + 16 * 25);
    let conv2 = weighted_layers(&c).unwrap()[1];
    assert_eq!(
        mask[conv2.w_off + 5 * 200 + 3 * 25..conv2.w_off + 5 * 200 + 4 * 25],
        [0.0; 25]
    );
    assert_eq!(mask[conv2.w_off + 5 * 200 + 4 * 25], 1.0);
    let small = compact(&p, &c, &kept).unwrap();
    assert_eq!(small.len(), c.n_params - (25 + 1 + 16 * 25));
}

#[test]
fn the_mask_removes_whole_neurons_and_the_compact_network_holds_the_rest() {
    let c = mlp(&[3]);
    // Layer 1: W 3×4 at 0, b at 12; layer 2: W 2×3 at 15, b at 21.
    let mut p: Vec<f32> = (0..c.n_params).map(|i| i as f32 / 10.0).collect();
    // Neuron 1 of 3 the weakest: its incoming row zero.
    p[4..8].fill(0.0);
    let (mask, kept) = unit_mask(&p, &c, &[4, 2, 2]).unwrap();
    assert_eq!(kept, vec![vec![0, 2]]);
    let pruned: Vec<usize> = (0..c.n_params).filter(|i| mask[*i] == 0.0).collect();
    // Row 1 (4..8), its bias (13), and column 1 of the next layer (16, 19).
    assert_eq!(pruned, vec![4, 5, 6, 7, 13, 16, 19]);
    let small = compact(&p, &c, &kept).unwrap();
    assert_eq!(small.len(), mlp(&[2]).n_params);
    // Rows 0 and 2, biases 0 and 2, then the output's columns 0 and 2 and its biases.
    assert_eq!(small[..4], p[0..4]);
    assert_eq!(small[4..8], p[8..12]);
    assert_eq!(small[8..10], [p[12], p[14]]);
    assert_eq!(small[10..14], [p[15], p[17], p[18], p[20]]);
    assert_eq!(small[14..], p[21..23]);
}
