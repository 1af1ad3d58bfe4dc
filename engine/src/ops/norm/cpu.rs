//! The normalization kernels' CPU twins: statistics, forward, backward and the running averages.

use super::{NormGeom, NormKind, NORM_EPS};
use crate::parallel;

/// The CPU twin of `forward` for one copy: y, and (mean, biased variance) per group. The sums
/// run over whole contiguous spans in eight lanes (as the GPU sums in partial lanes), each
/// span's sum added into an f64 total; groups, then samples, are spread over the cores.
pub fn norm_forward_cpu(g: &NormGeom, x: &[f32], params: &[f32], y: &mut [f32], stats: &mut [f32]) {
    let n = g.group_len() as f64;
    let sp = g.spatial;
    let moments = parallel::map(g.groups(), |k| {
        let mean = g
            .spans(k)
            .map(|(i, _)| lane_sum(&x[i..i + sp], 0.0, false) as f64)
            .sum::<f64>()
            / n;
        let m = mean as f32;
        let var = g
            .spans(k)
            .map(|(i, _)| lane_sum(&x[i..i + sp], m, true) as f64)
            .sum::<f64>()
            / n;
        (m, var)
    });
    for (k, &(m, var)) in moments.iter().enumerate() {
        stats[2 * k] = m;
        stats[2 * k + 1] = var as f32;
    }
    let inv_std: Vec<f32> = moments
        .iter()
        .map(|&(_, var)| (1.0 / (var + NORM_EPS as f64).sqrt()) as f32)
        .collect();
    // A piece is one sample: every channel's span of it.
    parallel::for_each_piece(&mut y[..g.len()], g.channels * sp, |r, row| {
        for c in 0..g.channels {
            let k = match g.kind {
                NormKind::Layer => r,
                NormKind::Batch => c,
            };
            let (m, inv, gamma, beta) = (moments[k].0, inv_std[k], params[g.w_off + c], params[g.b_off + c]);
            let xs = &x[(r * g.channels + c) * sp..(r * g.channels + c + 1) * sp];
            for (out, v) in row[c * sp..(c + 1) * sp].iter_mut().zip(xs) {
                *out = gamma * (v - m) * inv + beta;
            }
        }
    });
}

/// Σ xs (or Σ (xs − mean)² when `squares`) in eight independent lanes, which the compiler keeps
/// in vector registers.
fn lane_sum(xs: &[f32], mean: f32, squares: bool) -> f32 {
    let term = |v: f32| if squares { (v - mean) * (v - mean) } else { v };
    let mut lanes = [0.0f32; 8];
    let chunks = xs.chunks_exact(8);
    let tail: f32 = chunks.remainder().iter().map(|&v| term(v)).sum();
    for chunk in chunks {
        for (l, &v) in lanes.iter_mut().zip(chunk) {
            *l += term(v);
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// The CPU twin of `forward_running` for one copy: batch norm with the running statistics.
pub fn norm_forward_running_cpu(g: &NormGeom, x: &[f32], params: &[f32], running: &[f32], y: &mut [f32]) {
    for (i, out) in y.iter_mut().enumerate().take(g.len()) {
        let c = (i / g.spatial) % g.channels;
        let (mean, var) = (running[g.run_off + 2 * c], running[g.run_off + 2 * c + 1]);
        *out = params[g.w_off + c] * (x[i] - mean) / (var + NORM_EPS).sqrt() + params[g.b_off + c];
    }
}

fn x_hat(x: f32, stats: &[f32], group: usize) -> f64 {
    (x as f64 - stats[2 * group] as f64) / (stats[2 * group + 1] as f64 + NORM_EPS as f64).sqrt()
}

/// The CPU twin of `backward_input`: dx from dy, the forward's input and statistics.
pub fn norm_backward_input_cpu(
    g: &NormGeom,
    x: &[f32],
    params: &[f32],
    stats: &[f32],
    dy: &[f32],
    dx: &mut [f32],
) {
    let n = g.group_len();
    for k in 0..g.groups() {
        let inv_std = 1.0 / (stats[2 * k + 1] as f64 + NORM_EPS as f64).sqrt();
        let dxh = |j: usize| {
            let (i, c) = g.at(k, j);
            dy[i] as f64 * params[g.w_off + c] as f64
        };
        let mean_a = (0..n).map(dxh).sum::<f64>() / n as f64;
        let mean_b = (0..n)
            .map(|j| dxh(j) * x_hat(x[g.at(k, j).0], stats, k))
            .sum::<f64>()
            / n as f64;
        for j in 0..n {
            let i = g.at(k, j).0;
            dx[i] = (inv_std * (dxh(j) - mean_a - x_hat(x[i], stats, k) * mean_b)) as f32;
        }
    }
}

/// The CPU twin of `backward_params`: dγ and dβ into the gradients.
pub fn norm_backward_params_cpu(g: &NormGeom, x: &[f32], stats: &[f32], dy: &[f32], grads: &mut [f32]) {
    let cs = g.channels * g.spatial;
    for c in 0..g.channels {
        let (mut dgamma, mut dbeta) = (0.0f64, 0.0f64);
        for r in 0..g.rows {
            for s in 0..g.spatial {
                let i = r * cs + c * g.spatial + s;
                let group = if g.kind == NormKind::Layer { r } else { c };
                dgamma += dy[i] as f64 * x_hat(x[i], stats, group);
                dbeta += dy[i] as f64;
            }
        }
        grads[g.w_off + c] = dgamma as f32;
        grads[g.b_off + c] = dbeta as f32;
    }
}

/// The CPU twin of `update_running` (batch norm): blends in the batch's mean and unbiased variance.
pub fn update_running_cpu(g: &NormGeom, stats: &[f32], running: &mut [f32], momentum: f32) {
    let n = (g.rows * g.spatial) as f32;
    for c in 0..g.channels {
        let unbiased = stats[2 * c + 1] * n / (n - 1.0).max(1.0);
        let (m, r) = (momentum, g.run_off + 2 * c);
        running[r] = (1.0 - m) * running[r] + m * stats[2 * c];
        running[r + 1] = (1.0 - m) * running[r + 1] + m * unbiased;
    }
}
