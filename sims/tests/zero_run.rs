//! ZeRO's sharded update, executed on simulated workers through the ring's reduce-scatter and
//! allgather, trains the very weights plain data parallelism does (docs/theory.md §8.2).

use engine::collectives::{Algorithm, Schedule};
use engine::data::toy::{ToyConfig, ToyKind};
use engine::optim::Optimizer;
use engine::train::{DataConfig, ModelConfig, TrainConfig, Trainer};
use lab_sims::parallelism::zero::{wire_values, Stage};
use lab_sims::parallelism::zero_run::{step, Workers};

fn config(batch: usize) -> TrainConfig {
    TrainConfig {
        data: DataConfig::Toy(ToyConfig {
            kind: ToyKind::Moons,
            points: 256,
            noise: 0.1,
            seed: 3,
            test_fraction: 0.0,
            classes: 2,
        }),
        model: ModelConfig::Mlp {
            hidden: vec![16, 16],
            activation: engine::ops::activation::Activation::Tanh,
        },
        batch,
        ..Default::default()
    }
}

#[test]
fn zero_trains_the_weights_data_parallelism_trains_bit_for_bit() {
    let workers = 4;
    for optimizer in [
        Optimizer::adam(),
        Optimizer::Momentum { momentum: 0.9 },
        Optimizer::Sgd,
    ] {
        let mut t = pollster::block_on(Trainer::new(config(8), None, 1)).unwrap();
        let start = pollster::block_on(t.params()).unwrap();
        let n = start.len();
        let (mut dp, mut zero) = (Workers::new(&start, workers), Workers::new(&start, workers));
        // The cluster lab's shared model: the ring-allreduced mean applied by the trainer's own
        // update kernels (`Trainer::apply_gradient`).
        let mut shared = pollster::block_on(Trainer::new(
            TrainConfig {
                optimizer,
                learning_rate: 0.05,
                ..config(8)
            },
            None,
            1,
        ))
        .unwrap();
        let ring = Schedule::new(Algorithm::Ring, workers, n, 1);
        for s in 1..=6u32 {
            // Each worker's gradient on its own 8 rows, at the (shared) current weights.
            let mut grads = Vec::new();
            for _ in 0..workers {
                let rows = t.next_batch_rows();
                t.set_params(&dp.weights[0]).unwrap();
                grads.push(pollster::block_on(t.loss_and_gradient(&rows)).unwrap().1);
            }
            let mut summed = grads.clone();
            ring.execute(&mut summed);
            let mean: Vec<f32> = summed[0].iter().map(|g| g * (1.0 / workers as f32)).collect();
            shared.apply_gradient(&mean).unwrap();
            step(&mut dp, grads.clone(), optimizer, 0.05, s, false).unwrap();
            step(&mut zero, grads, optimizer, 0.05, s, true).unwrap();
            let trained = pollster::block_on(shared.params()).unwrap();
            assert!(
                trained
                    .iter()
                    .zip(&dp.weights[0])
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{optimizer:?} step {s}: the trainer's update differs from the workers'"
            );
            for i in 0..workers {
                assert_eq!(dp.weights[i], dp.weights[0], "data parallel workers agree");
                assert!(
                    zero.weights[i]
                        .iter()
                        .zip(&dp.weights[0])
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{optimizer:?} step {s}: worker {i}'s ZeRO weights differ"
                );
            }
        }
        assert_ne!(dp.weights[0], start, "the weights moved");
        // ZeRO's state: each worker touched only its chunk; data parallelism's, all of it.
        let touched = |v: &[f32]| v.iter().filter(|x| **x != 0.0).count();
        if optimizer != Optimizer::Sgd {
            assert!(touched(&zero.state_a[0]) <= n.div_ceil(workers), "{optimizer:?}");
            assert!(touched(&dp.state_a[0]) > n / 2, "{optimizer:?}");
        }
        // On the wire: the same as the allreduce, 2(N − 1)/N values per parameter and step
        // (a ring's chunks are near-equal, so per worker on average).
        let want = 6.0 * wire_values(n as f64, workers, Stage::Gradients, 1);
        assert!(
            (zero.sent - want).abs() < 1e-6 && (dp.sent - want).abs() < 1e-6,
            "{} {} {want}",
            zero.sent,
            dp.sent
        );
    }
}

#[test]
fn lars_is_refused_with_a_reason() {
    let mut w = Workers::new(&[1.0; 8], 2);
    let lars = Optimizer::Lars {
        momentum: 0.9,
        weight_decay: 0.0,
    };
    let e = step(&mut w, vec![vec![0.1; 8]; 2], lars, 0.1, 1, true).unwrap_err();
    assert!(e.to_string().contains("norms"), "{e}");
}
