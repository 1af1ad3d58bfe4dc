//! A vision training run: chunks of steps sized to keep the page painting, the test set scored
//! at each epoch's end, and the session's commands answered between chunks.

use crate::error::RunError;
use std::cell::RefCell;

use leptos::prelude::*;

use engine::inspect::first_filters;
use engine::train::{StepRunner, TrainConfig, TrainError, Trainer};
use lab_state::vision::VisionLab as Settings;

use super::inspect::evaluate_yielding;
use super::model::{save, Command, Model};
use super::{draw, publish, Figures, History, View};
use crate::cpu_team::Cores;
use crate::fetch;
use crate::frame::{next_frame, now_ms};
use crate::session::Inbox;

/// Training images scored at each epoch's end.
const TRAIN_CHECK: usize = 2000;

/// Trains to the settings' epochs or a Stop; the model so far (None when none could be built)
/// and how the run ended.
pub async fn run(
    s: &Settings,
    config: TrainConfig,
    v: View,
    history: &RefCell<History>,
    inbox: &mut Inbox<Command>,
) -> (Option<Model>, Result<(), RunError>) {
    v.status.set("loading images…".into());
    let (train, test) = match fetch::data(&config).await {
        Ok(d) => d,
        Err(e) => return (None, Err(e.into())),
    };
    let (mut gpu, reason) = crate::gpu::for_choice(s.webgpu, &config, &train, v.status).await;
    v.backend_reason.set(reason);
    let (trainer, outcome) = loop {
        let mut trainer = match Trainer::with_data(config.clone(), train.clone(), gpu.clone(), 500).await {
            Ok(t) => t,
            Err(e) => return (None, Err(e.into())),
        };
        // The filters' start, so the page can show what training changes.
        let start = trainer.params().await.ok();
        v.filter_start.set(
            start
                .and_then(|p| first_filters(&trainer.compiled, &p))
                .map(|f| f.3),
        );
        let check = train.head(TRAIN_CHECK);
        let outcome = epochs(s, &mut trainer, &check, &test, v, history, inbox).await;
        // A lost GPU took the weights with it: the run starts again on the CPU path.
        if outcome.is_err() && crate::gpu::fell_back(&mut gpu).await {
            continue;
        }
        break (trainer, outcome);
    };
    let model = Model {
        trainer,
        test,
        set: s.set.clone(),
        evaluation: None,
    };
    (Some(model), outcome)
}

/// The training loop proper.
async fn epochs(
    s: &Settings,
    trainer: &mut Trainer,
    check: &engine::data::Dataset,
    test: &engine::data::Dataset,
    v: View,
    history: &RefCell<History>,
    inbox: &mut Inbox<Command>,
) -> Result<(), RunError> {
    let steps_per_epoch = trainer.data.len().div_ceil(s.batch.max(1));
    let total = steps_per_epoch * s.epochs;
    *history.borrow_mut() = (Vec::new(), Vec::new());
    let mut f = Figures::default();
    publish("__labVision", &f);
    v.status.set(format!("training on {}…", trainer.backend_name()));
    let mut cores = Cores::for_run(trainer).await;
    let reason = v.backend_reason.get_untracked();
    let start = now_ms();
    let (mut trained_ms, mut chunk, mut stopped) = (0.0, 1usize, false);
    let meter = crate::frame::FrameMeter::start();
    let mut last_live = f64::NEG_INFINITY;
    let mut outcome = Ok(());
    while f.steps < total && !stopped {
        let to_epoch_end = steps_per_epoch - f.steps % steps_per_epoch;
        let t0 = now_ms();
        let result = cores.train(trainer, chunk.min(to_epoch_end)).await;
        if f.cores != cores.note {
            f.cores.clone_from(&cores.note);
            v.backend_reason.set(
                [reason.as_str(), cores.note.as_str()]
                    .iter()
                    .filter(|t| !t.is_empty())
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" · "),
            );
        }
        match result {
            Ok(m) => {
                f.steps += m.len();
                history.borrow_mut().0.extend(m.iter().map(|m| m.loss));
            }
            Err(TrainError::Diverged { step }) => {
                outcome = Err(RunError::Diverged(step as usize));
                break;
            }
            Err(e) => {
                outcome = Err(e.into());
                break;
            }
        }
        let dt = now_ms() - t0;
        trained_ms += dt;
        // About 30 ms of training between frames keeps the page responsive.
        chunk = if dt < 15.0 {
            chunk * 2
        } else if dt > 45.0 {
            (chunk / 2).max(1)
        } else {
            chunk
        }
        .min(256);
        f.epochs_done = f.steps as f64 / steps_per_epoch as f64;
        f.samples_per_sec = (f.steps * s.batch) as f64 / (trained_ms / 1000.0);
        v.epoch_progress
            .set((f.steps % steps_per_epoch) as f64 / steps_per_epoch as f64);
        let left = (total - f.steps) as f64 * s.batch as f64 / f.samples_per_sec.max(1e-9);
        v.eta.set(format!("{left:.0} s"));
        if f.steps % steps_per_epoch == 0 {
            v.epoch_progress.set(1.0);
            v.status.set("scoring the test set…".into());
            let (train_loss, train_acc) = evaluate_yielding(trainer, check).await?;
            let (test_loss, test_acc) = evaluate_yielding(trainer, test).await?;
            f.test_accuracy = Some(test_acc);
            history
                .borrow_mut()
                .1
                .push((f.steps, train_loss, train_acc, test_loss, test_acc));
            v.status.set(format!(
                "epoch {} of {}: test accuracy {:.2} %",
                f.steps / steps_per_epoch,
                s.epochs,
                test_acc * 100.0
            ));
        }
        draw_curves(v, history);
        if now_ms() - last_live > 1000.0 {
            last_live = now_ms();
            super::inspect::live_views(trainer, test, v).await?;
        }
        next_frame().await;
        f.wall_ms = now_ms() - start;
        (f.fps, f.longest_frame_ms) = meter.read();
        v.figures.set(f.clone());
        stopped = answer(trainer, v, inbox).await;
    }
    f.done = true;
    f.wall_ms = now_ms() - start;
    v.figures.set(f.clone());
    publish("__labVision", &f);
    v.eta.set(String::new());
    if outcome.is_ok() {
        v.status.set(match f.test_accuracy {
            Some(a) if !stopped => format!(
                "done: {} epoch{} in {:.1} s, test accuracy {:.2} %",
                s.epochs,
                if s.epochs == 1 { "" } else { "s" },
                f.wall_ms / 1000.0,
                a * 100.0
            ),
            _ => format!("stopped after {} steps; the model so far is kept", f.steps),
        });
    }
    outcome
}

pub(super) fn draw_curves(v: View, history: &RefCell<History>) {
    let h = history.borrow();
    let log = v.log_loss.get_untracked();
    if let Some(x) = v.canvases.loss.get_untracked() {
        draw::curves(x, &h.0, &h.1, false, log);
    }
    if let Some(x) = v.canvases.accuracy.get_untracked() {
        draw::curves(x, &h.0, &h.1, true, false);
    }
}

/// The commands that came in during the last chunk: Stop (true: stop now), Save (the model so
/// far), and the rest refused until training ends.
async fn answer(trainer: &Trainer, v: View, inbox: &mut Inbox<Command>) -> bool {
    let mut stop = false;
    while let Some(c) = inbox.ready() {
        match c {
            Command::Stop => stop = true,
            Command::Save => save(trainer, v).await,
            Command::SaveTorch => super::model::save_torch(trainer, v).await,
            Command::Classify { .. } => v
                .pad_note
                .set("training is running: draw again when it ends".into()),
            Command::Train(_) => v.refusal.set(Some("Training is already running.".into())),
            Command::Load { .. } => v.refusal.set(Some(
                "Stop the training first: loading a model replaces it.".into(),
            )),
            Command::NextTest | Command::ShowMiss(_) | Command::StepMiss(_) => v
                .refusal
                .set(Some("The test images can be browsed when training ends.".into())),
        }
    }
    stop
}
