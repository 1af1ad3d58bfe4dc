//! Tensor (model) parallelism of dense layers, executed on real values (Shoeybi et al. 2019,
//! Megatron-LM; docs/theory.md §8.3). A layer y = x·W + b, W of `inputs × outputs` row-major, is
//! split across devices two ways: by **columns** (each device holds some outputs' weights and
//! computes those outputs: an allgather joins them) or by **rows** (each device holds some
//! inputs' weights and computes a partial sum of every output: an allreduce adds them). Megatron's
//! MLP block pairs them: the first layer by columns, the activation on each device's own columns,
//! the second layer by rows, so one allreduce per block replaces a gather between the layers.

use engine::collectives::chunk;
use engine::ops::gemm_cpu::gemm;
use engine::ops::matmul::MatmulDims;

/// A dense layer's weights: `w` is `inputs × outputs` row-major, `b` has `outputs` values.
#[derive(Clone, Copy, Debug)]
pub struct Dense<'a> {
    pub w: &'a [f32],
    pub b: &'a [f32],
    pub inputs: usize,
    pub outputs: usize,
}

/// x·W[k0..k1, c0..c1] for `rows` rows of x (row-major, `inputs` wide): the product one device
/// computes from its shard.
fn product(
    x: &[f32],
    rows: usize,
    layer: &Dense,
    (k0, k1): (usize, usize),
    (c0, c1): (usize, usize),
) -> Vec<f32> {
    let mut out = vec![0.0; rows * (c1 - c0)];
    let d = MatmulDims {
        m: rows,
        n: c1 - c0,
        k: k1 - k0,
        a_off: k0,
        a_rs: layer.inputs,
        a_cs: 1,
        b_off: k0 * layer.outputs + c0,
        b_rs: layer.outputs,
        b_cs: 1,
        ..Default::default()
    };
    gemm(x, layer.w, &mut out, &d);
    out
}

/// The unsplit layer: x·W + b.
pub fn dense(x: &[f32], rows: usize, layer: &Dense) -> Vec<f32> {
    let mut y = product(x, rows, layer, (0, layer.inputs), (0, layer.outputs));
    add_bias(&mut y, layer.b);
    y
}

/// Adds `b` to every row of `y` (rows `b.len()` wide).
fn add_bias(y: &mut [f32], b: &[f32]) {
    for row in y.chunks_mut(b.len().max(1)) {
        row.iter_mut().zip(b).for_each(|(v, bias)| *v += bias);
    }
}

/// What a split layer did: each device's output shard, the joined result, and the values each
/// device sent to join them (ring collectives).
#[derive(Clone, Debug, PartialEq)]
pub struct Split {
    pub shards: Vec<Vec<f32>>,
    pub y: Vec<f32>,
    pub sent_per_device: f64,
}

/// Column split over `devices`: device i computes outputs chunk(outputs, devices, i) with its
/// bias; an allgather (each device sends (N − 1)/N of the output) joins them.
pub fn column_split(x: &[f32], rows: usize, layer: &Dense, devices: usize) -> Split {
    let n = devices.max(1);
    let shards: Vec<Vec<f32>> = (0..n)
        .map(|i| {
            let (c0, c1) = chunk(layer.outputs, n, i);
            let mut y = product(x, rows, layer, (0, layer.inputs), (c0, c1));
            add_bias(&mut y, &layer.b[c0..c1]);
            y
        })
        .collect();
    let mut y = vec![0.0; rows * layer.outputs];
    for (i, shard) in shards.iter().enumerate() {
        let (c0, c1) = chunk(layer.outputs, n, i);
        for r in 0..rows {
            y[r * layer.outputs + c0..r * layer.outputs + c1]
                .copy_from_slice(&shard[r * (c1 - c0)..(r + 1) * (c1 - c0)]);
        }
    }
    let sent = (n - 1) as f64 / n as f64 * (rows * layer.outputs) as f64;
    Split {
        shards,
        y,
        sent_per_device: sent,
    }
}

/// Row split over `devices`: device i holds inputs chunk(inputs, devices, i) and computes their
/// partial sums of every output; an allreduce (2(N − 1)/N of the output per device) adds them,
/// in device order, and the bias is added once.
pub fn row_split(x: &[f32], rows: usize, layer: &Dense, devices: usize) -> Split {
    let n = devices.max(1);
    let shards: Vec<Vec<f32>> = (0..n)
        .map(|i| product(x, rows, layer, chunk(layer.inputs, n, i), (0, layer.outputs)))
        .collect();
    reduced(shards, layer.b)
}

/// The allreduce that ends a row split: the devices' partial sums added in device order, the
/// bias once; each device sends 2(N − 1)/N of the output.
fn reduced(shards: Vec<Vec<f32>>, bias: &[f32]) -> Split {
    let n = shards.len();
    let mut y = vec![0.0; shards.first().map_or(0, Vec::len)];
    for shard in &shards {
        y.iter_mut().zip(shard).for_each(|(a, v)| *a += v);
    }
    add_bias(&mut y, bias);
    let sent = 2.0 * (n - 1) as f64 / n as f64 * y.len() as f64;
    Split {
        shards,
        y,
        sent_per_device: sent,
    }
}

/// Megatron's MLP block, relu(x·W1 + b1)·W2 + b2, over `devices`: W1 by columns, each device's
/// hidden columns through the ReLU where they are, W2 by the matching rows, one allreduce.
pub fn megatron_mlp(x: &[f32], rows: usize, first: &Dense, second: &Dense, devices: usize) -> Split {
    let n = devices.max(1);
    let hidden = column_split(x, rows, first, n);
    let shards: Vec<Vec<f32>> = (0..n)
        .map(|i| {
            let (h0, h1) = chunk(first.outputs, n, i);
            let h: Vec<f32> = hidden.shards[i].iter().map(|v| v.max(0.0)).collect();
            // This device's hidden columns are the second layer's rows h0..h1.
            let mut out = vec![0.0; rows * second.outputs];
            let d = MatmulDims {
                m: rows,
                n: second.outputs,
                k: h1 - h0,
                a_rs: h1 - h0,
                a_cs: 1,
                b_off: h0 * second.outputs,
                b_rs: second.outputs,
                b_cs: 1,
                ..Default::default()
            };
            gemm(&h, second.w, &mut out, &d);
            out
        })
        .collect();
    reduced(shards, second.b)
}
