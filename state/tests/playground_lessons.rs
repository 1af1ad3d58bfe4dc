//! The playground's "what to try" with its defaults (app/src/labs/playground/lesson.rs): the spiral is learned
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
/// percent: the last step's batch accuracy and the test accuracy then; the test loss then; and
/// each weighted layer's weight-gradient norm (`grad-norm-{layer}`, from 1). A run that diverges stops where it
/// diverged, as the lab does.
pub fn playground_metrics(state: &str, ready: u64, on_gpu: bool) -> (f64, f64, f64, Vec<f32>) {
    let (s, notices) = Playground::from_query(state);
    assert!(notices.is_empty(), "{state}: {notices:?}");
    let (train, test) = s.toy().generate_split();
    let test = test.expect("the lesson holds out test points");
    let gpu = on_gpu.then(|| {
        std::rc::Rc::new(block_on(engine::gpu::GpuContext::new()).expect("a GPU adapter (lavapipe)"))
    });
    let mut t = block_on(Trainer::with_data(s.to_config(), train, gpu, test.len())).unwrap();
    let mut batch = 0.0;
    while t.step() < ready {
        match block_on(t.train(100)) {
            Ok(m) => batch = m.last().unwrap().accuracy,
            Err(engine::train::TrainError::Diverged { .. }) => break,
            Err(e) => panic!("{e}"),
        }
    }
    let (test_loss, test) = block_on(t.evaluate(&test)).unwrap();
    let norms = block_on(t.weight_gradient_norms()).unwrap();
    (100.0 * f64::from(batch), 100.0 * f64::from(test), f64::from(test_loss), norms)
}

/// Every section of the playground's lessons, run natively with its locked settings at five seeds
/// (data and weights) on the CPU path and at the lab's own seed on lavapipe (the WebGPU path a
/// student with a GPU gets): what it measures falls in the choice the lesson's "why" explains.
/// The browser's lesson test then only checks that the page shows and judges a measurement.
#[test]
fn every_playground_lesson_section_measures_its_claim() {
    // Every section's runs at once, so the longer GPU runs overlap the CPU ones.
    let sections: Vec<(&str, crate::lessons::Section)> = ["playground-features", "playground-overfitting", "playground-init", "playground-adamw", "playground-dropout"]
        .into_iter()
        .flat_map(|id| crate::lessons::sections(id).into_iter().map(move |s| (id, s)))
        .collect();
    let jobs: Vec<(usize, crate::lessons::Job<String>)> = (sections.iter().enumerate())
        .flat_map(|(k, (_, section))| {
            let lab = Playground::from_query(&section.state).0;
            let reseed = |state: &String, seed| format!("{state}&seed={seed}");
            crate::lessons::seed_jobs(section, &section.state, lab.seed, reseed, true)
                .into_iter()
                .map(move |job| (k, job))
        })
        .collect();
    let runs = crate::lessons::in_parallel(&jobs, |(k, (label, state, gpu))| {
        let ready = sections[*k].1.measure["ready"]["min"]
            .as_u64()
            .expect("a step to measure at");
        (*k, label.clone(), playground_metrics(state, ready, *gpu))
    });
    for (k, label, (batch, test, test_loss, norms)) in runs {
        let (id, section) = &sections[k];
        let value = section.measure(|name| match name {
            "batch-accuracy" => batch,
            "test-accuracy" => test,
            "test-loss" => test_loss,
            other => match other.strip_prefix("grad-norm-").and_then(|l| l.parse::<usize>().ok()) {
                Some(layer) => f64::from(norms[layer - 1]),
                None => panic!("{id}: the playground publishes no {other}"),
            },
        });
        eprint!("({label}) ");
        section.assert_claim(id, value);
    }
}
