//! A whole training step — forward, loss, backward and an Adam update — of an MLP and of a CNN,
//! from the same weights and batch, against burn (CPU backend `flex` with autodiff) as an
//! independent reference: loss, every gradient and every updated weight within 1e-4 relative;
//! with batch norm, layer norm and residual blocks too (burn's autodiff through its own tensor
//! ops: means, variances, a 1×1 convolution for the projection); and a transformer's gradient
//! (`transformer/`).

#[path = "../../engine/tests/common/mod.rs"]
mod common;
// The transformer's gradient, against burn's attention built of its tensor ops.
mod transformer;

use burn::tensor::activation::{log_softmax, relu};
use burn::tensor::module::{conv2d, max_pool2d};
use burn::tensor::ops::{ConvOptions, MaxPoolOptions};
use burn::tensor::{Device, Tensor, TensorData};
use common::conv_relu_pool;
use engine::data::toy::{ToyConfig, ToyKind};
use engine::data::Dataset;
use engine::model::{Compiled, Layer};
use engine::ops::activation::Activation;
use engine::ops::norm::NORM_EPS;
use engine::ops::pool::PoolKind;
use engine::optim::Optimizer;
use engine::train::{DataConfig, ModelConfig, TrainConfig, Trainer};

const LR: f32 = 0.01;
const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
// Adam's first step is w − η·g/(|g| + ε): with the usual ε = 1e-8 a gradient that is rounding noise
// around zero (seen: −5.6e-9 here, −5.7e-9 in burn) moves its weight by a random fraction of η, so
// the comparison would test the noise. ε = 1e-4 keeps the step a smooth function of the gradient.
const EPS: f32 = 1e-4;

/// The step as burn computes it: (loss, gradient of every parameter, parameters after one Adam step).
fn burn_step(compiled: &Compiled, params: &[f32], data: &Dataset, rows: usize) -> (f32, Vec<f32>, Vec<f32>) {
    let device = Device::flex().autodiff();
    let leaf = |off: usize, shape: Vec<usize>| {
        let len: usize = shape.iter().product();
        Tensor::<1>::from_data(TensorData::new(params[off..off + len].to_vec(), [len]), &device)
            .require_grad()
    };
    let [c, h, w] = compiled.layers[0].in_shape;
    let x = Tensor::<1>::from_data(
        TensorData::new(data.x[..rows * data.dim].to_vec(), [rows * data.dim]),
        &device,
    );
    let mut act4: Option<Tensor<4>> = Some(x.clone().reshape([rows, c, h, w]));
    let mut act2: Option<Tensor<2>> = None;
    let mut leaves = Vec::new(); // (offset, tensor) of every parameter leaf
                                 // Each residual block's input, by the index of its start, as (4-D, 2-D) activations.
    let mut kept: Vec<(Option<Tensor<4>>, Option<Tensor<2>>)> = vec![(None, None); compiled.layers.len()];
    for (i, l) in compiled.layers.iter().enumerate() {
        match l.layer {
            Layer::BatchNorm { .. } | Layer::LayerNorm => {
                let ch = l.in_shape[0];
                let (gt, bt) = (leaf(l.w_off, vec![ch]), leaf(l.b_off, vec![ch]));
                leaves.push((l.w_off, gt.clone()));
                leaves.push((l.b_off, bt.clone()));
                let batch = matches!(l.layer, Layer::BatchNorm { .. });
                // x̂ = (x − mean) / √(biased variance + ε) over the batch (and positions) or over
                // each sample, then γ·x̂ + β per channel.
                if let Some(x) = act4.take() {
                    let mean = |t: Tensor<4>| {
                        if batch {
                            t.mean_dim(0).mean_dim(2).mean_dim(3)
                        } else {
                            t.mean_dim(1).mean_dim(2).mean_dim(3)
                        }
                    };
                    let centred = x.clone() - mean(x);
                    let var = mean(centred.clone() * centred.clone());
                    let xh = centred / (var + NORM_EPS).sqrt();
                    act4 = Some(xh * gt.reshape([1, ch, 1, 1]) + bt.reshape([1, ch, 1, 1]));
                } else {
                    let x = act2.take().unwrap();
                    let dim = if batch { 0 } else { 1 };
                    let centred = x.clone() - x.mean_dim(dim);
                    let var = (centred.clone() * centred.clone()).mean_dim(dim);
                    let xh = centred / (var + NORM_EPS).sqrt();
                    act2 = Some(xh * gt.reshape([1, ch]) + bt.reshape([1, ch]));
                }
            }
            Layer::SkipFrom => kept[i] = (act4.clone(), act2.clone()),
            Layer::SkipAdd { from, projection } => {
                let (k4, k2) = kept[from].clone();
                let [sc, sh, sw] = l.skip_shape;
                let mut skip: Tensor<4> = k4.unwrap_or_else(|| k2.unwrap().reshape([rows, sc, sh, sw]));
                if projection {
                    let out_c = l.out_shape[0];
                    let (wt, bt) = (leaf(l.w_off, vec![l.w_len]), leaf(l.b_off, vec![out_c]));
                    leaves.push((l.w_off, wt.clone()));
                    leaves.push((l.b_off, bt.clone()));
                    let stride = sh.div_ceil(l.out_shape[1]);
                    let opts = ConvOptions::new([stride, stride], [0, 0], [1, 1], 1);
                    skip = conv2d(skip, wt.reshape([out_c, sc, 1, 1]), Some(bt), opts);
                }
                match act4.take() {
                    Some(x) => act4 = Some(x + skip),
                    None => act2 = Some(act2.take().unwrap() + skip.reshape([rows, l.out_len()])),
                }
            }
            Layer::Dense { units } => {
                let inputs = l.in_len();
                let x2 = act2
                    .take()
                    .unwrap_or_else(|| act4.take().unwrap().reshape([rows, inputs]));
                let (wt, bt) = (leaf(l.w_off, vec![units * inputs]), leaf(l.b_off, vec![units]));
                leaves.push((l.w_off, wt.clone()));
                leaves.push((l.b_off, bt.clone()));
                let wm: Tensor<2> = wt.reshape([units, inputs]);
                act2 = Some(x2.matmul(wm.transpose()) + bt.reshape([1, units]));
            }
            Layer::Conv2d {
                filters,
                kernel,
                stride,
                padding,
            } => {
                let (wt, bt) = (leaf(l.w_off, vec![l.w_len]), leaf(l.b_off, vec![filters]));
                leaves.push((l.w_off, wt.clone()));
                leaves.push((l.b_off, bt.clone()));
                let w4: Tensor<4> = wt.reshape([filters, l.in_shape[0], kernel, kernel]);
                let opts = ConvOptions::new([stride, stride], [padding, padding], [1, 1], 1);
                act4 = Some(conv2d(act4.take().unwrap(), w4, Some(bt), opts));
            }
            Layer::Pool {
                kind: PoolKind::Max,
                size,
                stride,
            } => {
                act4 = Some(max_pool2d(
                    act4.take().unwrap(),
                    MaxPoolOptions::new([size, size]).with_stride([stride, stride]),
                ));
            }
            Layer::Activation {
                kind: Activation::Relu,
            } => {
                act4 = act4.take().map(relu);
                act2 = act2.take().map(relu);
            }
            Layer::Activation {
                kind: Activation::Tanh,
            } => {
                act4 = act4.take().map(|t| t.tanh());
                act2 = act2.take().map(|t| t.tanh());
            }
            Layer::Flatten => {}
            ref other => panic!("this reference does not build {other:?}"),
        }
    }
    let logits = act2.expect("the model ends in a dense layer");
    let classes = compiled.classes();
    let mut onehot = vec![0.0f32; rows * classes];
    for r in 0..rows {
        onehot[r * classes + data.y[r] as usize] = 1.0;
    }
    let target = Tensor::<2>::from_data(TensorData::new(onehot, [rows, classes]), &device);
    let loss = (log_softmax(logits, 1) * target).sum().neg() / rows as f32;
    let loss_value = loss.clone().into_data().try_to_vec::<f32>().unwrap()[0];
    let grads = loss.backward();
    let mut g = vec![0.0f32; params.len()];
    for (off, t) in &leaves {
        let values = t
            .grad(&grads)
            .expect("every parameter has a gradient")
            .into_data()
            .try_to_vec::<f32>()
            .unwrap();
        g[*off..*off + values.len()].copy_from_slice(&values);
    }
    // Adam, step 1 (docs/theory.md §2.6), in f64 on burn's gradients.
    let (bc1, bc2) = (1.0 - BETA1 as f64, 1.0 - BETA2 as f64);
    let updated = params
        .iter()
        .zip(&g)
        .map(|(&w, &g)| {
            let (m, v) = (
                (1.0 - BETA1 as f64) * g as f64,
                (1.0 - BETA2 as f64) * (g as f64).powi(2),
            );
            (w as f64 - LR as f64 * (m / bc1) / ((v / bc2).sqrt() + EPS as f64)) as f32
        })
        .collect();
    (loss_value, g, updated)
}

/// The biases of layers just before a batch norm: batch norm removes their effect, so their
/// true gradient is 0 and both sides hold rounding noise there, which is not compared.
fn cancelled(compiled: &Compiled) -> Vec<std::ops::Range<usize>> {
    compiled
        .layers
        .windows(2)
        .filter(|w| w[0].has_params() && matches!(w[1].layer, Layer::BatchNorm { .. }))
        .map(|w| w[0].b_off..w[0].b_off + w[0].out_shape[0])
        .collect()
}

fn compare(what: &str, ours: &[f32], burn: &[f32], skip: &[std::ops::Range<usize>]) {
    let scale = burn.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    for (i, (a, b)) in ours.iter().zip(burn).enumerate() {
        if skip.iter().any(|r| r.contains(&i)) {
            continue;
        }
        assert!(
            (a - b).abs() <= 1e-4 * b.abs().max(1e-2 * scale) + 1e-7,
            "{what}[{i}]: engine {a} vs burn {b}"
        );
    }
}

fn check(config: TrainConfig, data: Dataset) {
    let rows = config.batch;
    for gpu in [false, true] {
        let ctx =
            gpu.then(|| std::rc::Rc::new(pollster::block_on(engine::gpu::GpuContext::new()).expect("GPU")));
        let mut t = pollster::block_on(Trainer::with_data(config.clone(), data.clone(), ctx, 1)).unwrap();
        let params = pollster::block_on(t.params()).unwrap();
        let batch: Vec<u32> = (0..rows as u32).collect();
        let (loss, grads) = pollster::block_on(t.loss_and_gradient(&batch)).unwrap();
        // With shuffling off and the batch the whole set, the first step uses rows 0..B too.
        pollster::block_on(t.train(1)).unwrap();
        let after = pollster::block_on(t.params()).unwrap();
        let (b_loss, b_grads, b_after) = burn_step(&t.compiled, &params, &data, rows);
        let what = format!("{} on {}", config.model_label(), t.backend_name());
        assert!(
            (loss - b_loss).abs() <= 1e-4 * b_loss.abs(),
            "{what} loss: engine {loss} vs burn {b_loss}"
        );
        let skip = cancelled(&t.compiled);
        compare(&format!("{what} gradient"), &grads, &b_grads, &skip);
        compare(&format!("{what} Adam update"), &after, &b_after, &skip);
        eprintln!(
            "{what}: loss {loss} (burn {b_loss}); {} gradients and weights agree",
            params.len()
        );
    }
}

fn base(batch: usize) -> TrainConfig {
    TrainConfig {
        optimizer: Optimizer::Adam {
            beta1: BETA1,
            beta2: BETA2,
            eps: EPS,
        },
        learning_rate: LR,
        batch,
        shuffle: false,
        ..Default::default()
    }
}

#[test]
fn mlp_step_matches_burn() {
    let toy = ToyConfig {
        kind: ToyKind::Spiral,
        points: 24,
        noise: 0.05,
        seed: 2,
        test_fraction: 0.0,
        classes: 2,
    };
    let config = TrainConfig {
        data: DataConfig::Toy(toy.clone()),
        model: ModelConfig::Mlp {
            hidden: vec![8, 6],
            activation: Activation::Tanh,
        },
        ..base(24)
    };
    check(config, toy.generate());
}

#[test]
fn cnn_step_matches_burn() {
    let (data_config, data, _) = common::mnist(8, 1);
    let config = TrainConfig {
        data: data_config,
        model: ModelConfig::Layers {
            layers: [
                conv_relu_pool(4, 5, 2, 1, PoolKind::Max).as_slice(),
                &[Layer::Flatten, Layer::Dense { units: 10 }],
            ]
            .concat(),
        },
        ..base(8)
    };
    check(config, data);
}

/// Batch norm and layer norm on images and on features, and residual blocks with identity and
/// projected skips, in one network.
#[test]
fn normalized_residual_step_matches_burn() {
    let (data_config, data, _) = common::mnist(8, 1);
    let conv = common::conv3x3;
    let relu = Layer::Activation {
        kind: Activation::Relu,
    };
    let bn = Layer::BatchNorm { momentum: 0.1 };
    let config = TrainConfig {
        data: data_config,
        model: ModelConfig::Layers {
            layers: vec![
                conv(3, 2),
                bn.clone(),
                relu.clone(),
                Layer::Residual {
                    layers: vec![conv(3, 1), bn.clone(), relu.clone(), conv(3, 1), Layer::LayerNorm],
                    projection: false,
                },
                Layer::Residual {
                    layers: vec![conv(4, 2), bn.clone()],
                    projection: true,
                },
                relu.clone(),
                Layer::Flatten,
                Layer::Dense { units: 8 },
                bn,
                Layer::Activation {
                    kind: Activation::Tanh,
                },
                Layer::Residual {
                    layers: vec![Layer::Dense { units: 8 }, Layer::LayerNorm],
                    projection: false,
                },
                Layer::Residual {
                    layers: vec![Layer::Dense { units: 5 }],
                    projection: true,
                },
                Layer::Dense { units: 10 },
            ],
        },
        ..base(8)
    };
    check(config, data);
}
