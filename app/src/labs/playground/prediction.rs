//! What the session shows after each chunk: the boundary over the grid, the test set's loss,
//! and every few chunks the network diagram (a readback per layer).

use engine::model::Layer;
use engine::train::Trainer;
use leptos::prelude::*;

use super::session::Session;
use super::GRID;
use crate::playground::network_chart::{Column, Diagram, Shade};

/// Test sets larger than this are not scored on every chunk.
const LARGE_TEST: usize = 2000;

impl Session {
    /// Predicts the heatmap and the test set in one pass (one readback; every few chunks with
    /// each layer and the weights for the diagram, still one), scores the test set, redraws.
    pub async fn show_prediction(&mut self) {
        let lab = self.lab.clone();
        let running = lab.readouts.running.get_untracked();
        let Some(trainer) = self.trainer.as_mut() else {
            return;
        };
        let with_diagram = self.since_diagram >= 4 || !running;
        // A large test set (an upload) is scored every few chunks, not every one.
        let test = lab.data.borrow().1.clone().filter(|t| !t.is_empty());
        let test = test.filter(|t| t.len() <= LARGE_TEST || self.since_diagram.is_multiple_of(8) || !running);
        let mut points = lab.grid.clone();
        if let Some(t) = &test {
            points.extend_from_slice(&t.x);
        }
        let viewed = if with_diagram {
            trainer.snapshot(&points, true).await
        } else {
            trainer.predict(&points).await.map(|p| (p, Vec::new(), None))
        };
        let (mut probs, layers, params) = match viewed {
            Ok(v) => v,
            Err(e) => return lab.readouts.error.set(Some(e.to_string())),
        };
        let on_grid = GRID * GRID * trainer.compiled.classes();
        let on_test = probs.split_off(on_grid.min(probs.len()));
        if let Some(t) = &test {
            let (loss, accuracy) = trainer.score(&on_test, t);
            lab.readouts.test_loss.set(Some(loss));
            lab.readouts.test_accuracy.set(Some(accuracy));
            let step = trainer.step();
            let mut h = lab.history.borrow_mut();
            if step > 0 && h.test.last().is_none_or(|(s, _)| s < step) {
                h.test.push(step, loss);
            }
        }
        if let Some(params) = params {
            // With the diagram, each layer's gradient size on a fixed batch (the training's own
            // batches untouched): how the backward signal fades or grows with depth.
            match trainer.weight_gradient_norms().await {
                Ok(norms) => lab.readouts.gradient_norms.set(norms),
                Err(e) => return lab.readouts.error.set(Some(e.to_string())),
            }
            *lab.diagram.borrow_mut() = Some(build_diagram(&lab, trainer, &probs, &layers, &params));
            self.checkpoint = Some((trainer.step(), params));
            self.since_diagram = 0;
        } else {
            self.since_diagram = self.since_diagram.saturating_add(1);
        }
        *lab.probs.borrow_mut() = Some(probs);
        lab.redraw();
    }
}

/// The diagram's columns and links from one prediction: the input features, each hidden layer
/// after its activation, and the output; the weights of every dense layer.
fn build_diagram(
    lab: &super::lab::Lab,
    trainer: &Trainer,
    probs: &[f32],
    layers: &[Vec<f32>],
    params: &[f32],
) -> Diagram {
    let s = lab.state.get_untracked();
    let rows = GRID * GRID;
    let split = |values: &[f32], units: usize| -> Vec<Vec<f32>> {
        (0..units)
            .map(|j| (0..rows).map(|r| values[r * units + j]).collect())
            .collect()
    };
    let mut columns = vec![Column {
        title: "input".into(),
        shade: Shade::Values,
        neurons: s
            .features
            .iter()
            .map(|f| engine::data::features::expand(&lab.grid, &[*f]))
            .collect(),
    }];
    let mut weights = Vec::new();
    let compiled = &trainer.compiled.layers;
    let dense: Vec<usize> = (0..compiled.len())
        .filter(|&i| matches!(compiled[i].layer, Layer::Dense { .. }))
        .collect();
    for (n, &i) in dense.iter().enumerate() {
        let l = &compiled[i];
        let (inputs, units) = (l.in_len(), l.out_len());
        weights.push(
            (0..units)
                .map(|to| params[l.w_off + to * inputs..l.w_off + (to + 1) * inputs].to_vec())
                .collect(),
        );
        let last = n + 1 == dense.len();
        let probabilities = last && trainer.config.loss == engine::plan::Loss::CrossEntropy;
        let column = if probabilities {
            Column {
                title: "output".into(),
                shade: Shade::Probabilities,
                neurons: split(probs, units),
            }
        } else {
            // After the activation when one follows (hidden layers), else the raw output.
            let out = match compiled.get(i + 1).map(|l| &l.layer) {
                Some(Layer::Activation { .. }) => &layers[i + 1],
                _ => &layers[i],
            };
            Column {
                title: if last {
                    "output".into()
                } else {
                    format!("layer {}", n + 1)
                },
                shade: Shade::Values,
                neurons: split(out, units),
            }
        };
        columns.push(column);
    }
    Diagram {
        grid: GRID,
        columns,
        weights,
    }
}
