//! The products a tensor-parallel device computes with its shard of a weight matrix W (row-major
//! [outs, ins], one row per output, as the engine keeps it), and their backward: a shard is
//! either a run of W's rows (some outputs: W_qkv's heads, W_1's hidden units) or a run of its
//! columns (some inputs: W_out's heads, W_2's hidden units). Plain loops: the lab shows the
//! split, not speed.

/// Which part of W a device holds.
#[derive(Clone, Copy, Debug)]
pub enum Shard {
    /// `count` rows from `first`: the device computes those outputs.
    Rows { first: usize, count: usize },
    /// `count` columns from `first`: the device reads those inputs and adds its share of every
    /// output.
    Cols { first: usize, count: usize },
}

/// A weight matrix W ([outs, ins] row-major) and the device's shard of it.
#[derive(Clone, Copy, Debug)]
pub struct Sharded<'a> {
    pub w: &'a [f32],
    pub outs: usize,
    pub ins: usize,
    pub shard: Shard,
}

impl Sharded<'_> {
    /// (output rows, input columns) of the shard's product.
    fn span(&self) -> ((usize, usize), (usize, usize)) {
        match self.shard {
            Shard::Rows { first, count } => ((first, count), (0, self.ins)),
            Shard::Cols { first, count } => ((0, self.outs), (first, count)),
        }
    }

    fn at(&self, o: usize, i: usize) -> usize {
        o * self.ins + i
    }

    /// y[r, o] = Σᵢ x[r, i] · W[o, i] over the shard: x is [rows, shard inputs], y [rows, shard
    /// outputs] (a row shard's outputs, or a column shard's partial sums of every output).
    pub fn forward(&self, x: &[f32]) -> Vec<f32> {
        let ((o0, no), (i0, ni)) = self.span();
        let rows = x.len() / ni;
        let mut y = vec![0.0; rows * no];
        for r in 0..rows {
            for o in 0..no {
                let w = &self.w[self.at(o0 + o, i0)..self.at(o0 + o, i0) + ni];
                y[r * no + o] = x[r * ni..(r + 1) * ni].iter().zip(w).map(|(a, b)| a * b).sum();
            }
        }
        y
    }

    /// The backward of [`Self::forward`] for `dy`: adds dW = dyᵀ x into the shard's place of
    /// `d_w` (the whole matrix's gradient) and returns dx = dy W over the shard.
    pub fn backward(&self, x: &[f32], dy: &[f32], d_w: &mut [f32]) -> Vec<f32> {
        let ((o0, no), (i0, ni)) = self.span();
        let rows = x.len() / ni;
        let mut dx = vec![0.0; rows * ni];
        for r in 0..rows {
            for o in 0..no {
                let g = dy[r * no + o];
                let at = self.at(o0 + o, i0);
                for i in 0..ni {
                    d_w[at + i] += g * x[r * ni + i];
                    dx[r * ni + i] += g * self.w[at + i];
                }
            }
        }
        dx
    }
}

/// Adds `part` into `sum`: one device's share of an allreduce.
pub fn add_into(sum: &mut [f32], part: &[f32]) {
    sum.iter_mut().zip(part).for_each(|(s, p)| *s += p);
}
