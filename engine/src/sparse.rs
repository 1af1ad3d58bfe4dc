//! An MLP whose weights are stored in compressed sparse row form (`ops::spmm`) and run forward
//! only: what an unstructured pruned network costs when its zeros are neither stored nor
//! multiplied, on the GPU or the CPU path (the sparsity lab times it against the dense network).

use std::rc::Rc;

use crate::backend::{Backend, Pass};
use crate::data::Dataset;
use crate::error::Error;
use crate::gpu::GpuContext;
use crate::kernel::{BufId, BufferTable, Elem, Kernel, StepScalars};
use crate::model::{Compiled, Layer};
use crate::ops::activation::Activation;
use crate::ops::spmm::{Csr, Spmm};
use crate::plan::Plan;

/// A layer's CSR matrix and bias, with where the backend holds them.
struct SparseLayer {
    csr: Csr,
    bias: Vec<f32>,
    bufs: [BufId; 4],
}

pub struct SparseMlp {
    backend: Backend,
    layers: Vec<SparseLayer>,
    x: BufId,
    out: BufId,
    batch: usize,
    inputs: usize,
    classes: usize,
}

/// The dense layers of an MLP of ReLUs (flatten and dropout aside), or why not.
fn dense_layers(compiled: &Compiled) -> Result<Vec<&crate::model::CompiledLayer>, Error> {
    let mut dense = Vec::new();
    for l in &compiled.layers {
        match l.layer {
            Layer::Dense { .. } => dense.push(l),
            Layer::Activation {
                kind: Activation::Relu,
            }
            | Layer::Flatten
            | Layer::Dropout { .. } => {}
            _ => {
                return Err(Error::Config(
                    "the sparse (CSR) forward pass runs an MLP of dense layers and ReLUs".into(),
                ))
            }
        }
    }
    Ok(dense)
}

impl SparseMlp {
    /// `params` (the model's flat parameters, pruned weights zero) stored as CSR, to run `batch`
    /// samples at a time on the GPU `gpu` gives, else on the CPU path.
    pub async fn new(
        compiled: &Compiled,
        params: &[f32],
        batch: usize,
        gpu: Option<Rc<GpuContext>>,
    ) -> Result<Self, Error> {
        let dense = dense_layers(compiled)?;
        let (Some(first), Some(last)) = (dense.first(), dense.last()) else {
            return Err(Error::Config(
                "the sparse forward pass needs a dense layer".into(),
            ));
        };
        let (inputs, classes) = (first.in_len(), last.out_len());
        let mut table = BufferTable::default();
        let x = table.add("x", Elem::F32, batch * inputs);
        let (mut layers, mut kernels): (Vec<SparseLayer>, Vec<Box<dyn Kernel>>) = (Vec::new(), Vec::new());
        let mut input = x;
        for (k, l) in dense.iter().enumerate() {
            let (rows, columns) = (l.out_len(), l.in_len());
            let csr = Csr::from_dense(&params[l.w_off..l.w_off + l.w_len], rows, columns)?;
            let bufs = [
                table.add(&format!("row_ptr{k}"), Elem::U32, csr.row_ptr.len()),
                table.add(&format!("cols{k}"), Elem::U32, csr.packed_cols().len()),
                table.add(&format!("values{k}"), Elem::F32, csr.values.len()),
                table.add(&format!("bias{k}"), Elem::F32, rows),
            ];
            let y = table.add(&format!("y{k}"), Elem::F32, batch * rows);
            kernels.push(Box::new(Spmm {
                row_ptr: bufs[0],
                cols: bufs[1],
                values: bufs[2],
                bias: bufs[3],
                x: input,
                y,
                rows,
                inputs: columns,
                batch,
                relu: k + 1 < dense.len(),
                nnz: csr.values.len(),
            }));
            layers.push(SparseLayer {
                bias: params[l.b_off..l.b_off + rows].to_vec(),
                csr,
                bufs,
            });
            input = y;
        }
        let plan = Plan::of_kernels(table, kernels);
        let mut backend = Backend::on(gpu, plan).await?;
        for l in &layers {
            backend.write_u32(l.bufs[0], &l.csr.row_ptr);
            backend.write_u32(l.bufs[1], &l.csr.packed_cols());
            // An all-pruned layer still has a (one-value) buffer.
            backend.write_f32(
                l.bufs[2],
                if l.csr.values.is_empty() {
                    &[0.0]
                } else {
                    &l.csr.values
                },
            );
            backend.write_f32(l.bufs[3], &l.bias);
        }
        Ok(Self {
            backend,
            layers,
            x,
            out: input,
            batch,
            inputs,
            classes,
        })
    }

    /// The kernels it runs, a `Spmm` per layer.
    pub fn plan(&self) -> &Plan {
        self.backend.plan()
    }

    /// Bytes of the weights as stored (biases aside): values, indices, row pointers.
    pub fn bytes(&self) -> usize {
        self.layers.iter().map(|l| l.csr.bytes()).sum()
    }

    /// The logits of `x`'s rows (at most `batch` of them), row after row.
    pub async fn forward(&mut self, x: &[f32]) -> Result<Vec<f32>, Error> {
        let rows = x.len() / self.inputs.max(1);
        if rows > self.batch || x.len() != rows * self.inputs {
            return Err(Error::Mismatch(format!(
                "{} values are not at most {} rows of {} inputs",
                x.len(),
                self.batch,
                self.inputs
            )));
        }
        self.backend.write_f32(self.x, x);
        self.backend.run(Pass::Train, &StepScalars::default());
        self.backend.read_f32(self.out, rows * self.classes).await
    }

    /// The share of `data` classified right, `batch` rows at a time.
    pub async fn accuracy(&mut self, data: &Dataset) -> Result<f32, Error> {
        if data.dim != self.inputs {
            return Err(Error::Mismatch(format!(
                "{} features against {} inputs",
                data.dim, self.inputs
            )));
        }
        let mut right = 0usize;
        for (chunk, labels) in data
            .x
            .chunks(self.batch * self.inputs)
            .zip(data.y.chunks(self.batch))
        {
            let logits = self.forward(chunk).await?;
            for (row, label) in logits.chunks(self.classes).zip(labels) {
                let best = (0..self.classes).fold(0, |b, c| if row[c] > row[b] { c } else { b });
                right += usize::from(best == *label as usize);
            }
        }
        Ok(right as f32 / data.len().max(1) as f32)
    }
}
