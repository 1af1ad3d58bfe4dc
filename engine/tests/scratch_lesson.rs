use engine::ops::activation::Activation;
use engine::optim::Optimizer;
use engine::parallelism::layout::{estimate, Layout, Machine, search};
use engine::parallelism::layout_run::{train, Devices};
use engine::parallelism::profile::Profile;
use engine::parallelism::zero::Stage;
use engine::train::{ModelConfig, TrainConfig, Trainer};
mod common;
#[test]
fn lesson() {
    let (data, set, test) = common::mnist(10000, 2000);
    let hidden: usize = std::env::var("H").unwrap().parse().unwrap();
    let width: usize = std::env::var("W").unwrap().parse().unwrap();
    let batch: usize = std::env::var("B").unwrap().parse().unwrap();
    let steps: usize = std::env::var("S").unwrap().parse().unwrap();
    let cfg = |b| TrainConfig { data: data.clone(), model: ModelConfig::Mlp { hidden: vec![width; hidden], activation: Activation::Relu },
        optimizer: Optimizer::Adam { beta1: 0.9, beta2: 0.999, eps: 1e-8 }, learning_rate: 1e-3, batch: b, shuffle: true, ..Default::default() };
    let mk = |b| pollster::block_on(Trainer::with_data(cfg(b), set.clone(), None, 1)).unwrap();
    let profile = Profile::of(&mk(batch));
    let m = Machine { memory: u64::MAX, flops_per_second: 1e11, step_overhead: 2e-4, link: engine::collectives::Link::preset("pcie").unwrap() };
    let k = (profile.layers.len() as f64).sqrt().round() as usize;
    let layouts = [Layout::PLAIN, Layout { segment: Some(k), ..Layout::PLAIN }, Layout { data: 4, zero: Stage::Weights, ..Layout::PLAIN }, Layout { stages: 4, micro: 8, ..Layout::PLAIN }];
    for l in layouts {
        let e = estimate(&l, &profile, batch, &m).unwrap();
        eprintln!("{}: peak {} MB {:?} step {:.3} ms wire {} bubble {:.2}", l.label(), e.peak as f64 / 1e6, e.devices.iter().map(|d| (d.total() as f64/1e6, d.activations as f64 /1e6)).collect::<Vec<_>>(), e.step_seconds*1e3, e.wire_bytes, e.bubble);
    }
    for l in layouts {
        let t0 = std::time::Instant::now();
        let mut whole = mk(batch);
        let mut part = l.micro_rows(batch).filter(|&r| r < batch).map(|r| mk(r));
        let (run, _) = pollster::block_on(train(l.label(), l, Devices { whole: &mut whole, part: part.as_mut() }, steps, test.as_ref(), |_| async { true })).unwrap();
        eprintln!("{}: acc {:?} loss {} in {:.1}s", l.label(), run.test_accuracy, run.losses.last().unwrap(), t0.elapsed().as_secs_f64());
    }
    let plain = estimate(&Layout::PLAIN, &profile, batch, &m).unwrap().peak;
    let found = search(&profile, batch, &Machine { memory: plain * 3 / 4, ..m }, 8);
    for e in found.iter().take(8) { eprintln!("  {} {:.3} ms {} MB", e.layout.label(), e.step_seconds*1e3, e.peak as f64/1e6); }
}
