//! One race and the task that animates it. The animator owns the paths being drawn and takes
//! each new race from its mailbox; a newer race (a changed setting, "Race again") replaces the
//! one on screen at its next frame, so two animations never draw over each other.

use leptos::html::Canvas;
use leptos::prelude::*;

use lab_sims::surfaces::{measured_rate, Path};
use lab_state::optimizers::{OptimizersLab, RACERS};

use crate::optimizers::draw::{draw_contours, draw_losses, draw_paths};
use crate::frame::next_frame;
use crate::session::{mailbox, Mailbox};

/// A racer's final loss, measured rate and whether it diverged, by name.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Index in `RACERS`.
    pub racer: usize,
    pub name: String,
    pub last: f32,
    pub rate: f32,
    pub diverged: bool,
}

fn outcomes(paths: &[(usize, Path)]) -> Vec<Outcome> {
    paths
        .iter()
        .map(|(i, p)| Outcome {
            racer: *i,
            name: RACERS[*i].0.to_string(),
            last: p.losses.last().copied().unwrap_or(f32::NAN),
            rate: measured_rate(&p.points),
            diverged: p.diverged,
        })
        .collect()
}

/// The CSV under the contour map (the paths) and under the loss chart.
fn publish_tables(paths: &[(usize, Path)]) {
    // Each row: the optimizer, the step, then the cells `f` gives for that step.
    let rows = |f: &dyn Fn(&Path, usize) -> Vec<String>| {
        let mut out = Vec::new();
        for (i, p) in paths {
            out.extend((0..p.losses.len()).map(|k| {
                let mut row = vec![RACERS[*i].0.to_string(), k.to_string()];
                row.extend(f(p, k));
                row
            }));
        }
        out
    };
    let point = |p: &Path, k: usize| {
        p.points.get(k).map_or(vec![String::new(), String::new()], |q| {
            vec![q[0].to_string(), q[1].to_string()]
        })
    };
    crate::figures::set_table(
        "opt-contour",
        crate::figures::csv("optimizer,step,x,y", rows(&point)),
    );
    crate::figures::set_table(
        "opt-loss-chart",
        crate::figures::csv("optimizer,step,loss", rows(&|p, k| vec![p.losses[k].to_string()])),
    );
}

/// The canvases a race is drawn on.
#[derive(Clone, Copy)]
pub struct Canvases {
    pub contour: NodeRef<Canvas>,
    pub chart: NodeRef<Canvas>,
}

fn draw(s: &OptimizersLab, paths: &[(usize, Path)], shown: usize, canvases: Canvases, log: bool) {
    if let Some(c) = canvases.contour.get_untracked() {
        draw_contours(&c, s.surface());
        draw_paths(&c, s.surface(), paths, shown, s.start());
    }
    if let Some(c) = canvases.chart.get_untracked() {
        let names: Vec<&str> = RACERS.iter().map(|r| r.0).collect();
        draw_losses(c, paths, shown, &names, log);
    }
}

/// A race to run: the settings, and whether to draw it whole at once (a slider being dragged,
/// Distill-style) rather than grow the paths.
pub type Race = (OptimizersLab, bool);

/// Starts the animator: send it a race and it runs it, publishes the outcomes and the tables,
/// and grows the paths over about two seconds (120 frames), or draws them whole at once. The
/// loss chart's axis is logarithmic while `log` is set.
pub fn animator(
    canvases: Canvases,
    outcomes_out: RwSignal<Vec<Outcome>>,
    log: RwSignal<bool>,
) -> Mailbox<Race> {
    let (tx, mut inbox) = mailbox::<Race>();
    leptos::task::spawn_local(async move {
        let mut next = None;
        loop {
            let Some((mut s, mut instant)) = next.take() else {
                match inbox.next().await {
                    Some(s) => next = Some(s),
                    None => return,
                }
                continue;
            };
            // Only the latest of several queued races is worth running.
            while let Some((newer, whole)) = inbox.ready() {
                (s, instant) = (newer, whole);
            }
            let paths = s.race();
            outcomes_out.set(outcomes(&paths));
            publish_tables(&paths);
            let per_frame = if instant { s.steps } else { (s.steps / 120).max(1) };
            let mut k = 0;
            while k < s.steps {
                if let Some(newer) = inbox.ready() {
                    next = Some(newer);
                    break;
                }
                k = (k + per_frame).min(s.steps);
                draw(&s, &paths, k, canvases, log.get_untracked());
                next_frame().await;
            }
        }
    });
    tx
}
