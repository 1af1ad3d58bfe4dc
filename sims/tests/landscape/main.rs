//! The loss-landscape tools: filter normalization, PCA of a trajectory, slices and interpolation
//! evaluated by the trainer.

use crate::common;

use common::conv_relu_pool;

use engine::data::toy::{ToyConfig, ToyKind};
use engine::model::{Layer, ModelSpec};
use engine::ops::activation::Activation;
use engine::ops::pool::PoolKind;
use engine::rng::Rng;
use engine::train::{DataConfig, ModelConfig, TrainConfig, Trainer};
use lab_sims::landscape::*;

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

#[test]
fn filter_normalization_gives_each_filter_the_norm_of_its_weights() {
    let spec = ModelSpec {
        input: [1, 8, 8],
        layers: [
            conv_relu_pool(3, 3, 1, 1, PoolKind::Max).as_slice(),
            &[
                Layer::Flatten,
                Layer::Dense { units: 5 },
                Layer::Activation {
                    kind: Activation::Tanh,
                },
                Layer::Dense { units: 2 },
            ],
        ]
        .concat(),
    };
    let model = spec.compile().unwrap();
    let w = spec.init(&model, 3);
    let d = filter_normalized_direction(&model, &w, 9);
    let mut filters = 0;
    for l in model.layers.iter().filter(|l| l.has_params()) {
        let n = match l.layer {
            Layer::Dense { units } => units,
            Layer::Conv2d { filters, .. } => filters,
            _ => unreachable!(),
        };
        let per = (l.b_off - l.w_off) / n;
        for f in 0..n {
            let r = l.w_off + f * per..l.w_off + (f + 1) * per;
            let (dn, wn) = (norm(&d[r.clone()]), norm(&w[r]));
            assert!((dn - wn).abs() <= 1e-5 * wn, "filter {f}: ‖d‖ {dn} vs ‖w‖ {wn}");
            filters += 1;
        }
        assert!(
            d[l.b_off..l.b_off + n].iter().all(|&b| b == 0.0),
            "biases stay zero"
        );
    }
    assert_eq!(filters, 3 + 5 + 2);
    assert_ne!(d, filter_normalized_direction(&model, &w, 10), "seeded");
}

#[test]
fn pca_directions_are_orthonormal_and_explain_at_most_everything() {
    let mut rng = Rng::new(4);
    let dim = 60;
    let fin: Vec<f32> = (0..dim).map(|_| rng.normal()).collect();
    let random: Vec<Vec<f32>> = (0..7).map(|_| (0..dim).map(|_| rng.normal()).collect()).collect();
    let p = trajectory_plane(&random, &fin);
    let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    assert!((norm(&p.d1) - 1.0).abs() < 1e-4 && (norm(&p.d2) - 1.0).abs() < 1e-4);
    assert!(dot(&p.d1, &p.d2).abs() < 1e-4, "orthogonal");
    assert!(p.explained[0] >= p.explained[1] && p.explained[1] > 0.0);
    assert!(p.explained[0] + p.explained[1] <= 1.0 + 1e-5);
    // Checkpoints in a plane: two components explain everything and give back the offsets.
    let (u, v): (Vec<f32>, Vec<f32>) = (
        (0..dim).map(|_| rng.normal()).collect(),
        (0..dim).map(|_| rng.normal()).collect(),
    );
    let planar: Vec<Vec<f32>> = (0..6)
        .map(|i| {
            let (a, b) = (i as f32 * 0.7 - 1.0, (i as f32).sin());
            fin.iter()
                .zip(&u)
                .zip(&v)
                .map(|((f, x), y)| f + a * x + b * y)
                .collect()
        })
        .collect();
    let p = trajectory_plane(&planar, &fin);
    assert!(
        (p.explained[0] + p.explained[1] - 1.0).abs() < 1e-4,
        "{:?}",
        p.explained
    );
    for (c, ck) in p.coords.iter().zip(&planar) {
        let back = offset(&fin, &p.d1, c[0], &p.d2, c[1]);
        for (a, b) in back.iter().zip(ck) {
            assert!((a - b).abs() < 1e-3, "reconstruction {a} vs {b}");
        }
    }
}

#[test]
fn the_slice_center_is_the_trained_loss_and_interpolation_ends_at_both_models() {
    let ctx = common::gpu();
    let config = TrainConfig {
        data: DataConfig::Toy(ToyConfig {
            kind: ToyKind::Moons,
            points: 200,
            noise: 0.1,
            seed: 3,
            test_fraction: 0.0,
            classes: 2,
        }),
        model: ModelConfig::Mlp {
            hidden: vec![8],
            activation: Activation::Tanh,
        },
        batch: 20,
        ..Default::default()
    };
    let (data, _) = config.data.load(|_| Err("no files".into())).unwrap();
    for gpu in [None, Some(ctx)] {
        let mut t = pollster::block_on(Trainer::with_evaluation(
            config.clone(),
            data.clone(),
            gpu,
            200,
            200,
        ))
        .unwrap();
        let w0 = pollster::block_on(t.params()).unwrap();
        pollster::block_on(t.train(100)).unwrap();
        let w1 = pollster::block_on(t.params()).unwrap();
        let trained = pollster::block_on(t.evaluate(&data)).unwrap().0;
        let d1 = filter_normalized_direction(&t.compiled, &w1, 1);
        let d2 = filter_normalized_direction(&t.compiled, &w1, 2);
        let mut rows = 0;
        let grid = pollster::block_on(slice(&mut t, &w1, &d1, &d2, 1.0, 5, &data, |r| {
            rows = r;
            async { true }
        }))
        .unwrap();
        assert_eq!((grid.len(), rows), (25, 5));
        assert!(
            (grid[12] - trained).abs() < 1e-5 * (1.0 + trained),
            "center {} vs trained {trained}",
            grid[12]
        );
        assert!(
            grid.iter().all(|l| *l >= trained * 0.5),
            "the trained point is low on its slice"
        );
        // Cancelling: the points go in calls of whole passes (256 points for this small net), so
        // a 41 × 41 slice stops after the call that finished its second row, keeping whole rows.
        let mut stop_after = 0;
        let partial = pollster::block_on(slice(&mut t, &w1, &d1, &d2, 1.0, 41, &data, |r| {
            stop_after = r;
            async move { r < 2 }
        }))
        .unwrap();
        assert!((2..41).contains(&stop_after), "stopped after {stop_after} rows");
        assert_eq!(partial.len(), 41 * stop_after, "cancelled with whole rows");
        let lines = pollster::block_on(interpolate(
            &mut t,
            (&w0, &w1),
            &[-0.5, 0.0, 1.0, 1.5],
            &[&data],
            || async {},
        ))
        .unwrap();
        let initial = pollster::block_on(loss_at(&mut t, &w0, &data)).unwrap();
        let initial_host = {
            t.set_params(&w0).unwrap();
            let l = pollster::block_on(t.evaluate(&data)).unwrap().0;
            t.set_params(&w1).unwrap();
            l
        };
        let close = |a: f32, b: f32| (a - b).abs() < 1e-5 * (1.0 + b);
        assert!(
            close(initial, initial_host),
            "device {initial} vs host {initial_host}"
        );
        assert!(
            close(lines[0][1], initial) && close(lines[0][2], trained),
            "{:?}",
            lines[0]
        );
        assert_eq!(
            pollster::block_on(t.params()).unwrap(),
            w1,
            "the trainer keeps its weights"
        );
        let s = pollster::block_on(sharpness(&mut t, &data, (0.1, 4, 5), || async {})).unwrap();
        eprintln!(
            "moons 2-8-2 on {}: loss {initial:.3} → {trained:.3}, sharpness(0.1) {s:.4}",
            t.backend_name()
        );
        assert!(s.is_finite());
    }
}

/// Many landscape points go through the network side by side, in one dispatch per kernel, each
mod points_and_pca;
