//! A run carried over to a trainer with new hyper-parameters (the playground's live controls):
//! carried to the same settings it equals the run never interrupted, bit for bit; carried to
//! new ones it uses them from the next step on.

use engine::ops::activation::Activation;
use engine::optim::Optimizer;
use engine::train::{ModelConfig, TrainConfig, Trainer};
use pollster::block_on;

use crate::common::spiral_config as config;

fn trainer(c: TrainConfig) -> Trainer {
    block_on(Trainer::new(c, None, 1)).expect("trainer")
}

fn losses(t: &mut Trainer, steps: usize) -> Vec<f32> {
    block_on(t.train(steps))
        .expect("train")
        .iter()
        .map(|m| m.loss)
        .collect()
}

#[test]
fn carried_to_the_same_settings_the_run_equals_the_uninterrupted_one() {
    for optimizer in Optimizer::all() {
        let c = config(optimizer, 0.02, 16);
        let mut straight = trainer(c.clone());
        let mut whole = losses(&mut straight, 30);
        whole.extend(losses(&mut straight, 30));

        let mut first = trainer(c.clone());
        let mut split = losses(&mut first, 30);
        let mut second = trainer(c);
        assert!(
            block_on(second.carry_on_from(&first)).unwrap(),
            "{optimizer:?}: same kind carries its state"
        );
        split.extend(losses(&mut second, 30));
        assert_eq!(second.step(), 60);
        assert_eq!(split, whole, "{optimizer:?}");
        assert_eq!(
            block_on(second.params()).unwrap(),
            block_on(straight.params()).unwrap(),
            "{optimizer:?}"
        );
    }
}

#[test]
fn a_new_learning_rate_applies_from_the_next_step() {
    let mut first = trainer(config(Optimizer::Sgd, 0.1, 16));
    losses(&mut first, 20);
    let before = block_on(first.params()).unwrap();
    let rate = 0.37;
    let mut retuned = trainer(config(Optimizer::Sgd, rate, 16));
    block_on(retuned.carry_on_from(&first)).unwrap();
    // The gradient of the next batch at the carried weights, from a twin carried the same way.
    let mut probe = trainer(config(Optimizer::Sgd, rate, 16));
    block_on(probe.carry_on_from(&first)).unwrap();
    let rows = probe.next_batch_rows();
    let (_, grad) = block_on(probe.loss_and_gradient(&rows)).unwrap();
    losses(&mut retuned, 1);
    assert_eq!(retuned.step(), 21);
    // Plain SGD: w ← w − η g, with the new η.
    for ((after, w), g) in block_on(retuned.params()).unwrap().iter().zip(&before).zip(&grad) {
        assert!(
            (after - (w - rate * g)).abs() <= 1e-6 + 1e-5 * w.abs(),
            "{after} vs {w} − {rate}·{g}"
        );
    }
}

#[test]
fn another_optimizer_or_batch_keeps_the_weights_and_the_step() {
    let mut first = trainer(config(Optimizer::adam(), 0.02, 16));
    losses(&mut first, 25);
    let weights = block_on(first.params()).unwrap();
    let mut next = trainer(config(Optimizer::Momentum { momentum: 0.9 }, 0.05, 40));
    assert!(
        !block_on(next.carry_on_from(&first)).unwrap(),
        "a new kind starts its averages afresh"
    );
    assert_eq!(block_on(next.params()).unwrap(), weights);
    assert_eq!(next.step(), 25);
    assert_eq!(
        block_on(next.optimizer_state()).unwrap().a,
        vec![0.0; weights.len()]
    );
    let next_losses = losses(&mut next, 5);
    assert!(next_losses.iter().all(|l| l.is_finite()));
}

#[test]
fn another_model_cannot_carry_on() {
    let mut first = trainer(config(Optimizer::Sgd, 0.1, 16));
    losses(&mut first, 2);
    let mut other = config(Optimizer::Sgd, 0.1, 16);
    other.model = ModelConfig::Mlp {
        hidden: vec![5],
        activation: Activation::Tanh,
    };
    let mut wider = trainer(other);
    assert!(block_on(wider.carry_on_from(&first)).is_err());
}
