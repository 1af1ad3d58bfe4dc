//! Looking inside a model: the test set scored (confusion matrix, per-class accuracy, misses),
//! the first filters, one input's feature maps; and loading a saved model.

use crate::error::RunError;
use leptos::prelude::*;

use engine::data::Dataset;
use engine::export::ModelExport;
use engine::inspect::{evaluation, filter_smoothness, first_filters};
use engine::model::Layer;
use engine::train::{DataConfig, ImageConfig, TrainConfig, Trainer};
use lab_state::vision::TEST_IMAGES;

use super::model::Model;
use super::{draw, names, publish, View};
use crate::fetch;
use crate::frame::next_frame;

/// `Trainer::evaluate` in slices of 500 images with a frame between them, so the page keeps
/// painting while a large test set is scored on the CPU path.
pub async fn evaluate_yielding(trainer: &mut Trainer, data: &Dataset) -> Result<(f32, f32), RunError> {
    let (mut loss, mut correct) = (0.0f64, 0.0f64);
    for start in (0..data.len()).step_by(500) {
        let rows: Vec<usize> = (start..(start + 500).min(data.len())).collect();
        let (l, a) = trainer.evaluate(&data.rows(&rows)).await?;
        loss += l as f64 * rows.len() as f64;
        correct += a as f64 * rows.len() as f64;
        next_frame().await;
    }
    let n = data.len().max(1) as f64;
    Ok(((loss / n) as f32, (correct / n) as f32))
}

fn layer_name(l: &Layer) -> &'static str {
    match l {
        Layer::Conv2d { .. } => "conv",
        Layer::Pool { .. } => "pool",
        Layer::Dense { .. } => "dense",
        Layer::Dropout { .. } => "dropout",
        Layer::BatchNorm { .. } => "batch norm",
        Layer::LayerNorm => "layer norm",
        Layer::SkipFrom | Layer::Residual { .. } => "block input",
        Layer::SkipAdd { .. } => "block output (F(x) + skip)",
        Layer::Flatten => "flatten",
        Layer::Activation { .. } => "activation",
    }
}

/// Classifies an input (784 values): the probabilities, the note under the pad, and every
/// layer's feature maps.
pub async fn classify(m: &mut Model, v: View, input: Vec<f32>, note: String) {
    let pixels = input.iter().enumerate().map(|(i, x)| {
        [i / 28, i % 28]
            .map(|x| x.to_string())
            .into_iter()
            .chain([x.to_string()])
    });
    crate::figures::set_table("vision-pad", crate::figures::csv("row,column,ink", pixels));
    let (p, outputs) = match m.trainer.predict_layers(&input).await {
        Ok(r) => r,
        Err(e) => return v.error.set(Some(e.to_string())),
    };
    // The note changes with the probabilities, not before them.
    v.pad_note.set(note);
    // Scripts compare these with `lab predict` on the same model.
    publish("__labVisionProbs", &p);
    v.probs.set(p);
    draw_maps(&m.trainer, v, input, outputs);
}

/// Every layer's feature maps of one input (`outputs` from `predict_layers`).
fn draw_maps(trainer: &Trainer, v: View, input: Vec<f32>, outputs: Vec<Vec<f32>>) {
    let Some(x) = v.canvases.maps.get_untracked() else {
        return;
    };
    let mut maps = vec![("input 28×28".to_string(), [1, 28, 28], input)];
    maps.extend(
        trainer
            .compiled
            .layers
            .iter()
            .zip(outputs)
            .enumerate()
            .filter(|(_, (l, _))| l.out_shape[1] > 1 && !matches!(l.layer, Layer::Activation { .. }))
            .map(|(i, (l, o))| {
                let [c, h, w] = l.out_shape;
                (
                    format!("layer {i}: {} {c}×{h}×{w}", layer_name(&l.layer)),
                    l.out_shape,
                    o,
                )
            }),
    );
    draw::feature_maps(&x, &maps);
}

/// While training: the first layer's filters and one test image's feature maps as they are
/// now, so the student watches edge detectors form (about once a second: a readback of the
/// weights and one image's prediction).
pub async fn live_views(trainer: &mut Trainer, test: &Dataset, v: View) -> Result<(), RunError> {
    show_filters(trainer, v).await?;
    if test.is_empty() {
        return Ok(());
    }
    let input = test.point(0).to_vec();
    let (_, outputs) = trainer.predict_layers(&input).await?;
    draw_maps(trainer, v, input, outputs);
    Ok(())
}

/// The first convolution's filters, their change since the start of training, and how smooth
/// both are (a network without a convolution says so).
async fn show_filters(trainer: &Trainer, v: View) -> Result<(), RunError> {
    let params = trainer.params().await?;
    let Some((f, ch, k, w)) = first_filters(&trainer.compiled, &params) else {
        v.smoothness.set(None);
        if let Some(x) = v.canvases.filters.get_untracked() {
            if let Some(ctx) = crate::draw::context(&x) {
                ctx.set_fill_style_str("#ffffff");
                ctx.fill_rect(0.0, 0.0, x.width() as f64, x.height() as f64);
                ctx.set_fill_style_str("#333");
                let _ = ctx.fill_text("this network has no convolution", 10.0, 20.0);
            }
        }
        return Ok(());
    };
    let change: Option<Vec<f32>> = v.filter_start.with_untracked(|s| {
        s.as_ref()
            .filter(|s| s.len() == w.len())
            .map(|s| w.iter().zip(s).map(|(a, b)| a - b).collect())
    });
    v.smoothness.set(Some((
        filter_smoothness(k, &w),
        change.as_ref().map(|d| filter_smoothness(k, d)),
    )));
    if let Some(x) = v.canvases.filters.get_untracked() {
        draw::filters(&x, f.min(16), ch, k, &w, change.as_deref());
    }
    Ok(())
}

/// Scores the test images and draws filters, confusion matrix and misses.
pub async fn inspect(m: &mut Model, v: View) -> Result<(), RunError> {
    let c = v.canvases;
    let mut probs = Vec::new();
    for start in (0..m.test.len()).step_by(500) {
        let rows: Vec<usize> = (start..(start + 500).min(m.test.len())).collect();
        probs.extend(m.trainer.probabilities(&m.test.rows(&rows)).await?);
        next_frame().await;
    }
    let e = evaluation(&probs, &m.test.y, 10);
    v.per_class.set(e.per_class.clone());
    v.most_confused.set(e.most_confused());
    if let Some(x) = c.confusion.get_untracked() {
        draw::confusion(&x, &e, names(&m.set));
    }
    if let Some(x) = c.misses.get_untracked() {
        let test = &m.test;
        draw::misses(&x, &e.misclassified[..e.misclassified.len().min(32)], &|i| {
            test.point(i).to_vec()
        });
    }
    show_filters(&m.trainer, v).await?;
    m.evaluation = Some(e);
    Ok(())
}

/// A saved model (this page's or `lab train --save-model`'s), ready to classify.
pub async fn load_model(
    name: &str,
    text: &str,
    webgpu: bool,
    status: RwSignal<String>,
) -> Result<Model, RunError> {
    let bad = |source| RunError::BadModel {
        name: name.to_string(),
        source,
    };
    let saved = ModelExport::from_json(text).map_err(bad)?;
    // Checked before the trainer is built: wasm memory, once grown, never shrinks.
    saved.check_sizes(10).map_err(bad)?;
    let DataConfig::Images(images) = &saved.config.data else {
        return Err(RunError::NotImages(name.to_string()));
    };
    let set = images.set.clone();
    let config = TrainConfig {
        data: DataConfig::Images(ImageConfig {
            set: set.clone(),
            // Only predictions are needed, but a trainer wants at least a batch of data.
            train_limit: saved.config.batch.clamp(1, 1000),
            test_limit: TEST_IMAGES,
        }),
        ..saved.config.clone()
    };
    let gpu = crate::gpu::gpu_if(webgpu, status).await;
    let (train, test) = fetch::data(&config).await?;
    let mut trainer = Trainer::with_data(config, train, gpu, 500).await?;
    saved
        .load_weights(&mut trainer)
        .map_err(bad)?;
    Ok(Model {
        trainer,
        test,
        set,
        evaluation: None,
    })
}
