//! The fusion pass: the training step's kernel list with runs of teaching kernels replaced by
//! fused kernels that compute the same values in fewer dispatches (`ops::fused`). A dense
//! layer's product takes its bias and activation; its weight gradient takes the bias gradient
//! and shares a dispatch with its input gradient, which takes the activation's backward; the
//! loss takes its batch mean; and when every reader of the batch can read the data set through
//! the indices, the gather kernel goes. W1's step drops from 15 dispatches to 6.
//!
//! The plan keeps the unfused list too: it is what the kernel list view, the per-layer spans and
//! checkpointing's re-runs index.

use super::KernelList;
use crate::kernel::{BufId, BufferTable, Elem, Kernel, Points};
use crate::ops::activation::{ActBackward, ActForward};
use crate::ops::batch_mean::BatchMean;
use crate::ops::bias::{AddBias, BiasGrad};
use crate::ops::fused::{Epilogue, FusedBuffers, FusedMatmul, Product};
use crate::ops::gather::Gather;
use crate::ops::loss_head::LossHead;
use crate::ops::matmul::Matmul;
use crate::ops::softmax_xent::SoftmaxXent;

fn as_kind<T: 'static>(k: &dyn Kernel) -> Option<&T> {
    k.as_any().downcast_ref::<T>()
}

/// A product the fused kernel can take: one product, written (not added) from offset `c_off`
/// in dense rows.
fn plain(k: &dyn Kernel) -> Option<&Matmul> {
    as_kind::<Matmul>(k)
        .filter(|m| m.dims.products() == 1 && !m.dims.accumulate && m.dims.c_row_stride() == m.dims.n)
}

/// The gather kernel, when the first kernel to read its batch is a product that can read the
/// data set through the indices instead (and store the batch for the kernels after it). The
/// pass checks the rest as it goes (`fuse_with`).
fn removable_gather(train: &[Box<dyn Kernel>]) -> Option<&Gather> {
    let g = train.iter().find_map(|k| as_kind::<Gather>(k.as_ref()))?;
    let first_reader = train
        .iter()
        .map(|k| k.as_ref())
        .filter(|k| as_kind::<Gather>(*k).is_none())
        .find(|k| k.bindings().iter().any(|&(_, id)| id == g.batch_x))?;
    let m = plain(first_reader)?;
    let d = &m.dims;
    (m.a == g.batch_x && d.a_off == 0 && d.a_rs == g.dim && d.a_cs == 1 && m.b != g.batch_x).then_some(g)
}

struct Fuser<'a> {
    train: &'a [Box<dyn Kernel>],
    gather: Option<&'a Gather>,
    /// The gather kernel's twin, run by the first fused kernel that reads the data set.
    pending_gather: Option<Box<dyn Kernel>>,
    buffers: FusedBuffers,
}

impl Fuser<'_> {
    fn at(&self, i: usize, end: usize) -> Option<&dyn Kernel> {
        (i < end).then(|| self.train[i].as_ref())
    }

    fn product(&self, m: &Matmul) -> Product {
        // Only the first reader gathers: it stores the batch for the others.
        let gathered = self.pending_gather.is_some() && self.gather.is_some_and(|g| m.a == g.batch_x);
        // B's rows whole rows of the batch, starting on a word of the data set's bytes.
        let d = m.dims;
        let b_gathered = self.gather.is_some_and(|g| {
            g.packed
                && m.b == g.batch_x
                && d.b_cs == 1
                && d.batch <= 1
                && d.b_rs == g.dim
                && d.b_off + d.n <= g.dim
                && d.b_off.is_multiple_of(4)
                && g.dim.is_multiple_of(4)
        });
        Product {
            a: m.a,
            b: m.b,
            out: m.c,
            dims: d,
            gathered,
            b_gathered,
            bias: None,
            epilogue: Epilogue::None,
            ones: None,
        }
    }

    /// Z = X·Wᵀ followed by its bias and maybe its activation: how many kernels it takes.
    fn forward_epilogue(&self, p: &mut Product, i: usize, end: usize) -> usize {
        let d = p.dims;
        let Some(bias) = self.at(i, end).and_then(as_kind::<AddBias>).filter(|b| {
            b.z == p.out && b.params == p.b && b.points == Points::default() && b.rows == d.m && b.cols == d.n
        }) else {
            return 0;
        };
        p.bias = Some(bias.bias_off);
        let act = self
            .at(i + 1, end)
            .and_then(as_kind::<ActForward>)
            .filter(|a| a.z == p.out && a.n == d.m * d.n && d.c_off == 0 && a.h != p.b);
        if let Some(a) = act {
            p.epilogue = Epilogue::Activate { kind: a.kind, h: a.h };
            return 2;
        }
        1
    }

    /// dX = dY·W followed by the activation's backward below it.
    fn gradient_epilogue(&self, p: &mut Product, i: usize, end: usize) -> usize {
        let d = p.dims;
        let act = self
            .at(i, end)
            .and_then(as_kind::<ActBackward>)
            .filter(|a| a.dh == p.out && a.n == d.m * d.n && d.c_off == 0 && ![p.a, p.b].contains(&a.dz));
        match act {
            Some(a) => {
                p.out = a.dz;
                p.epilogue = Epilogue::ActivationGradient { kind: a.kind, z: a.z };
                1
            }
            None => 0,
        }
    }

    /// The fused kernel starting at kernel `i` and how many kernels it replaces, if any fuse.
    fn fused_at(&mut self, i: usize, end: usize) -> Option<(Box<dyn Kernel>, usize)> {
        let k = self.train[i].as_ref();
        if let Some(s) = as_kind::<SoftmaxXent>(k) {
            let mean = self.at(i + 1, end).and_then(as_kind::<BatchMean>).filter(|m| {
                m.loss == s.loss && m.correct == s.correct && m.batches <= 1 && m.rows == s.rows
            })?;
            let indices = self.gather.map(|_| self.buffers.indices);
            let labels = self.gather.map_or(s.labels, |g| g.data_y);
            let head = LossHead {
                logits: s.logits,
                labels,
                indices,
                unused_u32: self.buffers.unused_u32,
                loss: s.loss,
                correct: s.correct,
                dlogits: s.dlogits,
                log_loss: mean.log_loss,
                log_accuracy: mean.log_accuracy,
                rows: s.rows,
                classes: s.classes,
                replaces: vec![Box::new(s.clone()), Box::new(mean.clone())],
            };
            return Some((Box::new(head), 2));
        }
        let m = plain(k)?;
        let mut first = self.product(m);
        let mut used = 1 + self.forward_epilogue(&mut first, i + 1, end);
        let mut second = None;
        if used == 1 {
            let bias_grad = self
                .at(i + 1, end)
                .and_then(as_kind::<BiasGrad>)
                .filter(|g| g.dz == m.a && g.grads == m.c && g.rows == m.dims.k && g.cols == m.dims.m);
            if let Some(g) = bias_grad {
                first.ones = Some(g.bias_off);
                used += 1;
                // The input gradient reads the same dY: the same dispatch, when independent.
                let dx = self
                    .at(i + 2, end)
                    .and_then(plain)
                    .filter(|x| x.a == m.a && ![m.a, m.b, m.c].contains(&x.c) && ![x.a, x.b].contains(&m.c));
                if let Some(x) = dx {
                    let mut p = self.product(x);
                    if !p.gathered {
                        used += 1 + self.gradient_epilogue(&mut p, i + 3, end);
                        second = Some(p);
                    }
                }
            } else {
                used += self.gradient_epilogue(&mut first, i + 1, end);
            }
        }
        let gathers = first.gathered;
        if used == 1 && !gathers {
            return None;
        }
        let mut replaces: Vec<Box<dyn Kernel>> = Vec::new();
        if gathers {
            replaces.extend(self.pending_gather.take());
        }
        replaces.extend(self.train[i..i + used].iter().map(|k| k.boxed_copy()));
        let fused = FusedMatmul {
            first,
            second,
            buffers: self.buffers,
            replaces,
            parallel: 0,
            tiles: None,
            fetch_ahead: false,
            block: false,
            quads: false,
        };
        Some((Box::new(fused), used))
    }
}

/// The buffers fused kernels bind: the data set `train`'s gather reads (if it has one), and
/// stand-ins for the bindings a dispatch leaves unused.
pub(super) fn fused_buffers(t: &mut BufferTable, train: &[Box<dyn Kernel>]) -> FusedBuffers {
    let any = train.iter().find_map(|k| as_kind::<Gather>(k.as_ref()));
    FusedBuffers {
        indices: any.map_or(BufId(0), |g| g.indices),
        data: any.map_or(BufId(0), |g| g.data_x),
        packed: any.is_some_and(|g| g.packed),
        unused_f32: t.add("fused.unused_f32", Elem::F32, 1),
        unused_u32: t.add("fused.unused_u32", Elem::U32, 1),
        unused_aux: t.add("fused.unused_aux", Elem::F32, 1),
        unused_out: t.add("fused.unused_out", Elem::F32, 1),
    }
}

/// The fused list of `kernels` and where its optimizer kernels start (`optimizer_start` in the
/// unfused list; its length for a list without an update, such as prediction's).
pub(super) fn fuse(
    kernels: &[Box<dyn Kernel>],
    optimizer_start: usize,
    buffers: FusedBuffers,
) -> (KernelList, usize) {
    let gather = removable_gather(&kernels[..optimizer_start]);
    // Without a product that reads the data set first, the gather stays (nothing would run it).
    fuse_with(kernels, optimizer_start, buffers, gather)
        .unwrap_or_else(|| fuse_with(kernels, optimizer_start, buffers, None).expect("no gather to place"))
}

fn fuse_with(
    train: &[Box<dyn Kernel>],
    optimizer_start: usize,
    buffers: FusedBuffers,
    gather: Option<&Gather>,
) -> Option<(KernelList, usize)> {
    let mut fuser = Fuser {
        train,
        gather,
        pending_gather: None,
        buffers,
    };
    let mut out: KernelList = Vec::new();
    let mut new_start = None;
    let mut i = 0;
    while i < train.len() {
        if i >= optimizer_start && new_start.is_none() {
            new_start = Some(out.len());
        }
        let end = if i < optimizer_start {
            optimizer_start
        } else {
            train.len()
        };
        let k = train[i].as_ref();
        if gather.is_some() && as_kind::<Gather>(k).is_some() {
            fuser.pending_gather = Some(k.boxed_copy());
            i += 1;
            continue;
        }
        let (next, used) = fuser.fused_at(i, end).unwrap_or_else(|| (k.boxed_copy(), 1));
        // Without the gather, the batch exists only once the gathering product has run, and
        // its labels only through the indices (the loss head): anything else reading them
        // undoes the removal.
        if let Some(g) = gather {
            let reads = |id: BufId| next.bindings().iter().any(|&(_, b)| b == id);
            if (reads(g.batch_x) && fuser.pending_gather.is_some()) || reads(g.batch_y) {
                return None;
            }
        }
        out.push(next);
        i += used;
    }
    if fuser.pending_gather.is_some() {
        return None;
    }
    let start = new_start.unwrap_or(out.len());
    Some((out, start))
}
