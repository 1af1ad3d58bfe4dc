//! The playground's "what to try" with its defaults (app/src/playground/lesson.rs): the spiral is learned
//! (test accuracy above 90 %) within 10,000 steps (about 6,400 natively: half a minute at the
//! watchable speed), and a network without hidden layers
//! cannot learn it (a line cannot separate the arms).

use engine::train::Trainer;
use lab_state::playground::Playground;
use pollster::block_on;

/// Steps until the test accuracy, checked every 100 steps, reaches `target` (None: not within
/// `budget`), and the last accuracy seen.
fn steps_to(s: &Playground, target: f32, budget: u64) -> (Option<u64>, f32) {
    let (train, test) = s.toy().generate_split();
    let test = test.expect("the defaults hold out test points");
    let mut t = block_on(Trainer::with_data(s.to_config(), train, None, test.len())).unwrap();
    let mut acc = 0.0;
    while t.step() < budget {
        block_on(t.train(100)).unwrap();
        acc = block_on(t.evaluate(&test)).unwrap().1;
        if acc >= target {
            return (Some(t.step()), acc);
        }
    }
    (None, acc)
}

#[test]
fn the_default_spiral_is_learned_and_a_linear_model_cannot_learn_it() {
    let s = Playground::default();
    let (steps, acc) = steps_to(&s, 0.9, 10_000);
    println!("defaults: test accuracy {acc} at step {steps:?}");
    assert!(steps.is_some(), "the spiral within 10,000 steps: {acc}");
    let linear = Playground {
        hidden: vec![],
        ..Playground::default()
    };
    let (steps, acc) = steps_to(&linear, 0.8, 3000);
    println!("no hidden layer: test accuracy {acc}");
    assert!(steps.is_none(), "a line does not separate the spiral: {acc}");
}

/// Trains the playground a lesson section locks (its `state`) until `measure.ready`'s step, as
/// the embedded lab does on the student's page, and reads the lab's two accuracy readouts in
/// percent: the last step's batch accuracy and the test accuracy then. A run that diverges stops
/// where it diverged, as the lab does.
fn playground_metrics(state: &str, ready: u64) -> (f64, f64) {
    let (s, notices) = Playground::from_query(state);
    assert!(notices.is_empty(), "{state}: {notices:?}");
    let (train, test) = s.toy().generate_split();
    let test = test.expect("the lesson holds out test points");
    let mut t = block_on(Trainer::with_data(s.to_config(), train, None, test.len())).unwrap();
    let mut batch = 0.0;
    while t.step() < ready {
        match block_on(t.train(100)) {
            Ok(m) => batch = m.last().unwrap().accuracy,
            Err(engine::train::TrainError::Diverged { .. }) => break,
            Err(e) => panic!("{e}"),
        }
    }
    let test = block_on(t.evaluate(&test)).unwrap().1;
    (100.0 * f64::from(batch), 100.0 * f64::from(test))
}

/// Every section of the playground's lessons, run natively with its locked settings at five seeds
/// (data and weights): what it measures falls in the choice the lesson's "why" explains. The
/// browser's lesson test then only checks that the page shows and judges a measurement.
#[test]
fn every_playground_lesson_section_measures_its_claim() {
    for id in ["playground-features", "playground-overfitting"] {
        for section in crate::lessons::sections(id) {
            let ready = section.measure["ready"]["min"]
                .as_u64()
                .expect("a step to measure at");
            let runs = crate::lessons::in_parallel(&section.seeds(), |&seed| {
                (
                    seed,
                    playground_metrics(&format!("{}&seed={seed}", section.state), ready),
                )
            });
            for (seed, (batch, test)) in runs {
                let value = section.measure(|name| match name {
                    "batch-accuracy" => batch,
                    "test-accuracy" => test,
                    other => panic!("{id}: the playground publishes no {other}"),
                });
                eprint!("(seed {seed}) ");
                section.assert_claim(id, value);
            }
        }
    }
}
