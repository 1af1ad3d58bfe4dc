//! The cluster lab's compression lesson with its defaults (MNIST, 8 workers, global batch 64,
//! k = 5 %, the default update budget): every compressor offered with error feedback — top-k, random-k
//! (sent unscaled) and 1-bit (sent as the scaled sign) — reaches the uncompressed run's test
//! accuracy within 2 points, and its error memory does not blow up. Needs `public/data` (setup).

use std::path::PathBuf;

use engine::train::Trainer;
use lab_sims::cluster::Cluster;
use lab_sims::cluster_run::train_to_target;
use lab_sims::scaling::Target;
use lab_state::cluster::ClusterLab;

fn test_accuracy(lab: &ClusterLab) -> f32 {
    let config = lab.train_config(lab.workers);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../public/data");
    let (train, test) = config
        .data
        .load(|name| std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e} (run scripts/setup.sh)")))
        .unwrap();
    let mut trainer = pollster::block_on(Trainer::with_data(config, train, None, 1)).unwrap();
    let mut cluster = Cluster::new(
        lab.config(lab.workers, 0).unwrap(),
        &trainer.compiled,
        trainer.config.batch,
    );
    // The whole budget for every run, so that they compare at equal updates.
    let run = pollster::block_on(train_to_target(
        String::new(),
        &mut cluster,
        &mut trainer,
        Target::Accuracy(2.0),
        lab.max_steps,
        test.as_ref(),
        |_, _| async { true },
    ))
    .unwrap();
    assert_eq!(run.diverged_at, None);
    run.test_accuracy.unwrap()
}

#[test]
fn error_feedback_compressors_reach_the_uncompressed_accuracy() {
    let compressed = [1, 2, 3].map(|compression| ClusterLab {
        compression,
        bits: 1,
        error_feedback: true,
        ..ClusterLab::default()
    });
    let labs: Vec<ClusterLab> = std::iter::once(ClusterLab::default()).chain(compressed).collect();
    // The four runs are independent: one thread each, so that every core of the test machine works.
    let accuracies: Vec<f32> = std::thread::scope(|s| {
        let runs: Vec<_> = labs.iter().map(|lab| s.spawn(|| test_accuracy(lab))).collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let reference = accuracies[0];
    for (lab, &accuracy) in labs.iter().zip(&accuracies).skip(1) {
        let c = lab.compression();
        assert!(lab.config(8, 0).unwrap().uses_error_feedback(), "{c:?}");
        eprintln!(
            "{}: {accuracy} vs uncompressed {reference}",
            c.error_feedback_label()
        );
        assert!(
            accuracy >= reference - 0.02,
            "{}: {accuracy} vs uncompressed {reference}",
            c.error_feedback_label()
        );
    }
}
