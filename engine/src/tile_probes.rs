//! The products `autotune::autotune` times each tile shape on: plain products of given sizes, and
//! the first layer's forward product as a training step runs it, gathering its rows from the
//! data set through the batch's indices (`shaders/matmul_fused.wgsl`). The gathered product
//! is timed apart because its copy into workgroup memory, two dependent reads a value, favours
//! shapes with more invocations copying (on an H100, before the split shape fetched ahead, 32 × 32
//! with k split four ways ran it in half the time of plain 32 × 32, which a plain product of the
//! same size hardly showed). On a real GPU the autotune also times the convolutions' weight
//! gradients, W2's two, under each cap on their chunks, and then all of W2's convolution GEMMs
//! in wide and in narrow tiles.

use crate::backend::Backend;
use crate::kernel::{BufId, BufferTable, Elem, Kernel};
use crate::ops::conv2d::{backward_kernels, BackwardBuffers, Conv2dForward, ConvGeom};
use crate::ops::fused::{Epilogue, FusedBuffers, FusedMatmul, Product};
use crate::ops::matmul::{Matmul, MatmulDims};
use crate::plan::Plan;
use crate::tiles::TileShape;

/// (m, n, k) of the gathered product timed: W1's first layer (batch 64, 784 inputs, 128 units).
pub const GATHERED_PROBE: (usize, usize, usize) = (64, 128, 784);
/// Rows of the stand-in data set the gathered probe reads.
const DATA_ROWS: usize = 256;

/// W2's convolutions (batch 64; 1 → 8 channels at 28 × 28, then 8 → 16 at 12 × 12; 5 × 5
/// kernels, no padding): their weight gradients time the caps on the chunks.
pub const CONV_PROBES: [ConvGeom; 2] = [conv_probe(1, 28, 8), conv_probe(8, 12, 16)];

const fn conv_probe(in_c: usize, side: usize, out_c: usize) -> ConvGeom {
    ConvGeom {
        batch: 64,
        in_c,
        in_h: side,
        in_w: side,
        out_c,
        k_h: 5,
        k_w: 5,
        stride: 1,
        pad: 0,
        w_off: 0,
        b_off: out_c * in_c * 25,
    }
}

/// A class of probe products. In every probe plan buffer 2 is an output, read back to wait for
/// the device.
#[derive(Clone, Copy, Debug)]
pub enum Probes {
    /// Plain products: A, B and C of product i at buffers 3i, 3i + 1, 3i + 2.
    Products(&'static [(usize, usize, usize)]),
    /// `GATHERED_PROBE`: the batch at 0, B at 1, C at 2, the indices at 3 and the data set's
    /// bytes at 4.
    Gathered,
    /// `CONV_PROBES`' weight gradients, each its weight and bias gradient and the sum of its
    /// chunks: convolution i's input at 4i, output gradient at 4i + 1, gradients at 4i + 2 and
    /// partial sums at 4i + 3. The chunks follow the context's cap (`TilePlan::conv_chunks`).
    ConvGradients,
    /// Every GEMM of `CONV_PROBES` that a training step runs: each convolution's forward and
    /// weight gradient (with its reduce), and the second one's input gradient. Convolution i's
    /// input at 6i, weights at 6i + 1, output at 6i + 2, output gradient at 6i + 3, partial sums
    /// at 6i + 4 and gradients at 6i + 5; the second's input gradient at 12. The tiles follow the
    /// context's plan (`TilePlan::conv_narrow`).
    Convolutions,
}

impl Probes {
    /// The probes as one plan on `tiles`, each product `repeats` times.
    pub fn plan(self, tiles: TileShape, repeats: usize) -> Plan {
        let mut t = BufferTable::default();
        let mut kernels: Vec<Box<dyn Kernel>> = Vec::new();
        match self {
            Probes::Products(sizes) => {
                for &(m, n, k) in sizes {
                    let (a, b, c) = (
                        t.add("a", Elem::F32, m * k),
                        t.add("b", Elem::F32, k * n),
                        t.add("c", Elem::F32, m * n),
                    );
                    for _ in 0..repeats {
                        let mut product = Matmul::new(a, b, c, MatmulDims::row_major(m, n, k));
                        product.tiles = Some(tiles);
                        kernels.push(Box::new(product));
                    }
                }
            }
            Probes::Gathered => {
                let (m, n, k) = GATHERED_PROBE;
                let first = Product {
                    a: t.add("batch", Elem::F32, m * k),
                    b: t.add("b", Elem::F32, k * n),
                    out: t.add("c", Elem::F32, m * n),
                    dims: MatmulDims::row_major(m, n, k),
                    gathered: true,
                    b_gathered: false,
                    bias: None,
                    epilogue: Epilogue::None,
                    ones: None,
                };
                let buffers = FusedBuffers {
                    indices: t.add("indices", Elem::U32, m),
                    data: t.add("data", Elem::U32, DATA_ROWS * k / 4),
                    packed: true,
                    unused_f32: t.add("unused_f32", Elem::F32, 1),
                    unused_u32: t.add("unused_u32", Elem::U32, 1),
                    unused_aux: t.add("unused_aux", Elem::F32, 1),
                    unused_out: t.add("unused_out", Elem::F32, 1),
                };
                for _ in 0..repeats {
                    kernels.push(Box::new(FusedMatmul {
                        first,
                        second: None,
                        buffers,
                        replaces: Vec::new(),
                        parallel: 0,
                        tiles: Some(tiles),
                        fetch_ahead: false,
                        block: false,
                        quads: false,
                    }));
                }
            }
            Probes::ConvGradients => {
                for g in CONV_PROBES {
                    let input = t.add("input", Elem::F32, g.in_len());
                    let d_out = t.add("d_out", Elem::F32, g.out_len());
                    let grads = t.add("grads", Elem::F32, g.partial_len());
                    let partials = t.add("partials", Elem::F32, g.chunk_slots() * g.partial_len());
                    let buffers = BackwardBuffers {
                        input,
                        d_out,
                        d_in: None,
                        // Read only by an input gradient, which this probe has none of.
                        params: input,
                        partials,
                        grads,
                    };
                    for _ in 0..repeats {
                        kernels.extend(backward_kernels(g, buffers));
                    }
                }
            }
            Probes::Convolutions => {
                for (i, g) in CONV_PROBES.into_iter().enumerate() {
                    let input = t.add("input", Elem::F32, g.in_len());
                    let params = t.add("params", Elem::F32, g.partial_len());
                    let output = t.add("output", Elem::F32, g.out_len());
                    let d_out = t.add("d_out", Elem::F32, g.out_len());
                    let partials = t.add("partials", Elem::F32, g.chunk_slots() * g.partial_len());
                    let grads = t.add("grads", Elem::F32, g.partial_len());
                    let d_in = (i == 1).then(|| t.add("d_in", Elem::F32, g.in_len()));
                    let buffers = BackwardBuffers {
                        input,
                        d_out,
                        d_in,
                        params,
                        partials,
                        grads,
                    };
                    for _ in 0..repeats {
                        kernels.push(Box::new(Conv2dForward::single(input, params, output, g)));
                        kernels.extend(backward_kernels(g, buffers));
                    }
                }
            }
        }
        Plan::of_kernels(t, kernels)
    }

    /// Writes the probes' inputs.
    pub fn fill(self, b: &mut Backend) {
        match self {
            Probes::Products(sizes) => {
                for (i, &(m, n, k)) in sizes.iter().enumerate() {
                    b.write_f32(BufId(3 * i), &vec![0.5; m * k]);
                    b.write_f32(BufId(3 * i + 1), &vec![0.25; k * n]);
                }
            }
            Probes::Gathered => {
                let (m, n, k) = GATHERED_PROBE;
                b.write_f32(BufId(1), &vec![0.25; k * n]);
                // Rows spread over the data set, as a shuffled batch's are.
                let indices: Vec<u32> = (0..m).map(|r| ((r * 37) % DATA_ROWS) as u32).collect();
                b.write_u32(BufId(3), &indices);
                let bytes: Vec<u32> = (0..DATA_ROWS * k / 4)
                    .map(|i| (i as u32).wrapping_mul(2_654_435_761))
                    .collect();
                b.write_u32(BufId(4), &bytes);
            }
            Probes::ConvGradients => {
                for (i, g) in CONV_PROBES.iter().enumerate() {
                    b.write_f32(BufId(4 * i), &vec![0.5; g.in_len()]);
                    b.write_f32(BufId(4 * i + 1), &vec![0.25; g.out_len()]);
                }
            }
            Probes::Convolutions => {
                for (i, g) in CONV_PROBES.iter().enumerate() {
                    b.write_f32(BufId(6 * i), &vec![0.5; g.in_len()]);
                    b.write_f32(BufId(6 * i + 1), &vec![0.125; g.partial_len()]);
                    b.write_f32(BufId(6 * i + 3), &vec![0.25; g.out_len()]);
                }
            }
        }
    }
}
