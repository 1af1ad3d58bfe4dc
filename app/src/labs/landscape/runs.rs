//! Training each network and mapping its landscape: the line from the initial to the trained
//! weights, the 2-D slice, and the sharpness, drawn as each is done.

use crate::error::RunError;
use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;

use engine::data::Dataset;
use engine::gpu::GpuContext;
use engine::train::Trainer;
use lab_sims::hessian::top_eigenvalue_over;
use lab_sims::landscape::{
    filter_normalized_direction, interpolate, sharpness, slice, train_to_loss, trajectory_plane,
    SHARPNESS_DIRECTIONS, SHARPNESS_RADIUS,
};
use lab_state::landscape::{Landscape, Plane, Run};

use super::{redraw, Mapped, PanelCanvases};
use crate::fetch;
use crate::frame::next_frame;

#[allow(clippy::too_many_arguments)]
pub async fn run_all(
    s: &Landscape,
    backend: lab_state::playground::BackendChoice,
    status: RwSignal<String>,
    progress: RwSignal<f64>,
    cancel: &Cell<bool>,
    mapped: RwSignal<Vec<Mapped>>,
    panels: [PanelCanvases; 2],
) -> Result<(), RunError> {
    let runs = s.runs();
    // One data set serves every run (the batch changes only how it is sampled); "auto" times
    // the first run's model on both backends.
    let config = runs[0].config.clone();
    status.set("loading data…".into());
    let (data, test) = fetch::data(&config).await?;
    let (mut gpu, _) = crate::gpu::for_choice(backend, &config, &data, status).await;
    for (i, run) in runs.iter().enumerate() {
        if cancel.get() {
            break;
        }
        let share = (i as f64 / runs.len() as f64, 1.0 / runs.len() as f64);
        let report = |p: f64| progress.set(share.0 + share.1 * p);
        // A lost GPU: this run again, on the CPU path.
        let m = crate::gpu::with_fallback(&mut gpu, async |gpu| {
            run_one(s, run, (&data, &test), gpu, status, &report, cancel).await
        })
        .await?;
        mapped.update(|all| all.push(m));
        mapped.with_untracked(|all| redraw(&panels, all));
        next_frame().await;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
async fn run_one(
    s: &Landscape,
    which: &Run,
    (data, test): (&Dataset, &Dataset),
    gpu: Option<Rc<GpuContext>>,
    status: RwSignal<String>,
    report: &dyn Fn(f64),
    cancel: &Cell<bool>,
) -> Result<Mapped, RunError> {
    let (config, batch, name) = (which.config.clone(), which.batch, which.label.as_str());
    let eval_rows = if matches!(config.data, engine::train::DataConfig::Images(_)) {
        s.image_eval_rows()
    } else {
        data.len().min(test.len())
    };
    let (eval_train, eval_test) = (data.head(eval_rows), test.head(eval_rows));
    let mut trainer =
        Trainer::with_evaluation(config.clone(), data.clone(), gpu.clone(), 1, eval_rows).await?;
    let budget = (s.epochs * data.len() / batch).max(1);
    let w0 = trainer.params().await?;
    let aim = if s.target > 0.0 {
        format!("training to loss {} (at most {budget} steps)", s.target)
    } else {
        format!("training {budget} steps")
    };
    status.set(format!("{name}: {aim} on {}…", trainer.backend_name()));
    let run = train_to_loss(&mut trainer, &eval_train, s.target, budget, |steps| {
        report(0.4 * steps as f64 / budget as f64);
        async move {
            next_frame().await;
            !cancel.get()
        }
    })
    .await?;
    let (steps, checkpoints) = (run.steps, run.checkpoints);
    let w1 = checkpoints.last().cloned().unwrap_or_else(|| w0.clone());

    status.set(format!("{name}: interpolating…"));
    let intervals = s.line_intervals();
    let thetas: Vec<f32> = (0..=intervals)
        .map(|i| -0.5 + i as f32 * 2.0 / intervals as f32)
        .collect();
    let at_one = 3 * intervals / 4;
    let lines = interpolate(
        &mut trainer,
        (&w0, &w1),
        &thetas,
        &[&eval_train, &eval_test],
        next_frame,
    )
    .await?;
    report(0.45);
    next_frame().await;

    let (d1, d2, path, span, explained) = match s.plane {
        Plane::Trajectory => {
            let p = trajectory_plane(&checkpoints, &w1);
            let span = p
                .coords
                .iter()
                .flat_map(|c| [c[0].abs(), c[1].abs()])
                .fold(0.0f32, f32::max)
                * 1.2;
            (p.d1, p.d2, p.coords, span.max(1e-3), Some(p.explained))
        }
        Plane::Random => (
            filter_normalized_direction(&trainer.compiled, &w1, 1),
            filter_normalized_direction(&trainer.compiled, &w1, 2),
            Vec::new(),
            1.0,
            None,
        ),
    };
    let res = s.res;
    status.set(format!(
        "{name}: mapping a {res} × {res} slice on {eval_rows} samples…"
    ));
    let grid = slice(&mut trainer, &w1, &d1, &d2, span, res, &eval_train, |rows| {
        report(0.45 + 0.45 * rows as f64 / res as f64);
        async move {
            next_frame().await;
            !cancel.get()
        }
    })
    .await?;
    let convexity = lab_sims::curvature::slice_convexity(&grid, res, span);
    let sharp = if s.measures_sharpness() {
        status.set(format!(
            "{name}: sharpness along {SHARPNESS_DIRECTIONS} directions…"
        ));
        sharpness(
            &mut trainer,
            &eval_train,
            (SHARPNESS_RADIUS, SHARPNESS_DIRECTIONS, 7),
            next_frame,
        )
        .await?
    } else {
        f32::NAN
    };
    report(0.93);
    let (hessian_text, lambda_max) = if !s.measures_hessian() {
        (
            "λ_max not measured for the ResNet (60 gradient passes of 26 layers); ".to_string(),
            f32::NAN,
        )
    } else {
        status.set(format!("{name}: the top Hessian eigenvalue by power iteration…"));
        next_frame().await;
        let top = top_eigenvalue_over(&config, &eval_train, &w1, gpu, 7, next_frame).await?;
        let text = format!(
            "top Hessian eigenvalue λ_max {:.4} ({} products over {} samples); ",
            top.eigenvalue, top.iterations, top.samples
        );
        (text, top.eigenvalue)
    };
    report(1.0);
    let train_loss = lines[0][at_one];
    let test_loss = lines[1][at_one];
    let plane_text = match explained {
        Some(e) => format!(
            "the PCA plane explains {:.0} % + {:.0} % of the path's variance.",
            e[0] * 100.0,
            e[1] * 100.0
        ),
        None => "random filter-normalized plane (±1 filter norm).".into(),
    };
    Ok(Mapped {
        grid,
        res,
        span,
        path,
        thetas,
        line_train: lines[0].clone(),
        line_test: lines[1].clone(),
        summary: format!(
            "{name}, {steps} steps ({}): train loss {train_loss:.3}, test loss {test_loss:.3}; {}",
            if s.target > 0.0 && train_loss <= s.target + 1e-3 {
                format!("trained to loss ≤ {}", s.target)
            } else if s.target > 0.0 {
                format!(
                    "stopped at the budget of {} epochs before loss {}",
                    s.epochs, s.target
                )
            } else {
                format!("{} epochs", s.epochs)
            },
            if s.measures_sharpness() {
                format!("sharpness (mean loss rise at 0.1 filter norms, {SHARPNESS_DIRECTIONS} directions) {sharp:.4}; ")
            } else {
                "sharpness not measured for the ResNet pair (its lesson is the slice's convexity); "
                    .to_string()
            }
        ),
        convexity_text: format!(
            "non-convexity of the slice {:.3} (curving down on {:.0} % of it); ",
            convexity.nonconvexity,
            convexity.nonconvex_share * 100.0
        ),
        nonconvexity: convexity.nonconvexity,
        hessian_text,
        lambda_max,
        plane_text,
        plane_share: explained.map(|e| (e[0] + e[1]) * 100.0),
        key: which.key.clone(),
        measured: (batch, sharp, train_loss),
    })
}
