//! The playground's "what to try" with its defaults (app/src/lessons.rs): the spiral is learned
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

/// The course's first lesson (public/lessons/playground-features.json): on the circle a network
/// without hidden layers stays near chance on x and y, and passes 90 % once given x² and y².
#[test]
fn the_circle_needs_a_hidden_layer_or_squared_features() {
    use engine::data::features::Feature;
    use engine::data::toy::ToyKind;
    let linear = Playground {
        dataset: ToyKind::Circle,
        hidden: vec![],
        ..Playground::default()
    };
    let (_, acc) = steps_to(&linear, 1.1, 1000);
    println!("circle, no hidden layer, x and y: test accuracy {acc}");
    assert!(acc < 0.7, "{acc}");
    let squared = Playground {
        features: vec![Feature::XSquared, Feature::YSquared],
        ..linear
    };
    let (_, acc) = steps_to(&squared, 1.1, 1000);
    println!("circle, no hidden layer, x² and y²: test accuracy {acc}");
    assert!(acc > 0.9, "{acc}");
}
