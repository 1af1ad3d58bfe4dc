//! The structured rows' real time: the forward pass over the test images of the trained dense
//! network, of the smaller dense network its structured pruning leaves, and (an MLP) of the
//! unstructured pruned network stored in CSR (`engine::sparse`), each on the page's backend and
//! timed after a first pass that compiles its pipelines. Figures, not assertions.

use crate::error::RunError;
use std::rc::Rc;

use engine::data::Dataset;
use engine::gpu::GpuContext;
use engine::sparse::SparseMlp;
use engine::train::{TrainConfig, Trainer};
use lab_sims::sparsity::masks;
use lab_sims::sparsity::record::Structured;
use lab_sims::sparsity::structured::{compact, prune_both, smaller_config};
use lab_state::sparsity::PREDICT_ROWS;

use crate::frame::now_ms;

/// Milliseconds of `trainer.evaluate(test)`, after one untimed pass.
async fn timed(trainer: &mut Trainer, test: &Dataset) -> Result<f64, RunError> {
    trainer.evaluate(test).await?;
    let start = now_ms();
    trainer.evaluate(test).await?;
    Ok(now_ms() - start)
}

/// Milliseconds of the CSR network's pass over `test`, after one untimed pass.
async fn timed_csr(sparse: &mut SparseMlp, test: &Dataset) -> Result<f64, RunError> {
    sparse.accuracy(test).await?;
    let start = now_ms();
    sparse.accuracy(test).await?;
    Ok(now_ms() - start)
}

/// Fills each row's `ms` (the dense network `dense` holds against its smaller network) and, for
/// an MLP, `csr_ms`.
pub async fn time_rows(
    rows: &mut [Structured],
    dense: &mut Trainer,
    (config, train, test): (&TrainConfig, &Dataset, &Dataset),
    gpu: Option<Rc<GpuContext>>,
) -> Result<(), RunError> {
    let trained = dense.params().await?;
    let full = timed(dense, test).await?;
    for row in rows.iter_mut() {
        let Some(pruned) = prune_both(&trained, &dense.compiled, row.sparsity) else {
            continue;
        };
        let (Some(small), Some((smaller, _))) = (
            compact(&trained, &dense.compiled, &pruned.kept),
            smaller_config(config, &dense.compiled, &pruned.widths),
        ) else {
            continue;
        };
        let mut t = Trainer::with_data(smaller, train.clone(), gpu.clone(), PREDICT_ROWS)
            .await
            ?;
        t.set_params(&small)?;
        row.ms = Some((full, timed(&mut t, test).await?));
        // A CNN has no CSR pass here (`SparseMlp` runs dense layers): its cell says so.
        let unstructured = masks::apply(&trained, &pruned.unstructured);
        if let Ok(mut sparse) =
            SparseMlp::new(&dense.compiled, &unstructured, PREDICT_ROWS, gpu.clone()).await
        {
            row.csr_ms = Some(timed_csr(&mut sparse, test).await?);
        }
    }
    Ok(())
}
