//! The structured rows' real time: the forward pass over the test images of the trained dense
//! network and of the smaller dense network its neuron pruning leaves, on the page's backend
//! (each timed after a first pass that compiles its pipelines). Figures, not assertions.

use std::rc::Rc;

use engine::data::Dataset;
use engine::gpu::GpuContext;
use engine::train::{ModelConfig, TrainConfig, Trainer};
use lab_sims::sparsity::record::Structured;
use lab_sims::sparsity::structured::{compact, neuron_mask};
use lab_state::sparsity::PREDICT_ROWS;

use crate::frame::now_ms;

/// Milliseconds of `trainer.evaluate(test)`, after one untimed pass.
async fn timed(trainer: &mut Trainer, test: &Dataset) -> Result<f64, String> {
    trainer.evaluate(test).await.map_err(|e| e.to_string())?;
    let start = now_ms();
    trainer.evaluate(test).await.map_err(|e| e.to_string())?;
    Ok(now_ms() - start)
}

/// Fills each row's `ms`: the dense network `dense` holds against its smaller network.
pub async fn time_rows(
    rows: &mut [Structured],
    dense: &mut Trainer,
    (config, train, test): (&TrainConfig, &Dataset, &Dataset),
    gpu: Option<Rc<GpuContext>>,
) -> Result<(), String> {
    let trained = dense.params().await.map_err(|e| e.to_string())?;
    let full = timed(dense, test).await?;
    for row in rows.iter_mut() {
        let Some((_, kept)) = neuron_mask(&trained, &dense.compiled, &row.widths) else {
            continue;
        };
        let Some(small) = compact(&trained, &dense.compiled, &kept) else {
            continue;
        };
        let activation = match &config.model {
            ModelConfig::Mlp { activation, .. } => *activation,
            ModelConfig::Layers { .. } => continue,
        };
        let smaller = TrainConfig {
            model: ModelConfig::Mlp {
                hidden: row.widths[1..row.widths.len() - 1].to_vec(),
                activation,
            },
            masked: false,
            ..config.clone()
        };
        let mut t = Trainer::with_data(smaller, train.clone(), gpu.clone(), PREDICT_ROWS)
            .await
            .map_err(|e| e.to_string())?;
        t.set_params(&small).map_err(|e| e.to_string())?;
        row.ms = Some((full, timed(&mut t, test).await?));
    }
    Ok(())
}
