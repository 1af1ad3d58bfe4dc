//! The training step as a computation graph (docs/theory.md §11.5): a node per teaching kernel
//! of `Plan::train` (one op each: forward, loss, backward, update), an edge wherever one node
//! reads a tensor another wrote, each tensor with its shape, and the fused kernel that runs the
//! node when fusion is on. What a node reads and writes comes from its shader's bindings
//! (`var<storage, read>` or `read_write`), so the graph is the plan's own dataflow, not a drawing
//! of it.

use serde::{Deserialize, Serialize};

use super::Plan;
use crate::kernel::{BufId, Kernel};
use crate::model::{Compiled, Layer};
use crate::ops::conv2d::{Conv2dBackwardInput, Conv2dBackwardWeight, Conv2dForward, ConvGeom};
use crate::ops::matmul::Matmul;
use crate::ops::pool::PoolKind;

/// Where a node sits in the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Gathering the batch from the data set.
    Batch,
    Forward,
    Loss,
    Backward,
    Update,
}

/// A tensor a node reads or writes: its buffer's name and its shape (rows first; a model's
/// state — the parameters, their gradients, the optimizer's — as one flat vector).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tensor {
    pub name: String,
    pub shape: Vec<usize>,
}

impl Tensor {
    /// "64×128".
    pub fn dims(&self) -> String {
        dims(&self.shape)
    }
}

fn dims(shape: &[usize]) -> String {
    shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("×")
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// The kernel's name (`Kernel::name`).
    pub op: String,
    pub phase: Phase,
    /// The model layer it belongs to (forward or backward); None for the batch, loss, update.
    pub layer: Option<usize>,
    /// That layer in words: "dense 128", "conv 5×5×8", "ReLU", "max-pool 2".
    #[serde(default)]
    pub layer_kind: Option<String>,
    /// A product's operands, "64×784 · 784×128" (a convolution's: input ⊛ filters).
    pub product: Option<String>,
    pub reads: Vec<Tensor>,
    pub writes: Vec<Tensor>,
    pub flops: f64,
    pub bytes: f64,
    /// The kernel of `Plan::fused` that runs this node while fusion is on.
    pub fused_kernel: usize,
}

/// `to` reads `tensor` that `from` wrote.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub tensor: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepGraph {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

impl StepGraph {
    /// The FLOPs of a phase's nodes.
    pub fn flops_of(&self, phase: Phase) -> f64 {
        self.nodes
            .iter()
            .filter(|n| n.phase == phase)
            .map(|n| n.flops)
            .sum()
    }

    /// The forward FLOPs of the first layer that has any: the input gradient the backward skips
    /// (nothing needs the data's gradient) would cost as much again.
    pub fn first_layer_forward_flops(&self) -> f64 {
        let forward = || {
            self.nodes
                .iter()
                .filter(|n| n.phase == Phase::Forward && n.flops > 0.0)
        };
        let Some(first) = forward().find_map(|n| n.layer) else {
            return 0.0;
        };
        forward()
            .filter(|n| n.layer == Some(first))
            .map(|n| n.flops)
            .sum()
    }
}

/// The model's state: whole-run buffers that kernels update in slices (each layer its own part
/// of the parameters and gradients). A kernel binding one `read_write` writes its slice without
/// reading the others', so every writer feeds a later reader.
fn is_state(name: &str) -> bool {
    ["params", "grads", "optimizer.", "norm.", "log.", "data."]
        .iter()
        .any(|p| name.starts_with(p))
}

/// Each binding's access in the shader: true where it is `read_write`.
pub(crate) fn writable(source: &str, binding: u32) -> bool {
    let tag = format!("@binding({binding})");
    source
        .lines()
        .find(|l| l.contains(&tag) && l.contains("var<storage"))
        .is_some_and(|l| l.contains("read_write"))
}

/// The shape of each buffer the graph names: the batch and each layer's output from the model
/// (rows first), a gradient's as its tensor's, the rest flat.
fn shapes(plan: &Plan, model: &Compiled) -> Vec<Vec<usize>> {
    let rows = plan.batch;
    let sample = |s: [usize; 3]| {
        let mut v = vec![rows];
        let keep = s.iter().rposition(|d| *d != 1).map_or(1, |i| i + 1);
        v.extend_from_slice(&s[..keep]);
        v
    };
    let specs = &plan.table.specs;
    let mut shape: Vec<Vec<usize>> = specs.iter().map(|s| vec![s.len]).collect();
    for (i, act) in plan.layers.acts.iter().enumerate() {
        let s = match i {
            0 => model.layers.first().map(|l| l.in_shape),
            _ => model.layers.get(i - 1).map(|l| l.out_shape),
        };
        if let Some(s) = s {
            shape[act.0] = sample(s);
        }
    }
    let acts = &plan.layers.acts;
    let classes = acts.last().map(|a| shape[a.0].clone());
    for (i, spec) in specs.iter().enumerate() {
        let name = spec.name.as_str();
        // The gradient of acts[n] (train.d_act{n}) or a pool's arg-max beside it has its shape.
        let n = ["train.d_act", "train.argmax"]
            .iter()
            .find_map(|p| name.strip_prefix(p)?.parse::<usize>().ok());
        if let Some(act) = n.and_then(|n| acts.get(n)) {
            shape[i] = shape[act.0].clone();
        } else if name == "batch.d_logits" {
            shape[i] = classes.clone().unwrap_or_else(|| vec![spec.len]);
        }
    }
    shape
}

fn conv_shapes(g: &ConvGeom) -> (String, String, String) {
    (
        dims(&[g.batch, g.in_c, g.in_h, g.in_w]),
        dims(&[g.out_c, g.in_c, g.k_h, g.k_w]),
        dims(&[g.batch, g.out_c, g.out_h(), g.out_w()]),
    )
}

/// A product's operands, in the op's own terms.
fn product(k: &dyn Kernel) -> Option<String> {
    let any = k.as_any();
    if let Some(m) = any.downcast_ref::<Matmul>() {
        let d = m.dims;
        let batch = if d.batch > 1 {
            format!("{} × ", d.batch)
        } else {
            String::new()
        };
        return Some(format!("{batch}{}×{} · {}×{}", d.m, d.k, d.k, d.n));
    }
    if let Some(c) = any.downcast_ref::<Conv2dForward>() {
        let (x, w, _) = conv_shapes(&c.g);
        return Some(format!("{x} ⊛ {w}"));
    }
    if let Some(c) = any.downcast_ref::<Conv2dBackwardWeight>() {
        let (x, _, y) = conv_shapes(&c.g);
        return Some(format!("{x} ⊛ {y}"));
    }
    if let Some(c) = any.downcast_ref::<Conv2dBackwardInput>() {
        let (_, w, y) = conv_shapes(&c.g);
        return Some(format!("{y} ⊛ {w}ᵀ"));
    }
    None
}

/// For each teaching kernel, the fused kernel that runs it: the fused list covers the teaching
/// list in order, a kernel of one op covering one and a fused kernel its parts. None where the
/// two lists do not line up that way.
fn fused_kernels(plan: &Plan) -> Option<Vec<usize>> {
    let mut of = Vec::with_capacity(plan.train.len());
    for (f, k) in plan.fused.iter().enumerate() {
        let names: Vec<String> = if k.parts().is_empty() {
            vec![k.name()]
        } else {
            k.parts().iter().map(|p| p.name()).collect()
        };
        for name in names {
            (plan.train.get(of.len())?.name() == name).then_some(())?;
            of.push(f);
        }
    }
    (of.len() == plan.train.len()).then_some(of)
}

fn layer_kind(l: &Layer) -> String {
    match l {
        Layer::Dense { units } => format!("dense {units}"),
        Layer::Conv2d { filters, kernel, .. } => format!("conv {kernel}×{kernel}×{filters}"),
        Layer::Pool { kind, size, .. } => match kind {
            PoolKind::Max => format!("max-pool {size}"),
            PoolKind::Avg => format!("average-pool {size}"),
        },
        Layer::Activation { kind } => kind.label().into(),
        Layer::Flatten => "flatten".into(),
        Layer::Dropout { .. } => "dropout".into(),
        Layer::BatchNorm { .. } => "batch norm".into(),
        Layer::LayerNorm => "layer norm".into(),
        Layer::Residual { .. } | Layer::SkipFrom | Layer::SkipAdd { .. } => "residual".into(),
    }
}

fn phase_of(plan: &Plan, i: usize) -> (Phase, Option<usize>) {
    let spans = &plan.layers;
    if let Some(l) = spans.forward.iter().position(|r| r.contains(&i)) {
        return (Phase::Forward, Some(l));
    }
    if let Some(l) = spans.backward.iter().position(|r| r.contains(&i)) {
        return (Phase::Backward, Some(l));
    }
    let first_forward = spans.forward.iter().map(|r| r.start).min().unwrap_or(0);
    if i >= plan.optimizer_start {
        (Phase::Update, None)
    } else if i < first_forward {
        (Phase::Batch, None)
    } else {
        (Phase::Loss, None)
    }
}

impl Plan {
    /// The training step's graph, from the teaching kernels and the model's shapes.
    pub fn graph(&self, model: &Compiled) -> StepGraph {
        let shape = shapes(self, model);
        let specs = &self.table.specs;
        let tensor = |id: BufId| Tensor {
            name: specs[id.0].name.clone(),
            shape: shape[id.0].clone(),
        };
        let fused = fused_kernels(self).unwrap_or_else(|| (0..self.train.len()).collect());
        let mut nodes = Vec::with_capacity(self.train.len());
        let mut edges = Vec::new();
        // Each buffer's writers so far, in order.
        let mut writers: Vec<Vec<usize>> = vec![Vec::new(); specs.len()];
        for (i, k) in self.train.iter().enumerate() {
            let source = k.shader().source;
            let (mut reads, mut writes, mut written_ids) = (Vec::new(), Vec::new(), Vec::new());
            let mut bindings = k.bindings();
            bindings.sort_by_key(|(b, _)| *b);
            for (binding, id) in bindings {
                let state = is_state(&specs[id.0].name);
                let written = writable(source, binding);
                // A state buffer bound read_write is written in a slice, which the update reads;
                // another is read in place only when an earlier node wrote it.
                let read = !written
                    || if state {
                        i >= self.optimizer_start
                    } else {
                        !writers[id.0].is_empty()
                    };
                if read {
                    let from: &[usize] = match (state, writers[id.0].last()) {
                        (true, _) => &writers[id.0],
                        (false, Some(last)) => std::slice::from_ref(last),
                        (false, None) => &[],
                    };
                    edges.extend(from.iter().map(|&from| Edge {
                        from,
                        to: i,
                        tensor: specs[id.0].name.clone(),
                    }));
                    reads.push(tensor(id));
                }
                if written {
                    writes.push(tensor(id));
                    written_ids.push(id);
                }
            }
            for id in written_ids {
                writers[id.0].push(i);
            }
            let (phase, layer) = phase_of(self, i);
            nodes.push(Node {
                op: k.name(),
                phase,
                layer,
                layer_kind: layer
                    .and_then(|l| model.layers.get(l))
                    .map(|l| layer_kind(&l.layer)),
                product: product(k.as_ref()),
                reads,
                writes,
                flops: k.flops(),
                bytes: k.bytes(),
                fused_kernel: fused[i],
            });
        }
        StepGraph { nodes, edges }
    }
}
