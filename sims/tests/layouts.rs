//! The layouts of docs/theory.md §8.6 against the engine's own buffers and against the plain
//! run: the per-sample profile scales to any batch exactly as the plans built at that batch,
//! checkpointing's kept bytes and re-run FLOPs equal the checkpointed pass's, and checkpointed,
//! ZeRO-3, pipelined and hybrid training end on the plain run's weights.

use engine::model::Layer;
use engine::ops::activation::Activation;
use engine::ops::pool::PoolKind;
use engine::optim::Optimizer;
use engine::train::{ModelConfig, TrainConfig, Trainer};
use lab_sims::parallelism::layout::{checkpointed, estimate, search, step_curve, Layout, Machine};
use lab_sims::parallelism::layout_run::{train, weight_gap, Devices};
use lab_sims::parallelism::memory::step_memory;
use lab_sims::parallelism::pipeline::Schedule;
use lab_sims::parallelism::profile::Profile;
use lab_sims::parallelism::zero::Stage;

use crate::common;

fn mlp(batch: usize) -> TrainConfig {
    let (data, _, _) = common::mnist(512, 200);
    TrainConfig {
        data,
        model: ModelConfig::Mlp {
            hidden: vec![32; 6],
            activation: Activation::Relu,
        },
        optimizer: Optimizer::Adam {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
        },
        learning_rate: 1e-3,
        batch,
        ..Default::default()
    }
}

fn mlp_ln(batch: usize) -> TrainConfig {
    let layers = vec![
        Layer::Dense { units: 24 },
        Layer::LayerNorm,
        Layer::Activation {
            kind: Activation::Relu,
        },
        Layer::Dropout { rate: 0.2 },
        Layer::Dense { units: 10 },
    ];
    TrainConfig {
        model: ModelConfig::Layers { layers },
        ..mlp(batch)
    }
}

fn cnn(batch: usize) -> TrainConfig {
    let mut layers = common::conv_relu_pool(4, 3, 1, 1, PoolKind::Max).to_vec();
    layers.insert(1, Layer::BatchNorm { momentum: 0.1 });
    layers.extend([Layer::Flatten, Layer::Dense { units: 10 }]);
    TrainConfig {
        model: ModelConfig::Layers { layers },
        optimizer: Optimizer::Momentum { momentum: 0.9 },
        ..mlp(batch)
    }
}

fn trainer(config: TrainConfig) -> Trainer {
    trainer_on(config, None)
}

fn trainer_on(config: TrainConfig, gpu: Option<std::rc::Rc<engine::gpu::GpuContext>>) -> Trainer {
    let (_, data, _) = common::mnist(512, 200);
    pollster::block_on(Trainer::with_data(config, data, gpu, 1)).unwrap()
}

#[test]
fn the_profile_scales_to_the_plans_built_at_each_batch() {
    // A convolution's split-K partial sums are sized by its geometry: the CNN's profile is exact
    // at the batch it was read at, the MLP's (with layer norm and dropout) at every batch.
    for (make, batches) in [
        (mlp_ln as fn(usize) -> TrainConfig, &[8, 16, 64][..]),
        (cnn, &[64][..]),
    ] {
        let profile = Profile::of(&trainer(make(64)));
        for &rows in batches {
            let t = trainer(make(rows));
            let m = step_memory(t.plan(), &t.config.optimizer);
            let p = profile.at(rows);
            assert_eq!(
                (p.weights, p.gradients, p.optimizer, p.activations, p.workspace),
                (
                    m.weights,
                    m.gradients,
                    m.optimizer,
                    m.activation_bytes(),
                    m.workspace
                ),
                "batch {rows}"
            );
        }
        assert_eq!(profile.params(), trainer(make(8)).compiled.n_params);
    }
}

#[test]
fn checkpointing_keeps_and_reruns_what_the_checkpointed_pass_does() {
    for make in [mlp, cnn] {
        let mut t = trainer(make(32));
        let profile = Profile::of(&t);
        let rows = t.next_batch_rows();
        for k in 1..=profile.layers.len() {
            let (_, _, report) = pollster::block_on(t.checkpointed_loss_and_gradient(&rows, k)).unwrap();
            let (kept, flops) = checkpointed(&profile, k, 32);
            assert_eq!(kept, report.kept_bytes, "segment {k}");
            assert!((flops - report.recompute_flops).abs() <= 1e-6 * report.recompute_flops.max(1.0));
            let curve = step_curve(&profile, 32, Some(k));
            // The forward ends holding what the pass kept; the backward frees it all; the peak is
            // at most the pass's bound (kept + the largest segment re-run).
            let end_of_forward = curve[profile.layers.len()].1;
            assert_eq!(end_of_forward, report.kept_bytes, "segment {k}");
            assert_eq!(curve.last().unwrap().1, 0);
            assert!(curve.iter().all(|p| p.1 <= report.peak_bytes));
        }
    }
}

fn machine(memory: u64) -> Machine {
    Machine {
        memory,
        flops_per_second: 1e12,
        step_overhead: 2e-4,
        link: engine::collectives::Link::preset("nvlink").unwrap(),
    }
}

#[test]
fn the_estimates_split_the_plain_steps_bytes() {
    let profile = Profile::of(&trainer(mlp(64)));
    let m = machine(u64::MAX);
    let plain = estimate(&Layout::PLAIN, &profile, 64, &m).unwrap();
    assert_eq!(plain.peak, profile.at(64).total());
    let zero = Layout {
        data: 4,
        zero: Stage::Weights,
        ..Layout::PLAIN
    };
    let z = estimate(&zero, &profile, 64, &m).unwrap();
    let params = profile.params() as u64 * 4;
    assert_eq!(z.devices[0].optimizer, (2 * params).div_ceil(4));
    assert_eq!(z.devices[0].activations, profile.at(16).activations);
    let pipe = Layout {
        stages: 4,
        micro: 8,
        ..Layout::PLAIN
    };
    let p = estimate(&pipe, &profile, 64, &m).unwrap();
    let covered: usize = p.stage_layers.iter().map(|r| r.len()).sum();
    assert_eq!(covered, profile.layers.len());
    assert_eq!(p.devices.iter().map(|d| d.gradients).sum::<u64>(), params);
    let gpipe = estimate(
        &Layout {
            schedule: Schedule::GPipe,
            ..pipe
        },
        &profile,
        64,
        &m,
    )
    .unwrap();
    // GPipe keeps all 8 micro-batches on the first stage; 1F1B at most 4.
    assert!(gpipe.devices[0].activations > p.devices[0].activations);
    let found = search(&profile, 64, &machine(plain.peak / 2), 8);
    assert!(!found.is_empty() && found.iter().all(|e| e.fits && e.layout.devices() <= 8));
    assert!(found.windows(2).all(|w| w[0].step_seconds <= w[1].step_seconds));
}

#[test]
fn every_layout_trains_to_the_plain_runs_weights() {
    layouts_match_plain(None);
}

/// The same on the GPU (lavapipe here): the micro-batches' gradients read back from the device,
/// checkpointing's re-runs dispatched between its backward kernels.
#[test]
fn every_layout_trains_to_the_plain_runs_weights_on_the_gpu() {
    layouts_match_plain(Some(common::gpu()));
}

fn layouts_match_plain(gpu: Option<std::rc::Rc<engine::gpu::GpuContext>>) {
    let batch = 64;
    let layouts = [
        Layout::PLAIN,
        Layout {
            segment: Some(3),
            ..Layout::PLAIN
        },
        Layout {
            data: 4,
            zero: Stage::Weights,
            ..Layout::PLAIN
        },
        Layout {
            stages: 4,
            micro: 8,
            ..Layout::PLAIN
        },
        Layout {
            data: 2,
            stages: 2,
            micro: 4,
            ..Layout::PLAIN
        },
    ];
    let mut reference: Option<Vec<f32>> = None;
    for layout in layouts {
        let mut whole = trainer_on(mlp(batch), gpu.clone());
        let mut part = layout
            .micro_rows(batch)
            .filter(|&r| r < batch)
            .map(|r| trainer_on(mlp(r), gpu.clone()));
        let devices = Devices {
            whole: &mut whole,
            part: part.as_mut(),
        };
        let (run, weights, _) =
            pollster::block_on(train(layout.label(), layout, devices, 6, None, |_| async {
                true
            }))
            .unwrap();
        assert_eq!(run.losses.len(), 6);
        let Some(r) = &reference else {
            reference = Some(weights);
            continue;
        };
        let gap = weight_gap(&weights, r);
        eprintln!("{}: gap {gap:e}", layout.label());
        if layout.segment.is_some() {
            assert_eq!(gap, 0.0, "checkpointing is bit-identical");
        } else {
            assert!(gap < 1e-5, "{}: gap {gap}", layout.label());
        }
    }
}
