use super::*;

fn operands(g: Gemm) -> (Vec<f32>, Vec<f32>) {
    let a = (0..g.m * g.k)
        .map(|i| ((i * 7 % 11) as f32 - 5.0) / 4.0)
        .collect();
    let b = (0..g.k * g.n)
        .map(|i| ((i * 5 % 13) as f32 - 6.0) / 8.0)
        .collect();
    (a, b)
}

fn product(g: Gemm, a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut c = vec![0.0f32; g.m * g.n];
    for i in 0..g.m {
        for j in 0..g.n {
            c[i * g.n + j] = (0..g.k).map(|k| a[i * g.k + k] * b[k * g.n + j]).sum();
        }
    }
    c
}

const SHAPES: [(Gemm, usize, usize); 6] = [
    (Gemm { m: 1, k: 1, n: 1 }, 1, 1),
    (Gemm { m: 4, k: 4, n: 4 }, 4, 4),
    (Gemm { m: 5, k: 7, n: 3 }, 4, 4),
    (Gemm { m: 9, k: 6, n: 10 }, 4, 3),
    (Gemm { m: 3, k: 17, n: 8 }, 8, 8),
    (Gemm { m: 16, k: 5, n: 2 }, 2, 5),
];

/// The simulation computes A·B, and its cycles and traffic are the closed forms', for both
/// dataflows at sizes that fill the array, leave part of it idle, and need several folds.
#[test]
fn the_simulation_computes_the_product_in_the_closed_forms_cycles() {
    for flow in [Dataflow::OutputStationary, Dataflow::WeightStationary] {
        for (g, rows, cols) in SHAPES {
            let (a, b) = operands(g);
            let s = simulate(flow, g, (rows, cols), &a, &b);
            let want = product(g, &a, &b);
            for (x, y) in s.c.iter().zip(&want) {
                assert!((x - y).abs() < 1e-4, "{flow:?} {g:?}: {:?} against {want:?}", s.c);
            }
            assert_eq!(s.macs, macs(g));
            assert_eq!(
                s.cycles,
                cycles(flow, g, rows, cols),
                "{flow:?} {g:?} on {rows}×{cols}"
            );
            assert_eq!(
                s.traffic,
                traffic(flow, g, rows, cols),
                "{flow:?} {g:?} on {rows}×{cols}"
            );
        }
    }
}

#[test]
fn the_closed_form_cycles_are_the_folds_summed() {
    for flow in [Dataflow::OutputStationary, Dataflow::WeightStationary] {
        for (m, k, n) in [(1, 1, 1), (5, 3, 7), (17, 1, 9), (64, 784, 100), (33, 65, 129)] {
            for array in [1, 2, 4, 7, 16, 200] {
                let g = Gemm { m, k, n };
                let summed: u64 = (folds(flow, g, array, array).into_iter())
                    .map(|f| fold_cycles(flow, g, f) as u64)
                    .sum();
                assert_eq!(cycles(flow, g, array, array), summed, "{flow:?} {g:?} on {array}");
            }
        }
    }
}

/// `/hardware?array=1&m=100000&n=100000` (issue 80): 10¹⁰ folds of one PE, each k cycles, where
/// counting them one by one took 3.5 GB and panicked; 2048³ multiply-adds, which a 32-bit count
/// wraps to 0.
#[test]
fn a_product_of_ten_billion_folds_is_counted_at_once_and_in_64_bits() {
    let g = Gemm {
        m: 100_000,
        k: 64,
        n: 100_000,
    };
    assert_eq!(
        cycles(Dataflow::OutputStationary, g, 1, 1),
        100_000 * 100_000 * 64
    );
    assert!((utilization(Dataflow::OutputStationary, g, 1, 1) - 1.0).abs() < 1e-12);
    let cube = Gemm {
        m: 2048,
        k: 2048,
        n: 2048,
    };
    assert_eq!(macs(cube), 8_589_934_592);
    let u = utilization(Dataflow::WeightStationary, cube, 128, 128);
    assert!(u > 0.5 && u <= 1.0, "{u}");
    assert_eq!(
        traffic(Dataflow::OutputStationary, cube, 128, 128).c_writes,
        2048 * 2048
    );
}

#[test]
fn cycles_and_utilization_by_hand() {
    // One 4 × 4 fold, k = 4, output-stationary: the last PE's last pair meets at cycle
    // 3 + 3 + 3 = 9, so 10 cycles; 64 multiply-adds in 16 · 10 slots.
    let g = Gemm { m: 4, k: 4, n: 4 };
    assert_eq!(cycles(Dataflow::OutputStationary, g, 4, 4), 10);
    assert!((utilization(Dataflow::OutputStationary, g, 4, 4) - 0.4).abs() < 1e-12);
    // Weight-stationary: 4 cycles to load, then rows 0..3 of A enter, the last leaving the
    // bottom-right PE at cycle 3 + 3 + 3 = 9: 4 + 10 = 14.
    assert_eq!(cycles(Dataflow::WeightStationary, g, 4, 4), 14);
    // A long stream amortizes the fill: m = 1,000 rows through one 4 × 4 weight tile take
    // 4 + 1,000 + 6 cycles for 16,000 multiply-adds, 98.8 % of the slots.
    let long = Gemm { m: 1000, k: 4, n: 4 };
    assert_eq!(cycles(Dataflow::WeightStationary, long, 4, 4), 1010);
    assert!((utilization(Dataflow::WeightStationary, long, 4, 4) - 16_000.0 / 16_160.0).abs() < 1e-12);
    // The weight-stationary traffic of 784 → 100 for a batch of 64 on 16 × 16: B once
    // (78,400), A once per 7 column tiles (64 · 784 · 7), 49 slices of k each writing the
    // 64 × 100 outputs and reading back all but the first.
    let layer = Gemm {
        m: 64,
        k: 784,
        n: 100,
    };
    let t = traffic(Dataflow::WeightStationary, layer, 16, 16);
    assert_eq!(
        (t.b_reads, t.a_reads, t.c_writes, t.c_reads),
        (78_400, 351_232, 313_600, 307_200)
    );
}

/// The first fold's picture: output-stationary PE (i, j) works from cycle i + j for k cycles, a
/// diagonal wave; weight-stationary loads row by row first.
#[test]
fn the_first_fold_is_a_wave() {
    let g = Gemm { m: 3, k: 5, n: 3 };
    let (a, b) = operands(g);
    let s = simulate(Dataflow::OutputStationary, g, (3, 3), &a, &b);
    assert_eq!(s.first_fold.len(), 5 + 3 + 3 - 2);
    for (t, grid) in s.first_fold.iter().enumerate() {
        for i in 0..3 {
            for j in 0..3 {
                let busy = t >= i + j && t < i + j + 5;
                assert_eq!(grid[i * 3 + j] == Pe::Mac, busy, "cycle {t}, PE ({i}, {j})");
            }
        }
    }
    let s = simulate(Dataflow::WeightStationary, g, (3, 3), &a, &b);
    assert_eq!(s.first_fold[0][..3], [Pe::Load; 3]);
    assert_eq!(s.first_fold[0][3..], [Pe::Idle; 6]);
    assert!(s.first_fold[2].iter().all(|p| *p == Pe::Load));
}

/// The picture's first fold is the first the array deals (`folds(…)[0]`, counted by hand on the
/// small shapes), found without dealing the rest: with `array=1` and sides of 10⁵ the page dealt
/// 10¹⁰ folds to draw one (issue 80).
#[test]
fn the_first_fold_is_the_first_dealt_without_dealing_the_rest() {
    for flow in [Dataflow::OutputStationary, Dataflow::WeightStationary] {
        for (m, k, n) in [(1, 1, 1), (5, 3, 7), (17, 1, 9), (64, 784, 100)] {
            for array in [1, 2, 7, 16, 200] {
                let g = Gemm { m, k, n };
                assert_eq!(first_fold(flow, g, array, array), folds(flow, g, array, array)[0]);
            }
        }
    }
    let huge = Gemm {
        m: 100_000,
        k: 100_000,
        n: 100_000,
    };
    // Output-stationary on one PE: one row of A by all of k by one column of B.
    assert_eq!(
        first_fold_gemm(Dataflow::OutputStationary, huge, 1),
        Gemm {
            m: 1,
            k: 100_000,
            n: 1
        }
    );
    // Weight-stationary on 256 × 256: all of A's rows by 256 rows of B by 256 columns.
    let ws = first_fold_gemm(Dataflow::WeightStationary, huge, 256);
    assert_eq!((ws.m, ws.k, ws.n), (100_000, 256, 256));
    assert_eq!(macs(ws), 6_553_600_000);
}
