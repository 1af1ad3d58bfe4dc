//! Self-attention's kernels (`ops::attention`): each against its CPU twin on the GPU, causal and
//! not, at odd sizes; a two-token example by hand; the backward against central finite
//! differences of the forward; and causality — a later token changes no earlier output.

use engine::kernel::{BufferTable, Elem, Kernel, StepScalars};
use engine::ops::attention::{
    attention_backward_key_cpu, attention_backward_query_cpu, attention_forward_cpu, AttentionBackward,
    AttentionForward, AttentionGeom,
};

use crate::common::{assert_close, gpu, random, run_multi, Init};

fn geom(batch: usize, seq: usize, heads: usize, head_dim: usize, causal: bool) -> AttentionGeom {
    AttentionGeom {
        batch,
        seq,
        heads,
        head_dim,
        causal,
    }
}

/// The forward pass and both backward kernels on both backends: out, probs, d_scores, d_qkv.
#[test]
fn attention_matches_its_twin_on_the_gpu() {
    let ctx = gpu();
    for (b, t, h, d) in [(1, 1, 1, 1), (2, 5, 2, 3), (3, 17, 4, 8), (1, 33, 1, 16)] {
        for causal in [true, false] {
            let g = geom(b, t, h, d, causal);
            let tokens = b * t;
            let mut table = BufferTable::default();
            let qkv = table.add("qkv", Elem::F32, 3 * tokens * g.width());
            let out = table.add("out", Elem::F32, tokens * g.width());
            let probs = table.add("probs", Elem::F32, g.scores_len());
            let d_out = table.add("d_out", Elem::F32, tokens * g.width());
            let d_scores = table.add("d_scores", Elem::F32, g.scores_len());
            let d_qkv = table.add("d_qkv", Elem::F32, 3 * tokens * g.width());
            let inits = vec![
                Init::F32(random(3 * tokens * g.width(), 1)),
                Init::F32(vec![0.0; tokens * g.width()]),
                Init::F32(vec![0.0; g.scores_len()]),
                Init::F32(random(tokens * g.width(), 2)),
                Init::F32(vec![0.0; g.scores_len()]),
                Init::F32(vec![0.0; 3 * tokens * g.width()]),
            ];
            let kernels = || -> Vec<Box<dyn Kernel>> {
                let mut k: Vec<Box<dyn Kernel>> = vec![Box::new(AttentionForward { g, qkv, out, probs })];
                k.extend(AttentionBackward::pair(g, (qkv, probs, d_out), (d_scores, d_qkv)));
                k
            };
            let got = run_multi(
                &ctx,
                table,
                inits,
                kernels,
                StepScalars::default(),
                &[out, probs, d_scores, d_qkv],
            );
            for ((name, (gpu, cpu)), tol) in ["out", "probs", "d_scores", "d_qkv"]
                .iter()
                .zip(&got)
                .zip([1e-5, 1e-6, 1e-5, 1e-5])
            {
                assert_close(&format!("{g:?} {name}"), gpu, cpu, tol, 1e-4);
            }
            // Each probability row sums to 1, masked entries are 0.
            for (r, row) in got[1].1.chunks(t).enumerate() {
                let i = r % t;
                assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
                assert!(!causal || row[i + 1..].iter().all(|p| *p == 0.0));
            }
        }
    }
}

#[test]
fn two_tokens_by_hand() {
    // One head of width 1, causal, scale 1: q₁ = ln 2, k = (0, 1), v = (3, 6). Token 0 sees only
    // itself: o₀ = v₀ = 3. Token 1: scores (0, ln 2), softmax (1/3, 2/3), o₁ = 1 + 4 = 5.
    let g = geom(1, 2, 1, 1, true);
    let ln2 = 2f32.ln();
    // Rows [q, k, v] per token.
    let qkv = [0.5, 0.0, 3.0, ln2, 1.0, 6.0];
    let (mut out, mut probs) = (vec![0.0; 2], vec![0.0; 4]);
    attention_forward_cpu(&g, &qkv, &mut out, &mut probs);
    assert_close("probs", &probs, &[1.0, 0.0, 1.0 / 3.0, 2.0 / 3.0], 1e-6, 0.0);
    assert_close("out", &out, &[3.0, 5.0], 1e-5, 0.0);
    // Backward with dO = (0, 1): dP₁ = (3, 6), Σ P dP = 5, dS₁ = P ⊙ (dP − 5) = (−2/3, 2/3);
    // dq₁ = dS₁ · k = 2/3; dk = dS₁ q₁ = (−2/3, 2/3) ln 2; dv = Pᵀ dO = (1/3, 2/3).
    let d_out = [0.0, 1.0];
    let (mut ds, mut dqkv) = (vec![0.0; 4], vec![0.0; 6]);
    attention_backward_query_cpu(&g, (&qkv, &probs, &d_out), &mut ds, &mut dqkv);
    attention_backward_key_cpu(&g, (&qkv, &probs, &d_out, &ds), &mut dqkv);
    assert_close("d_scores", &ds, &[0.0, 0.0, -2.0 / 3.0, 2.0 / 3.0], 1e-5, 0.0);
    let want = [
        0.0,
        -2.0 / 3.0 * ln2,
        1.0 / 3.0,
        2.0 / 3.0,
        2.0 / 3.0 * ln2,
        2.0 / 3.0,
    ];
    assert_close("d_qkv", &dqkv, &want, 1e-5, 0.0);
}

/// L = Σ out ⊙ R; the kernels' d_qkv with dO = R against (L(x + ε) − L(x − ε)) / 2ε.
#[test]
fn the_backward_is_the_forwards_derivative() {
    for causal in [true, false] {
        let g = geom(2, 4, 2, 3, causal);
        let n = 3 * g.batch * g.seq * g.width();
        let qkv = random(n, 3);
        let r = random(g.batch * g.seq * g.width(), 4);
        let loss = |x: &[f32]| -> f64 {
            let (mut out, mut probs) = (vec![0.0; r.len()], vec![0.0; g.scores_len()]);
            attention_forward_cpu(&g, x, &mut out, &mut probs);
            out.iter()
                .zip(&r)
                .map(|(o, r)| f64::from(*o) * f64::from(*r))
                .sum()
        };
        let (mut out, mut probs) = (vec![0.0; r.len()], vec![0.0; g.scores_len()]);
        attention_forward_cpu(&g, &qkv, &mut out, &mut probs);
        let (mut ds, mut dqkv) = (vec![0.0; g.scores_len()], vec![0.0; n]);
        attention_backward_query_cpu(&g, (&qkv, &probs, &r), &mut ds, &mut dqkv);
        attention_backward_key_cpu(&g, (&qkv, &probs, &r, &ds), &mut dqkv);
        let eps = 1e-2;
        for i in 0..n {
            let (mut up, mut down) = (qkv.clone(), qkv.clone());
            up[i] += eps;
            down[i] -= eps;
            let fd = (loss(&up) - loss(&down)) / (2.0 * f64::from(eps));
            assert!(
                (fd - f64::from(dqkv[i])).abs() < 2e-3,
                "causal {causal}, d_qkv[{i}]: {} against {fd}",
                dqkv[i]
            );
        }
    }
}

#[test]
fn a_later_token_changes_no_earlier_output() {
    let g = geom(2, 6, 2, 4, true);
    let qkv = random(3 * g.batch * g.seq * g.width(), 5);
    let run = |x: &[f32]| {
        let (mut out, mut probs) = (vec![0.0; g.batch * g.seq * g.width()], vec![0.0; g.scores_len()]);
        attention_forward_cpu(&g, x, &mut out, &mut probs);
        out
    };
    let mut changed = qkv.clone();
    // Every query, key and value of each sequence's last token.
    for b in 0..g.batch {
        let row = (b * g.seq + g.seq - 1) * 3 * g.width();
        for v in &mut changed[row..row + 3 * g.width()] {
            *v += 1.0;
        }
    }
    let (a, b) = (run(&qkv), run(&changed));
    for s in 0..g.batch {
        for t in 0..g.seq {
            let row = |o: &[f32]| o[(s * g.seq + t) * g.width()..(s * g.seq + t + 1) * g.width()].to_vec();
            assert_eq!(row(&a) == row(&b), t + 1 < g.seq, "sequence {s}, token {t}");
        }
    }
}
