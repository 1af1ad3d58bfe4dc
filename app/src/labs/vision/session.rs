//! The one task that owns the vision lab's model. The page sends commands (train, stop, save,
//! load, classify, show a test image); the owner answers each — while training too, between two
//! chunks: Stop stops, Save saves the model so far, the rest are refused with the reason.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;


use super::model::{save, save_torch, Command, Model};
use lab_state::vision::VisionLab as Settings;
use super::{draw, inspect, names, History, View, PAD};
use crate::session::Inbox;

struct Owner {
    v: View,
    history: Rc<RefCell<History>>,
    model: Option<Model>,
    /// The test image on the pad.
    selected: usize,
    miss_cursor: Option<usize>,
}

pub async fn own(v: View, history: Rc<RefCell<History>>, mut inbox: Inbox<Command>) {
    let mut o = Owner {
        v,
        history,
        model: None,
        selected: 0,
        miss_cursor: None,
    };
    while let Some(command) = inbox.next().await {
        o.handle(command, &mut inbox).await;
    }
}

impl Owner {
    async fn handle(&mut self, command: Command, inbox: &mut Inbox<Command>) {
        let v = self.v;
        v.refusal.set(None);
        match command {
            Command::Train(s) => self.train(&s, inbox).await,
            Command::Stop => v.refusal.set(Some("Nothing is training.".into())),
            Command::Save => match &self.model {
                Some(m) => save(&m.trainer, v).await,
                None => v
                    .refusal
                    .set(Some("There is no model to save yet: train or load one.".into())),
            },
            Command::SaveTorch => match &self.model {
                Some(m) => save_torch(&m.trainer, v).await,
                None => v
                    .refusal
                    .set(Some("There is no model to export yet: train or load one.".into())),
            },
            Command::Load { name, text, webgpu } => {
                match inspect::load_model(&name, &text, webgpu, v.status).await {
                    Ok(m) => {
                        v.error.set(None);
                        v.status.set(format!(
                            "loaded a model trained for {} steps on {}",
                            m.trainer.step(),
                            m.set
                        ));
                        // Where its training started is unknown.
                        v.filter_start.set(None);
                        self.model = Some(m);
                        self.after_model().await;
                    }
                    Err(e) => v.error.set(Some(format!("{e} (the current model is kept)"))),
                }
            }
            Command::Classify { input, note } => match self.model.as_mut() {
                Some(m) => inspect::classify(m, v, input, note).await,
                None => v.pad_note.set("train or load a model first, then draw".into()),
            },
            Command::NextTest => self.show_test(self.selected + 1).await,
            Command::ShowMiss(k) => {
                let index = self.misses().get(k).copied();
                if let Some(i) = index {
                    self.show_test(i).await;
                }
            }
            Command::StepMiss(delta) => {
                let misses = self.misses();
                if misses.is_empty() {
                    return;
                }
                let k = match self.miss_cursor {
                    None => 0,
                    Some(k) => (k as isize + delta).rem_euclid(misses.len() as isize) as usize,
                };
                self.miss_cursor = Some(k);
                self.show_test(misses[k]).await;
            }
        }
    }

    async fn train(&mut self, s: &Settings, inbox: &mut Inbox<Command>) {
        let v = self.v;
        let config = match s.config() {
            Ok(c) => c,
            Err(e) => return v.error.set(Some(e.to_string())),
        };
        v.error.set(None);
        v.running.set(true);
        self.model = None;
        v.has_model.set(false);
        let (model, result) = super::train::run(s, config, v, &self.history, inbox).await;
        if let Err(e) = result {
            v.error.set(Some(e.to_string()));
            v.status.set("failed (see the message above)".into());
        }
        v.running.set(false);
        self.model = model;
        self.after_model().await;
    }

    /// The misclassified test images drawn (at most 32), by test index.
    fn misses(&self) -> Vec<usize> {
        self.model
            .as_ref()
            .and_then(|m| m.evaluation.as_ref())
            .map(|e| e.misclassified.iter().take(32).map(|m| m.index).collect())
            .unwrap_or_default()
    }

    /// Scores the new model and shows the selected test image.
    async fn after_model(&mut self) {
        let Some(m) = self.model.as_mut() else {
            return;
        };
        if let Err(e) = inspect::inspect(m, self.v).await {
            self.v.error.set(Some(e.to_string()));
        }
        self.miss_cursor = None;
        self.v.has_model.set(true);
        self.show_test(self.selected).await;
    }

    async fn show_test(&mut self, i: usize) {
        let Some(m) = self.model.as_mut() else {
            return;
        };
        let i = i % m.test.len().max(1);
        let (image, label) = (m.test.point(i).to_vec(), m.test.y[i] as usize);
        self.selected = i;
        if let Some(canvas) = self.v.canvases.pad.get_untracked() {
            if let Some(ctx) = crate::draw::context(&canvas) {
                draw::gray(&ctx, &image, 28, 28, 0.0, 0.0, PAD as f64 / 28.0, false);
            }
        }
        let note = format!("test image {i}: a {}", names(&m.set)[label]);
        inspect::classify(m, self.v, image, note).await;
    }
}
