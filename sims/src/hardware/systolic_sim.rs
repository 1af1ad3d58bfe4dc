//! The register-by-register simulation of `super` (its closed forms are tested against this).
//! Each cycle every PE reads what its left and upper neighbours held at the end of the cycle
//! before (the edges read the feeders), works, and holds what it passes on.

use super::{folds, Dataflow, Fold, Gemm, Pe, Simulated, Traffic};

/// An operand on its way through the array: the row of A (m) it belongs to, and its value.
type Flow = Option<(usize, f32)>;

/// Runs C = A·B (row-major A m × k, B k × n) on a `rows × cols` array.
pub fn simulate(flow: Dataflow, g: Gemm, (rows, cols): (usize, usize), a: &[f32], b: &[f32]) -> Simulated {
    let mut out = Simulated {
        cycles: 0,
        macs: 0,
        traffic: Traffic::default(),
        c: vec![0.0; g.m * g.n],
        first_fold: Vec::new(),
    };
    for (index, fold) in folds(flow, g, rows, cols).into_iter().enumerate() {
        let record = index == 0;
        match flow {
            Dataflow::OutputStationary => output_stationary(g, fold, (rows, cols), (a, b), &mut out, record),
            Dataflow::WeightStationary => weight_stationary(g, fold, (rows, cols), (a, b), &mut out, record),
        }
    }
    out
}

/// One output-stationary fold: rows r0.. of A, columns c0.. of B, all of k streamed.
fn output_stationary(
    g: Gemm,
    f: Fold,
    (rows, cols): (usize, usize),
    (a, b): (&[f32], &[f32]),
    out: &mut Simulated,
    record: bool,
) {
    let (r, c) = (f.rows, f.cols);
    // a_reg[i][j]: the A value PE (i, j) holds (with its k); b_reg likewise.
    let mut a_reg: Vec<Flow> = vec![None; r * c];
    let mut b_reg: Vec<Flow> = vec![None; r * c];
    let mut acc = vec![0.0f32; r * c];
    let (mut done, total) = (0, r * c * g.k);
    let mut t: usize = 0;
    while done < total {
        let (mut a_next, mut b_next) = (vec![None; r * c], vec![None; r * c]);
        let mut grid = vec![Pe::Idle; rows * cols];
        for i in 0..r {
            for j in 0..c {
                let a_in = if j == 0 {
                    // Row i of A enters at cycle κ + i.
                    t.checked_sub(i).filter(|k| *k < g.k).map(|k| {
                        out.traffic.a_reads += 1;
                        (k, a[(f.r0 + i) * g.k + k])
                    })
                } else {
                    a_reg[i * c + j - 1]
                };
                let b_in = if i == 0 {
                    t.checked_sub(j).filter(|k| *k < g.k).map(|k| {
                        out.traffic.b_reads += 1;
                        (k, b[k * g.n + f.c0 + j])
                    })
                } else {
                    b_reg[(i - 1) * c + j]
                };
                if let (Some((ka, va)), Some((kb, vb))) = (a_in, b_in) {
                    assert_eq!(
                        ka, kb,
                        "operands of different k met in PE ({i}, {j}) at cycle {t}"
                    );
                    acc[i * c + j] += va * vb;
                    done += 1;
                    grid[i * cols + j] = Pe::Mac;
                }
                (a_next[i * c + j], b_next[i * c + j]) = (a_in, b_in);
            }
        }
        (a_reg, b_reg) = (a_next, b_next);
        if record {
            out.first_fold.push(grid);
        }
        t += 1;
    }
    for i in 0..r {
        for j in 0..c {
            out.c[(f.r0 + i) * g.n + f.c0 + j] = acc[i * c + j];
            out.traffic.c_writes += 1;
        }
    }
    out.cycles += t as u64;
    out.macs += total as u64;
}

/// One weight-stationary fold: rows r0.. of B (a slice of k) held, all m rows of A streamed.
fn weight_stationary(
    g: Gemm,
    f: Fold,
    (rows, cols): (usize, usize),
    (a, b): (&[f32], &[f32]),
    out: &mut Simulated,
    record: bool,
) {
    let (r, c) = (f.rows, f.cols);
    // The load: row r − 1 − t of the tile enters the top at cycle t and every PE passes its
    // weight down, so after r cycles PE (i, j) holds B[r0 + i, c0 + j].
    let mut w: Vec<Option<f32>> = vec![None; r * c];
    for t in 0..r {
        let mut next = vec![None; r * c];
        let mut grid = vec![Pe::Idle; rows * cols];
        for i in 0..r {
            for j in 0..c {
                next[i * c + j] = if i == 0 {
                    out.traffic.b_reads += 1;
                    Some(b[(f.r0 + r - 1 - t) * g.n + f.c0 + j])
                } else {
                    w[(i - 1) * c + j]
                };
                if next[i * c + j].is_some() {
                    grid[i * cols + j] = Pe::Load;
                }
            }
        }
        w = next;
        if record {
            out.first_fold.push(grid);
        }
    }
    // The stream: A[m, r0 + i] enters row i at cycle m + i and moves right; partial sums move
    // down; column j's bottom PE hands row m's sum to the accumulators.
    let mut a_reg: Vec<Flow> = vec![None; r * c];
    let mut p_reg: Vec<Flow> = vec![None; r * c];
    let (mut done, total) = (0, r * c * g.m);
    let mut t: usize = 0;
    while done < total {
        let (mut a_next, mut p_next) = (vec![None; r * c], vec![None; r * c]);
        let mut grid = vec![Pe::Idle; rows * cols];
        for i in 0..r {
            for j in 0..c {
                let a_in = if j == 0 {
                    t.checked_sub(i).filter(|m| *m < g.m).map(|m| {
                        out.traffic.a_reads += 1;
                        (m, a[m * g.k + f.r0 + i])
                    })
                } else {
                    a_reg[i * c + j - 1]
                };
                let p_in = if i == 0 {
                    a_in.map(|(m, _)| (m, 0.0))
                } else {
                    p_reg[(i - 1) * c + j]
                };
                let p_out = match (a_in, p_in, w[i * c + j]) {
                    (Some((ma, va)), Some((mp, vp)), Some(wv)) => {
                        assert_eq!(
                            ma, mp,
                            "a row and a partial sum of different rows met in PE ({i}, {j})"
                        );
                        done += 1;
                        grid[i * cols + j] = Pe::Mac;
                        Some((mp, vp + va * wv))
                    }
                    _ => None,
                };
                if let (true, Some((m, v))) = (i + 1 == r, p_out) {
                    let at = m * g.n + f.c0 + j;
                    if f.r0 > 0 {
                        out.traffic.c_reads += 1;
                    }
                    out.c[at] += v;
                    out.traffic.c_writes += 1;
                }
                (a_next[i * c + j], p_next[i * c + j]) = (a_in, p_out);
            }
        }
        (a_reg, p_reg) = (a_next, p_next);
        if record {
            out.first_fold.push(grid);
        }
        t += 1;
    }
    out.cycles += (r + t) as u64;
    out.macs += total as u64;
}
