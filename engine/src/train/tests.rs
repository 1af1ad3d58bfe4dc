use super::*;
use crate::data::toy::ToyConfig;

fn csv_config(test_fraction: f32) -> DataConfig {
    DataConfig::Csv(CsvConfig {
        file: "mine.csv".into(),
        test_fraction,
        seed: 2,
    })
}

#[test]
fn csv_data_loads_splits_and_reports_bad_lines_with_the_file() {
    let text = "x,y,label\n0.1,0.2,0\n0.3,0.4,1\n-0.5,0.6,2\n0.7,-0.8,1\n";
    let read = |name: &str| -> Result<Vec<u8>, String> {
        assert_eq!(name, "mine.csv");
        Ok(text.as_bytes().to_vec())
    };
    let (all, none) = csv_config(0.0).load(read).unwrap();
    assert_eq!((all.len(), all.classes, none), (4, 3, None));
    let (train, test) = csv_config(0.5).load(read).unwrap();
    assert_eq!((train.len(), test.map(|t| t.len())), (2, Some(2)));
    let bad = |_: &str| Ok(b"0.1,0.2,0\n0.3,oops,1\n".to_vec());
    let err = csv_config(0.0).load(bad).unwrap_err();
    assert!(
        matches!(&err, crate::error::Error::Data { file, .. } if file == "mine.csv"),
        "{err:?}"
    );
    assert!(err.to_string().starts_with("mine.csv: line 2:"), "{err}");
}

/// The schedule reaches the kernels: a rate that drops to zero after the first step
/// freezes the weights from then on, on both backends.
#[test]
fn training_follows_the_learning_rate_schedule() {
    use crate::optim::{Decay, Schedule};
    let config = TrainConfig {
        schedule: Schedule {
            decay: Decay::Step { every: 1, gamma: 0.0 },
            ..Default::default()
        },
        optimizer: crate::optim::Optimizer::Sgd,
        ..Default::default()
    };
    let mut t = pollster::block_on(Trainer::new(config, None, 1)).unwrap();
    assert_eq!(
        (t.learning_rate_at(1), t.learning_rate_at(2)),
        (t.config.learning_rate, 0.0)
    );
    let p0 = pollster::block_on(t.params()).unwrap();
    pollster::block_on(t.train(1)).unwrap();
    let p1 = pollster::block_on(t.params()).unwrap();
    pollster::block_on(t.train(3)).unwrap();
    assert_ne!(p0, p1, "step 1 trains");
    assert_eq!(
        p1,
        pollster::block_on(t.params()).unwrap(),
        "steps 2–4 have rate 0"
    );
}

#[test]
fn a_toy_test_split_leaves_fewer_training_rows() {
    let config = TrainConfig {
        data: DataConfig::Toy(ToyConfig {
            points: 100,
            test_fraction: 0.3,
            ..Default::default()
        }),
        batch: 71,
        ..Default::default()
    };
    let err = config.validate().unwrap_err();
    assert!(
        matches!(&err, crate::error::Error::Config(m) if m.contains("70 training samples")),
        "{err:?}"
    );
}
