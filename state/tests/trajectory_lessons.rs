//! The landscape lab's trajectory lesson as the page measures it (`app/src/labs/landscape/runs.rs`):
//! each run trained with the lab's own loop `train_to_loss`, and the share of its path's variance
//! in the path's first two principal components (`trajectory_plane`), over five seeds on the CPU
//! path, and the toy section at the lesson's seed on WebGPU's kernels (lavapipe). The browser test then only checks
//! that the page shows what it measured.

use std::rc::Rc;

use engine::train::{DataConfig, Trainer};
use lab_sims::landscape::{train_to_loss, trajectory_plane};
use lab_state::lab::LabState;
use lab_state::landscape::Landscape;
use lab_state::playground::BackendChoice;
use pollster::block_on;

/// The run's `plane-share-<batch>`: the path's variance in its PCA plane, in %.
fn plane_share(lab: &Landscape, on_gpu: bool) -> f64 {
    let run = &lab.runs()[0];
    let (data, test) = run.config.data.load(crate::lessons::read_data).unwrap();
    let test = test.expect("a test split");
    let rows = match run.config.data {
        DataConfig::Images(_) => lab.image_eval_rows(),
        _ => data.len().min(test.len()),
    };
    let gpu =
        on_gpu.then(|| Rc::new(block_on(engine::gpu::GpuContext::new()).expect("a GPU adapter (lavapipe)")));
    let mut t = block_on(Trainer::with_evaluation(
        run.config.clone(),
        data.clone(),
        gpu,
        1,
        rows,
    ))
    .unwrap();
    let budget = (lab.epochs * data.len() / run.batch).max(1);
    let w0 = block_on(t.params()).unwrap();
    let trained = block_on(train_to_loss(
        &mut t,
        &data.head(rows),
        lab.target,
        budget,
        |_| async { true },
    ))
    .unwrap();
    let w1 = trained.checkpoints.last().cloned().unwrap_or(w0);
    let p = trajectory_plane(&trained.checkpoints, &w1);
    f64::from((p.explained[0] + p.explained[1]) * 100.0)
}

#[test]
fn the_trajectory_lesson_holds_over_seeds_and_backends() {
    for section in crate::lessons::sections("landscape-trajectory") {
        let (lab, notices) = Landscape::from_query(&section.state);
        assert!(notices.is_empty(), "{notices:?}");
        // The toy section on lavapipe too; the MNIST MLP's hundreds of small steps, each checked
        // against the loss every 256 samples, are too slow there for every run, so that section
        // pins the CPU path and says so.
        let toy = matches!(lab.runs()[0].config.data, DataConfig::Toy(_));
        if !toy {
            assert_eq!(lab.backend, BackendChoice::Cpu, "{}", section.heading);
            assert!(section.why.contains("pins the CPU path"), "{}", section.heading);
        }
        let jobs = crate::lessons::seed_jobs(
            &section,
            &lab,
            lab.seed,
            |lab, seed| Landscape { seed, ..lab.clone() },
            toy,
        );
        let shares =
            crate::lessons::in_parallel(&jobs, |(label, lab, gpu)| (label.clone(), plane_share(lab, *gpu)));
        for (label, share) in shares {
            eprint!("({label}) ");
            section.assert_claim("landscape-trajectory", share);
        }
    }
}
