//! A sparse layer's forward pass (`shaders/spmm.wgsl`): a weight matrix in compressed sparse row
//! form (CSR) times a batch of inputs, plus the bias, and a ReLU where asked. What an
//! unstructured pruned network runs when only its kept weights are stored: each kept weight's
//! value and its 16-bit column index, and a pointer per row (docs/theory.md §10.5).

use crate::error::Error;
use crate::kernel::{wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

/// A `rows × columns` matrix's nonzero entries, row by row.
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    pub rows: usize,
    pub columns: usize,
    /// Row r's entries are `row_ptr[r]..row_ptr[r + 1]`.
    pub row_ptr: Vec<u32>,
    pub cols: Vec<u16>,
    pub values: Vec<f32>,
}

impl Csr {
    /// The nonzero entries of the row-major `w` (`rows × columns`); a matrix wider than 16-bit
    /// indices reach is refused.
    pub fn from_dense(w: &[f32], rows: usize, columns: usize) -> Result<Self, Error> {
        if columns > 1 << 16 || w.len() != rows * columns {
            return Err(Error::Config(format!(
                "a CSR matrix here has at most 65,536 columns and its rows × columns values ({rows} × {columns}, {} given)",
                w.len()
            )));
        }
        let mut csr = Csr {
            rows,
            columns,
            row_ptr: vec![0],
            cols: Vec::new(),
            values: Vec::new(),
        };
        for row in w.chunks(columns.max(1)).take(rows) {
            for (j, v) in row.iter().enumerate().filter(|(_, v)| **v != 0.0) {
                csr.cols.push(j as u16);
                csr.values.push(*v);
            }
            csr.row_ptr.push(csr.values.len() as u32);
        }
        Ok(csr)
    }

    /// Bytes as stored: 4 per value, 2 per column index, 4 per row pointer.
    pub fn bytes(&self) -> usize {
        6 * self.values.len() + 4 * self.row_ptr.len()
    }

    /// The column indices two to a word, the first in the low half (as the shader reads them).
    pub fn packed_cols(&self) -> Vec<u32> {
        let mut out: Vec<u32> = (self.cols.chunks(2))
            .map(|p| u32::from(p[0]) | p.get(1).map_or(0, |c| u32::from(*c) << 16))
            .collect();
        if out.is_empty() {
            out.push(0);
        }
        out
    }
}

/// y[n, o] = act(b[o] + Σ_k values[k] · x[n, col(k)]) over row o's entries; `cols` packed two to
/// a word as `Csr::packed_cols` gives them.
#[derive(Clone)]
pub struct Spmm {
    pub row_ptr: BufId,
    pub cols: BufId,
    pub values: BufId,
    pub bias: BufId,
    pub x: BufId,
    pub y: BufId,
    pub rows: usize,
    pub inputs: usize,
    pub batch: usize,
    pub relu: bool,
    /// The kept weights, for the FLOP count.
    pub nnz: usize,
}

/// The CPU twin of `shaders/spmm.wgsl`.
pub fn spmm_cpu(
    k: &Spmm,
    (row_ptr, cols, values): (&[u32], &[u32], &[f32]),
    bias: &[f32],
    x: &[f32],
    y: &mut [f32],
) {
    for n in 0..k.batch {
        let input = &x[n * k.inputs..(n + 1) * k.inputs];
        for o in 0..k.rows {
            let mut s = 0.0f32;
            for e in row_ptr[o] as usize..row_ptr[o + 1] as usize {
                let col = (cols[e >> 1] >> (16 * (e & 1))) & 0xffff;
                s += values[e] * input[col as usize];
            }
            s += bias[o];
            y[n * k.rows + o] = if k.relu { s.max(0.0) } else { s };
        }
    }
}

impl Kernel for Spmm {
    fn shader(&self) -> Shader {
        wgsl!("spmm.wgsl", "main")
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default()
            .u("rows", self.rows as u32)
            .u("inputs", self.inputs as u32)
            .u("batch", self.batch as u32)
            .u("relu", u32::from(self.relu))
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.row_ptr),
            (2, self.cols),
            (3, self.values),
            (4, self.bias),
            (5, self.x),
            (6, self.y),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        [
            (self.rows as u32).div_ceil(64).max(1),
            self.batch.max(1) as u32,
            1,
        ]
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut y = bufs.take_f32(self.y);
        let csr = (bufs.u32(self.row_ptr), bufs.u32(self.cols), bufs.f32(self.values));
        spmm_cpu(self, csr, bufs.f32(self.bias), bufs.f32(self.x), &mut y);
        bufs.put_f32(self.y, y);
    }
    fn flops(&self) -> f64 {
        2.0 * (self.nnz * self.batch) as f64
    }
}
