//! The cluster lab's compute model counts the FLOPs the training pass really runs: for every
//! preset of every lab, `Work::of`'s FLOPs per sample times the batch equal the sum of the
//! forward and backward kernels' own FLOP counts (docs/theory.md §6.1) — no input gradient for
//! the layer whose input is the data.

use engine::data::Dataset;
use engine::train::{ModelConfig, TrainConfig, Trainer};
use lab_sims::timeline::Work;
use lab_state::cluster::ClusterLab;
use lab_state::landscape::{Data, Landscape, Network};
use lab_state::layers::{parse, PRESETS};
use lab_state::playground::Playground;
use lab_state::scaling::ScalingLab;
use lab_state::vision::VisionLab;

fn kernels_agree(what: &str, config: TrainConfig, classes: usize) {
    let raw: usize = config.data.sample_shape().iter().product();
    let rows = config.batch;
    let data = Dataset {
        x: (0..rows * raw).map(|i| (i % 7) as f32 / 7.0).collect(),
        y: (0..rows).map(|i| (i % classes) as u32).collect(),
        dim: raw,
        classes,
        targets: Vec::new(),
    };
    let t = pollster::block_on(Trainer::with_data(config, data, None, 1)).unwrap();
    let model = Work::of(&t.compiled).flops_per_sample * rows as f64;
    let kernels = t.train_pass_flops();
    assert!(
        (model - kernels).abs() <= 1e-9 * kernels,
        "{what}: model {model} FLOPs vs kernels {kernels}"
    );
}

#[test]
fn the_flop_model_is_what_the_kernels_compute() {
    for (key, _, text, _) in PRESETS {
        let v = VisionLab {
            layers: text.into(),
            batch: 4,
            ..Default::default()
        };
        kernels_agree(key, v.config().unwrap(), 10);
    }
    for network in [Network::Toy, Network::Mlp, Network::Cnn] {
        let data = if network == Network::Toy {
            Data::Toy(engine::data::toy::ToyKind::Moons)
        } else {
            Data::Mnist
        };
        let l = Landscape {
            network,
            data,
            ..Default::default()
        };
        kernels_agree(
            network.key(),
            l.to_config(8),
            if data.is_images() { 10 } else { 2 },
        );
    }
    let cluster = ClusterLab::default();
    kernels_agree("cluster", cluster.train_config(cluster.workers), 10);
    let scaling = ScalingLab::default().sweep().unwrap().base;
    kernels_agree("scaling", TrainConfig { batch: 8, ..scaling }, 2);
    let playground = Playground::default().to_config();
    let mlp = matches!(playground.model, ModelConfig::Mlp { .. });
    assert!(mlp, "the playground trains an MLP");
    kernels_agree(
        "playground",
        TrainConfig {
            batch: 8,
            ..playground
        },
        2,
    );
    // A CNN whose first layer is a pool on the data: still no input gradient below the conv.
    let v = VisionLab {
        layers: "maxpool 2, conv 4 3x3, relu, dense 10".into(),
        batch: 4,
        ..Default::default()
    };
    assert!(parse(&v.layers, 10).is_ok());
    kernels_agree("pool first", v.config().unwrap(), 10);
}
