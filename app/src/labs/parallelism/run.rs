//! Training the layouts: the network's profile from a trainer at the batch, each layout's
//! estimate, then each layout trained on the same batches from the same weights, one after
//! another, the charts redrawn as they go.

use crate::error::RunError;
use leptos::prelude::*;

use engine::train::Trainer;
use lab_sims::parallelism::layout::{estimate, search, Layout};
use lab_sims::parallelism::layout_run::{self, weight_gap, Devices};
use lab_sims::parallelism::profile::Profile;
use lab_sims::parallelism::record::ParallelismRecord;
use lab_sims::parallelism::tensor_block::first_block;
use lab_state::parallelism::ParallelismLab as Settings;

use super::{redraw, Canvases};
use crate::fetch;
use crate::frame::next_frame;
use crate::recorded::Run;

/// A layout's name in the table: the layout's own, after the name asked for when they differ
/// ("best: ZeRO-3 ×8").
fn label_of(way: &str, layout: &Layout) -> String {
    match layout.label() {
        l if l == *way => l,
        l => format!("{way}: {l}"),
    }
}

pub async fn run_all(s: Settings, run: Run<ParallelismRecord>, canvases: Canvases) -> Result<(), RunError> {
    let (status, record) = (run.status, run.record);
    let ways = s.ways()?;
    let mut gpu = run.gpu().await;
    status.set("loading data…".into());
    let config = s.config(s.batch);
    let (train, test) = fetch::data(&config).await?;
    let machine = s.machine();
    // On the CPU: the plan's buffers and kernels are the same on either backend.
    let shape = Trainer::with_data(config.clone(), train.clone(), None, 1).await?;
    let profile = Profile::of(&shape);
    // The layouts: the named ones, and the fastest that fits for "best".
    let mut layouts = Vec::new();
    for w in &ways {
        match s.layout(w) {
            Some(l) => layouts.push((w.clone(), l)),
            None => match search(&profile, s.batch, &machine, s.devices).first() {
                Some(e) => layouts.push((w.clone(), e.layout)),
                None => status.set(format!(
                    "no layout of at most {} devices fits {} MB: best left out",
                    s.devices, s.memory
                )),
            },
        }
    }
    if layouts.is_empty() {
        // Nothing to train or show: the reason stays on screen (the banner), not a passing status.
        return Err(RunError::NoLayoutFits {
            devices: s.devices,
            memory: s.memory,
        });
    }
    let estimates = layouts
        .iter()
        .map(|(_, l)| estimate(l, &profile, s.batch, &machine))
        .collect::<Result<Vec<_>, _>>()
        ?;
    record.set(Some(ParallelismRecord {
        config: config.clone(),
        steps: s.steps,
        machine,
        profile,
        estimates,
        runs: Vec::new(),
        tensor: Vec::new(),
    }));
    record.with_untracked(|r| r.as_ref().map(|r| redraw(&canvases, r, s.segment_length())));
    next_frame().await;
    // The first run's weights at the end and after its first step, the others' reference.
    let mut first_weights: Option<(Vec<f32>, Vec<f32>)> = None;
    let n = layouts.len();
    run.each(
        &mut gpu,
        &layouts,
        |(way, layout)| format!("{}, {} steps", label_of(way, layout), s.steps),
        async |i, (way, layout), gpu, pacer| {
            let label = label_of(way, layout);
            let mut whole = Trainer::with_data(config.clone(), train.clone(), gpu.clone(), 1).await?;
            let rows = layout.micro_rows(s.batch).unwrap_or(s.batch);
            let mut part = if rows < s.batch {
                Some(Trainer::with_data(s.config(rows), train.clone(), gpu.clone(), 1).await?)
            } else {
                None
            };
            let devices = Devices {
                whole: &mut whole,
                part: part.as_mut(),
            };
            let live = |losses: &[f32]| {
                if losses.len().is_multiple_of(20) {
                    run.record.with_untracked(|rec| {
                        if let Some(rec) = rec {
                            let mut shown = rec.clone();
                            shown.runs.push(lab_sims::parallelism::layout_run::LayoutRun {
                                label: label.clone(),
                                layout: *layout,
                                losses: losses.to_vec(),
                                test_accuracy: None,
                                diverged_at: None,
                                weight_gap: None,
                                first_step_gap: None,
                            });
                            super::redraw_losses(&canvases, &shown);
                        }
                    });
                }
                run.go_on(pacer, (i, n, losses.len() as f64 / s.steps.max(1) as f64))
            };
            let (mut trained, weights, after_first) =
                layout_run::train(label.clone(), *layout, devices, s.steps, Some(&test), live).await?;
            match &first_weights {
                Some((w0, f0)) => {
                    trained.weight_gap = Some(weight_gap(&weights, w0));
                    trained.first_step_gap = Some(weight_gap(&after_first, f0));
                }
                None => {
                    trained.weight_gap = Some(0.0);
                    trained.first_step_gap = Some(0.0);
                    first_weights = Some((weights, after_first));
                }
            }
            Ok(trained)
        },
        |rec, trained| rec.runs.push(trained),
        |rec| redraw(&canvases, rec, s.segment_length()),
    )
    .await?;
    // Tensor parallelism on the first run's trained weights: its first block split over as many
    // devices as the pipeline has stages, on the first test images.
    if let Some((w0, _)) = &first_weights {
        let rows = 256.min(test.len());
        let devices = s.stages.max(2);
        let checks = first_block(&shape.compiled, w0, &test.x, rows, devices).unwrap_or_default();
        record.update(|rec| {
            if let Some(rec) = rec {
                rec.tensor = checks;
            }
        });
        record.with_untracked(|r| r.as_ref().map(|r| redraw(&canvases, r, s.segment_length())));
    }
    Ok(())
}
