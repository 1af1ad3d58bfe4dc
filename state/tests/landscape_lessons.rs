//! The landscape lab's lesson with its defaults (moons, 2-8-8-2 tanh, SGD 0.1; batch 4 against
//! 256, each trained to training loss 0.05, the lab's own loop `train_to_loss`): both reach the
//! loss, and the large batch's minimum is the sharper (Keskar et al. 2017; docs/theory.md §4.4).

use engine::landscape::{sharpness, train_to_loss};
use engine::train::{DataConfig, Trainer};
use lab_state::landscape::{sharpness_verdict, Landscape};

#[test]
fn at_equal_training_loss_the_large_batch_is_sharper() {
    let lab = Landscape::default();
    let mut measured = Vec::new();
    for batch in lab.batches() {
        let config = lab.to_config(batch);
        let DataConfig::Toy(toy) = &config.data else {
            panic!("the default landscape trains on 2-D data")
        };
        let (train, test) = toy.generate().split(toy.test_fraction, toy.seed);
        let rows = train.len().min(test.len());
        let eval = train.head(rows);
        let mut t =
            pollster::block_on(Trainer::with_evaluation(config, train.clone(), None, 1, rows)).unwrap();
        let budget = lab.epochs * train.len() / batch;
        let run = pollster::block_on(train_to_loss(&mut t, &eval, lab.target, budget, |_| async {
            true
        }))
        .unwrap();
        assert!(
            run.reached,
            "batch {batch}: loss {} after {} steps",
            run.loss, run.steps
        );

        assert!(run.checkpoints.len() >= 2 && run.checkpoints.len() <= 62);
        let sharp = pollster::block_on(sharpness(&mut t, &eval, 0.1, 4, 7)).unwrap();
        eprintln!(
            "batch {batch}: {} steps, loss {:.3}, sharpness {sharp:.4}",
            run.steps, run.loss
        );
        measured.push((batch, sharp, run.loss));
    }
    let verdict = sharpness_verdict(measured[0], measured[1], lab.target);
    eprintln!("{verdict}");
    assert!(
        verdict.starts_with("Batch 256 is sharper than batch 4"),
        "{verdict}"
    );
}
