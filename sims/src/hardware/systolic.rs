//! A matrix product C = A·B (A m × k, B k × n) on a systolic array of `rows × cols` processing
//! elements (PEs), cycle by cycle (docs/theory.md §11.3). Each PE does one multiply-add a cycle on
//! the values its neighbours passed it the cycle before; the array computes the product a fold at a
//! time, a fold being the tile of the product that fits the array.
//!
//! - **Output-stationary**: PE (i, j) keeps C[i, j] of its fold. Row i of A enters the left edge
//!   skewed by i cycles and moves right; column j of B enters the top skewed by j and moves down,
//!   so A[i, κ] and B[κ, j] meet in PE (i, j) at cycle κ + i + j. A fold of R × C outputs takes
//!   k + R + C − 2 cycles.
//! - **Weight-stationary** (the TPU's): PE (i, j) holds B[κ₀ + i, j] of its fold, loaded from the
//!   top one row a cycle (R cycles); rows of A then enter the left edge skewed, and partial sums
//!   move down the columns, leaving the bottom row into accumulators. A fold of an R-deep slice of
//!   k and C columns takes R + m + R + C − 2 cycles; the folds over k add into the accumulators.
//!
//! Conventions: results leave the array without extra cycles (outputs-stationary results are read
//! out in place), a value is one operand read from memory into the array's edge, and a partial sum
//! a weight-stationary fold after the first reads back from the accumulators counts as a read.
//! `simulate` moves every operand register by register; the closed forms (`cycles`, `traffic`)
//! are what it is tested against.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dataflow {
    WeightStationary,
    OutputStationary,
}

/// A product's shape: A is m × k, B is k × n.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gemm {
    pub m: usize,
    pub k: usize,
    pub n: usize,
}

/// One fold: where its tile starts and how much of the array it uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    /// Output-stationary: rows of A (m); weight-stationary: rows of B (k).
    pub r0: usize,
    pub rows: usize,
    /// Columns of B and C (n).
    pub c0: usize,
    pub cols: usize,
}

/// The folds in the order the array computes them (row tiles outer, column tiles inner).
pub fn folds(flow: Dataflow, g: Gemm, rows: usize, cols: usize) -> Vec<Fold> {
    let tall = match flow {
        Dataflow::OutputStationary => g.m,
        Dataflow::WeightStationary => g.k,
    };
    let mut out = Vec::new();
    for r0 in (0..tall).step_by(rows.max(1)) {
        for c0 in (0..g.n).step_by(cols.max(1)) {
            out.push(Fold {
                r0,
                rows: rows.min(tall - r0),
                c0,
                cols: cols.min(g.n - c0),
            });
        }
    }
    out
}

/// The first fold the array computes (`folds(…)[0]`, without dealing the others: a link may ask
/// for 10¹⁰ of them).
pub fn first_fold(flow: Dataflow, g: Gemm, rows: usize, cols: usize) -> Fold {
    let tall = match flow {
        Dataflow::OutputStationary => g.m,
        Dataflow::WeightStationary => g.k,
    };
    Fold {
        r0: 0,
        rows: rows.max(1).min(tall),
        c0: 0,
        cols: cols.max(1).min(g.n),
    }
}

/// The first fold as a product of its own: output-stationary, its rows of A by all of k by its
/// columns; weight-stationary, all of A's rows by its rows of B by its columns.
pub fn first_fold_gemm(flow: Dataflow, g: Gemm, side: usize) -> Gemm {
    let f = first_fold(flow, g, side, side);
    match flow {
        Dataflow::OutputStationary => Gemm {
            m: f.rows,
            k: g.k,
            n: f.cols,
        },
        Dataflow::WeightStationary => Gemm {
            m: g.m,
            k: f.rows,
            n: f.cols,
        },
    }
}

/// A fold's cycles, the closed form: output-stationary k + R + C − 2; weight-stationary
/// R (loading) + m + R + C − 2.
pub fn fold_cycles(flow: Dataflow, g: Gemm, f: Fold) -> usize {
    match flow {
        Dataflow::OutputStationary => g.k + f.rows + f.cols - 2,
        Dataflow::WeightStationary => f.rows + g.m + f.rows + f.cols - 2,
    }
}

/// Row tiles and column tiles of the product on a `rows × cols` array (as `folds` deals them).
fn tiles(flow: Dataflow, g: Gemm, rows: usize, cols: usize) -> (u64, u64) {
    let tall = match flow {
        Dataflow::OutputStationary => g.m,
        Dataflow::WeightStationary => g.k,
    };
    (
        tall.div_ceil(rows.max(1)) as u64,
        g.n.div_ceil(cols.max(1)) as u64,
    )
}

/// The whole product's cycles: `fold_cycles` summed over the folds, in closed form (a link may
/// ask for 10¹⁰ folds; counted one by one they took the page's memory). With F = row tiles ×
/// column tiles, the folds' heights summing to m (or k) per column tile and their widths to n per
/// row tile: output-stationary F·k + ct·m + rt·n − 2F; weight-stationary 2·ct·k + F·m + rt·n − 2F.
/// In u64: on 32-bit wasm a usize product wraps at 4·10⁹.
pub fn cycles(flow: Dataflow, g: Gemm, rows: usize, cols: usize) -> u64 {
    let (rt, ct) = tiles(flow, g, rows, cols);
    let (m, k, n) = (g.m as u64, g.k as u64, g.n as u64);
    let f = rt * ct;
    match flow {
        Dataflow::OutputStationary => f * k + ct * m + rt * n - 2 * f,
        Dataflow::WeightStationary => 2 * ct * k + f * m + rt * n - 2 * f,
    }
}

/// The product's multiply-adds, m·k·n.
pub fn macs(g: Gemm) -> u64 {
    g.m as u64 * g.k as u64 * g.n as u64
}

/// The share of the array's multiply-add slots that did one: m·k·n / (rows·cols·cycles).
pub fn utilization(flow: Dataflow, g: Gemm, rows: usize, cols: usize) -> f64 {
    let slots = rows as f64 * cols as f64 * cycles(flow, g, rows, cols).max(1) as f64;
    macs(g) as f64 / slots
}

/// Values moved between memory and the array's edges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Traffic {
    pub a_reads: u64,
    pub b_reads: u64,
    /// Partial sums read back into a weight-stationary fold's accumulation (0 output-stationary).
    pub c_reads: u64,
    pub c_writes: u64,
}

impl Traffic {
    pub fn total(&self) -> u64 {
        self.a_reads + self.b_reads + self.c_reads + self.c_writes
    }
}

/// The traffic, the closed form. Output-stationary: every fold reads its R rows of A and C
/// columns of B whole (A once per column tile, B once per row tile) and writes its outputs once.
/// Weight-stationary: B once; A once per column tile; every output written once per k-slice and
/// read back for all slices but the first.
pub fn traffic(flow: Dataflow, g: Gemm, rows: usize, cols: usize) -> Traffic {
    let (row_tiles, col_tiles) = tiles(flow, g, rows, cols);
    let (m, k, n) = (g.m as u64, g.k as u64, g.n as u64);
    match flow {
        Dataflow::OutputStationary => Traffic {
            a_reads: m * k * col_tiles,
            b_reads: k * n * row_tiles,
            c_reads: 0,
            c_writes: m * n,
        },
        Dataflow::WeightStationary => Traffic {
            a_reads: m * k * col_tiles,
            b_reads: k * n,
            c_reads: m * n * row_tiles.saturating_sub(1),
            c_writes: m * n * row_tiles,
        },
    }
}

/// What a PE did in a cycle (the picture's colours).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pe {
    Idle,
    /// A weight-stationary fold's load: the PE takes (or passes down) a weight.
    Load,
    Mac,
}

/// The simulation's count and result.
#[derive(Clone, Debug, PartialEq)]
pub struct Simulated {
    pub cycles: u64,
    pub macs: u64,
    pub traffic: Traffic,
    /// C, row-major m × n.
    pub c: Vec<f32>,
    /// The first fold's PEs, cycle by cycle (each cycle `rows × cols`, row-major; PEs outside
    /// the fold idle).
    pub first_fold: Vec<Vec<Pe>>,
}

#[path = "systolic_sim.rs"]
mod sim;
pub use sim::simulate;

#[cfg(test)]
#[path = "systolic_tests.rs"]
mod tests;
