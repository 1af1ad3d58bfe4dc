//! A small decoder-only transformer trained on token sequences (docs/theory.md §12.4): token and
//! position embeddings, `blocks` blocks of causal multi-head self-attention and a GELU MLP, each
//! with a residual, and the output head tied to the token table, its loss at the sequence's last
//! position (the answer of modular addition, the next token of a copy); optionally pre-norm, a
//! layer norm before each attention and MLP and one before the head (GPT-2's layout). It runs
//! as one plan of kernels on either backend (`build` the forward and the head, `backward` the
//! rest), its parameters one flat buffer (`layout`) so the engine's optimizers update them as
//! they update any model's.

mod backward;
mod build;
mod kernels;
mod layout;

use std::rc::Rc;

use crate::backend::{Backend, Pass};
use crate::data::Dataset;
use crate::error::Error;
use crate::gpu::GpuContext;
use crate::kernel::StepScalars;
use crate::optim::Optimizer;
use crate::plan::LOG_CAPACITY;
use crate::rng::Rng;

pub use build::TransformerBuffers;
pub use layout::{decayed_slices, BlockOffsets, Layout};

/// The model's shape and the batch it trains on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransformerConfig {
    /// Tokens the model reads; the head scores all of them.
    pub vocab: usize,
    /// Tokens in a sequence.
    pub seq: usize,
    /// A token's vector (d_model).
    pub width: usize,
    pub heads: usize,
    /// The MLP's hidden width.
    pub hidden: usize,
    pub blocks: usize,
    /// Sequences a step.
    pub batch: usize,
    /// Pre-norm blocks (GPT-2's): a layer norm before the attention and before the MLP, and one
    /// after the last block.
    pub layer_norm: bool,
}

impl TransformerConfig {
    pub fn head_dim(&self) -> usize {
        self.width / self.heads.max(1)
    }
    pub fn validate(&self) -> Result<(), Error> {
        let sizes = [
            self.vocab,
            self.seq,
            self.width,
            self.heads,
            self.hidden,
            self.batch,
        ];
        if sizes.contains(&0) || !self.width.is_multiple_of(self.heads) {
            return Err(Error::Config(format!(
                "a transformer needs every size positive and its width divisible by its heads: {self:?}"
            )));
        }
        Ok(())
    }
}

pub struct TinyTransformer {
    pub config: TransformerConfig,
    pub layout: Layout,
    backend: Backend,
    bufs: TransformerBuffers,
    step: u32,
    rng: Rng,
}

/// The activations a training step keeps from its forward pass for its backward, in the
/// order the forward writes them: every buffer a forward kernel writes that the loss or the
/// backward binds, as (name, elements). Read from the kernels' bindings and their shaders'
/// access (a forward kernel writes what it binds `read_write`), so it is the step's own dataflow
/// (docs/theory.md §12.6).
pub fn kept_activations(config: &TransformerConfig) -> Vec<(String, usize)> {
    let (plan, _, bufs) = build::plan(config, Optimizer::adam());
    let specs = &plan.table.specs;
    let (forward, rest) = plan.train.split_at(bufs.forward_end);
    let backward = &rest[..plan.optimizer_start - bufs.forward_end];
    let mut written: Vec<crate::kernel::BufId> = Vec::new();
    for k in forward {
        let source = k.shader().source;
        for (binding, id) in k.bindings() {
            let write = crate::plan::graph::writable(source, binding);
            if write && !written.contains(&id) && specs[id.0].name != "params" {
                written.push(id);
            }
        }
    }
    // A backward kernel binds a forward activation only to read it (one shader may declare it
    // read_write for its forward entry).
    let read: Vec<crate::kernel::BufId> = backward
        .iter()
        .flat_map(|k| k.bindings())
        .map(|(_, id)| id)
        .collect();
    written
        .into_iter()
        .filter(|id| read.contains(id))
        .map(|id| (specs[id.0].name.clone(), specs[id.0].len))
        .collect()
}

/// Rows `rows` of `set` as the step reads them: their token ids, `seq` a row, and their answers.
pub fn batch_tokens(set: &Dataset, rows: &[usize]) -> (Vec<u32>, Vec<u32>) {
    let ids = rows
        .iter()
        .flat_map(|r| set.point(*r).iter().map(|t| *t as u32))
        .collect();
    (ids, rows.iter().map(|r| set.y[*r]).collect())
}

/// Initial parameters: embeddings and weights N(0, 1/fan_in), biases 0.
pub fn initial_params(c: &TransformerConfig, layout: &Layout, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    let mut p = vec![0.0; layout.n];
    let mut fill = |off: usize, len: usize, fan_in: usize| {
        let std = 1.0 / (fan_in as f32).sqrt();
        for v in &mut p[off..off + len] {
            *v = rng.normal() * std;
        }
    };
    fill(layout.table, c.vocab * c.width, c.width);
    fill(layout.pos, c.seq * c.width, c.width);
    for b in &layout.blocks {
        fill(b.qkv, 3 * c.width * c.width, c.width);
        fill(b.out, c.width * c.width, c.width);
        fill(b.w1, c.hidden * c.width, c.width);
        fill(b.w2, c.width * c.hidden, c.hidden);
    }
    // Layer norms start as the identity: γ 1, β 0.
    let norms = layout
        .blocks
        .iter()
        .flat_map(|b| [b.ln1, b.ln2])
        .chain([layout.ln_f]);
    for gamma in norms.flatten() {
        p[gamma..gamma + c.width].fill(1.0);
    }
    p
}

impl TinyTransformer {
    /// A model of `config` updated by `optimizer`, on the GPU `gpu` gives, else the CPU path.
    pub async fn new(
        config: TransformerConfig,
        optimizer: Optimizer,
        seed: u64,
        gpu: Option<Rc<GpuContext>>,
    ) -> Result<Self, Error> {
        config.validate()?;
        let (plan, layout, bufs) = build::plan(&config, optimizer);
        let mut backend = Backend::on(gpu, plan).await?;
        backend.write_f32(bufs.params, &initial_params(&config, &layout, seed));
        backend.write_u32(bufs.bounds, &[0, layout.n as u32]);
        Ok(Self {
            config,
            layout,
            backend,
            bufs,
            step: 0,
            rng: Rng::new(seed ^ 0x5eed),
        })
    }

    /// Puts rows `rows` of `set` (token ids as values, `seq` a row) in the batch.
    fn load(&mut self, set: &Dataset, rows: &[usize]) {
        let (ids, labels) = batch_tokens(set, rows);
        self.backend.write_u32(self.bufs.ids, &ids);
        self.backend.write_u32(self.bufs.labels, &labels);
    }

    /// A forward and backward pass over rows `rows` of `set`, with no update: the loss, the
    /// accuracy, the gradient and the attention of that batch are then in their buffers.
    fn pass(&mut self, set: &Dataset, rows: &[usize]) {
        self.load(set, rows);
        self.backend.run(
            Pass::Gradient,
            &StepScalars {
                t: self.step.max(1),
                ..Default::default()
            },
        );
    }

    fn check(&self, set: &Dataset) -> Result<(), Error> {
        let c = &self.config;
        let bad_token = set.x.iter().any(|t| *t < 0.0 || *t as usize >= c.vocab);
        if set.dim != c.seq || set.y.iter().any(|y| *y as usize >= c.vocab) || bad_token || set.is_empty() {
            return Err(Error::Config(format!(
                "the sequences do not fit the model: {} tokens a row (the model reads {}), ids below {}",
                set.dim, c.seq, c.vocab
            )));
        }
        Ok(())
    }

    /// The rows of a set of `len` rows the next training step reads (drawn with replacement):
    /// what [`Self::train`] reads, so another library can be given the same batches.
    pub fn next_rows(&mut self, len: usize) -> Vec<usize> {
        (0..self.config.batch).map(|_| self.rng.below(len)).collect()
    }

    /// `steps` updates on batches drawn from `set` (with replacement) at learning rate `lr`;
    /// returns each step's mean loss.
    pub async fn train(&mut self, set: &Dataset, steps: usize, lr: f32) -> Result<Vec<f32>, Error> {
        self.check(set)?;
        let mut losses = Vec::with_capacity(steps);
        // Steps whose loss is in the log but not yet read.
        let mut pending = 0;
        for s in 0..steps {
            let rows = self.next_rows(set.len());
            self.load(set, &rows);
            self.step += 1;
            let slot = (self.step as usize - 1) % LOG_CAPACITY;
            let scalars = StepScalars {
                slot: slot as u32,
                t: self.step,
                lr,
                ..Default::default()
            };
            self.backend.run(Pass::Train, &scalars);
            pending += 1;
            if slot == LOG_CAPACITY - 1 || s + 1 == steps {
                let log = self.backend.read_f32(self.bufs.log_loss, slot + 1).await?;
                losses.extend_from_slice(&log[slot + 1 - pending..=slot]);
                pending = 0;
            }
        }
        Ok(losses)
    }

    /// Accuracy and mean loss on every row of `set`, a batch at a time (no update).
    pub async fn evaluate(&mut self, set: &Dataset) -> Result<(f32, f32), Error> {
        self.check(set)?;
        let b = self.config.batch;
        let (mut correct, mut loss) = (0.0, 0.0);
        for start in (0..set.len()).step_by(b) {
            // A last, partial batch repeats its rows; only the first count.
            let rows: Vec<usize> = (0..b).map(|i| (start + i).min(set.len() - 1)).collect();
            let live = b.min(set.len() - start);
            self.pass(set, &rows);
            let c = self.backend.read_f32(self.bufs.correct, b).await?;
            let l = self.backend.read_f32(self.bufs.loss, b).await?;
            correct += c[..live].iter().sum::<f32>();
            loss += l[..live].iter().sum::<f32>();
        }
        Ok((correct / set.len() as f32, loss / set.len() as f32))
    }

    pub async fn params(&self) -> Result<Vec<f32>, Error> {
        self.backend.read_f32(self.bufs.params, self.layout.n).await
    }

    pub fn set_params(&mut self, params: &[f32]) {
        self.backend.write_f32(self.bufs.params, params);
    }

    /// The mean loss of one batch and its gradient (no update): `rows` of `set`.
    pub async fn loss_and_gradient(
        &mut self,
        set: &Dataset,
        rows: &[usize],
    ) -> Result<(f32, Vec<f32>), Error> {
        self.check(set)?;
        self.pass(set, rows);
        let loss = self.backend.read_f32(self.bufs.loss, self.config.batch).await?;
        let grads = self.backend.read_f32(self.bufs.grads, self.layout.n).await?;
        Ok((loss.iter().sum::<f32>() / loss.len() as f32, grads))
    }

    /// Every head's attention on rows `rows` of `set` (the batch's first rows; the last repeats
    /// to fill it), after a forward pass with no update: per block, `[batch, heads, seq, seq]`
    /// probabilities, a query's row over its keys.
    pub async fn attention_maps(&mut self, set: &Dataset, rows: &[usize]) -> Result<Vec<Vec<f32>>, Error> {
        self.check(set)?;
        let c = self.config;
        let last = *rows.last().unwrap_or(&0);
        let filled: Vec<usize> = (0..c.batch)
            .map(|i| rows.get(i).copied().unwrap_or(last).min(set.len() - 1))
            .collect();
        self.pass(set, &filled);
        let len = c.batch * c.heads * c.seq * c.seq;
        let mut out = Vec::with_capacity(c.blocks);
        for block in 0..c.blocks {
            out.push(self.backend.read_f32(self.bufs.probs[block], len).await?);
        }
        Ok(out)
    }

    /// The backend the model runs on ("CPU" or the GPU adapter's name).
    pub fn backend_name(&self) -> String {
        self.backend.name()
    }

    pub fn plan(&self) -> &crate::plan::Plan {
        self.backend.plan()
    }
}
