//! The scaling lab's lesson with its defaults (circle, momentum, square-root rule from η = 0.05 at
//! batch 8, target loss 0.05): every batch size reaches the target, the steps to it fall as the
//! batch grows, and a 4× batch saves less at the large end than at the small — perfect scaling,
//! then diminishing returns
//! (Shallue et al. 2018; docs/theory.md §5.2). A run that makes no progress is stopped as stalled.

use engine::train::Trainer;
use lab_sims::scaling::{run, RunResult, Sweep, STALL_CHECKS};
use lab_state::lab::LabState;
use lab_state::scaling::ScalingLab;

fn sweep_runs(sweep: &Sweep) -> Vec<RunResult> {
    sweep_runs_on(sweep, false)
}

/// Every run of the sweep, as the page trains it: on the CPU path, or on lavapipe (one device
/// for the sweep, as the page keeps one).
pub fn sweep_runs_on(sweep: &Sweep, on_gpu: bool) -> Vec<RunResult> {
    // Generated and split (2-D data) or read (images) as the page does (`DataConfig::load`).
    let (train, test) = sweep.base.data.load(crate::lessons::read_data).unwrap();
    let test = test.expect("the sweep's data holds out test points");
    let gpu = on_gpu.then(|| {
        std::rc::Rc::new(
            pollster::block_on(engine::gpu::GpuContext::new()).expect("a GPU adapter (lavapipe)"),
        )
    });
    sweep
        .runs()
        .into_iter()
        .map(|(b, lr)| {
            let config = sweep.config(b, lr, train.len());
            let mut t =
                pollster::block_on(Trainer::with_data(config, train.clone(), gpu.clone(), 1)).unwrap();
            pollster::block_on(run(&mut t, sweep, Some(&test), |_, _| async { true })).unwrap()
        })
        .collect()
}

/// The course's lesson `scaling-batch`, every section at every seed on the CPU path and at the
/// lab's own seed on lavapipe: the steps at batch 8 over those at 256, and the critical batch
/// the page reports (`lab_state::scaling::critical_batch`), each in the claimed choice. The
/// first section's two runs are the second's sweep's at batches 8 and 256, and its batch-8 run
/// measures the same noise scale (checked equal on the CPU path at every seed), so lavapipe
/// trains the pair alone and answers both.
#[test]
fn the_batch_lesson_holds_over_seeds_and_backends() {
    let sections = crate::lessons::sections("scaling-batch");
    let lab = |i: usize| {
        let (lab, notices) = ScalingLab::from_query(&sections[i].state);
        assert!(notices.is_empty(), "{notices:?}");
        lab
    };
    let (pair, sweep) = (lab(0), lab(1));
    assert_eq!(sections[0].seeds(), sections[1].seeds());
    let reseed = |lab: &ScalingLab, seed| ScalingLab { seed, ..lab.clone() };
    let jobs = crate::lessons::seed_jobs(&sections[1], &sweep, sweep.seed, reseed, true);
    let measured = crate::lessons::in_parallel(&jobs, |(label, lab, gpu)| {
        let alone = sweep_runs_on(&reseed(&pair, lab.seed).sweep().unwrap(), *gpu);
        if *gpu {
            return (label.clone(), alone);
        }
        let runs = sweep_runs_on(&lab.sweep().unwrap(), false);
        for r in &alone {
            let same = runs
                .iter()
                .find(|s| s.batch == r.batch)
                .expect("the sweep has the pair's batches");
            assert_eq!(
                same.steps_to_target, r.steps_to_target,
                "{label}: batch {}",
                r.batch
            );
        }
        let critical = lab_state::scaling::critical_batch;
        assert_eq!(critical(&runs), critical(&alone), "{label}: the noise scale");
        (label.clone(), runs)
    });
    for (label, runs) in &measured {
        for section in &sections {
            let value = section.measure(|name| match name.strip_prefix("steps-") {
                Some(b) => {
                    let b: usize = b.parse().unwrap();
                    let r = runs.iter().find(|r| r.batch == b).unwrap();
                    r.steps_to_target
                        .unwrap_or_else(|| panic!("{label}: batch {b} misses the target"))
                        as f64
                }
                None => {
                    assert_eq!(name, "b-simple");
                    lab_state::scaling::critical_batch(runs).expect("the noise scale is measured")
                }
            });
            eprintln!("scaling-batch \"{}\" ({label}): {value:.2}", section.heading);
            section.assert_claim("scaling-batch", value);
        }
    }
}

#[test]
fn a_run_without_progress_is_stopped_as_stalled() {
    let lab = ScalingLab {
        base_lr: 1e-7,
        batches: "16".into(),
        noise_every: 0,
        ..ScalingLab::default()
    };
    let runs = sweep_runs(&lab.sweep().unwrap());
    let r = &runs[0];
    let at = r.stalled_at.expect("no progress at η = 1e-7");
    assert!(at < lab.max_steps && r.steps == at && r.steps_to_target.is_none());
    assert!(r.checks.len() > STALL_CHECKS);
}

/// Batch norm against layer norm as the batch shrinks (docs/theory.md §1.4): at batch 2 batch
/// norm normalizes each feature over two samples (every value becomes ±1 in training) and
/// predicts with running averages of such statistics, so the image MLP with batch norm misses
/// 85 % training accuracy in 3,000 steps, where the same MLP with layer norm, which normalizes
/// each sample on its own, reaches it; at batch 32 both do.
#[test]
fn batch_norm_breaks_down_at_batch_2_where_layer_norm_does_not() {
    use lab_state::landscape::{Data, Network};
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut reached = Vec::new();
    for network in [Network::MlpBatchNorm, Network::MlpLayerNorm] {
        let lab = ScalingLab {
            network,
            data: Data::Mnist,
            batches: "2, 32".into(),
            target_accuracy: true,
            target: 0.85,
            max_steps: 3000,
            noise_every: 0,
            ..Default::default()
        };
        let sweep = lab.sweep().unwrap();
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e} (run scripts/setup.sh)"))
        };
        let (train, test) = sweep.base.data.load(read).unwrap();
        let test = test.unwrap();
        for (b, lr) in sweep.runs() {
            let config = sweep.config(b, lr, train.len());
            let mut t = pollster::block_on(Trainer::with_data(config, train.clone(), None, 100)).unwrap();
            let r = pollster::block_on(run(&mut t, &sweep, Some(&test), |_, _| async { true })).unwrap();
            eprintln!(
                "{network:?} batch {b} (η {lr:.4}): steps to 85 % {:?}, test accuracy {:?}",
                r.steps_to_target, r.test_accuracy
            );
            reached.push(((network, b), r.steps_to_target.is_some()));
        }
    }
    assert_eq!(
        reached.iter().map(|r| r.1).collect::<Vec<_>>(),
        [false, true, true, true],
        "batch norm at 2, at 32; layer norm at 2, at 32: {reached:?}"
    );
}
