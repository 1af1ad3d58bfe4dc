//! Each optimizer's first three updates against docs/theory.md §2, written out independently in f64 on
//! the quadratic ℓ(w) = ½ Σ aᵢ wᵢ² (gradient aᵢ wᵢ), with the engine's update kernels run on the CPU
//! backend (the GPU kernels are checked against these twins in `kernels_gpu_vs_cpu.rs`).

use engine::backend::{Backend, CpuBackend, Pass};
use engine::kernel::{BufId, BufferTable, Elem, StepScalars};
use engine::optim::{self, Optimizer, OptimizerBuffers};
use engine::plan::Plan;

const A: [f64; 4] = [1.0, 3.0, 0.5, 10.0];
const W0: [f64; 4] = [1.0, -2.0, 0.5, 0.3];
const LR: f64 = 0.05;

fn grad(w: &[f64]) -> Vec<f64> {
    w.iter().zip(A).map(|(w, a)| a * w).collect()
}

/// The engine: three steps, the gradient computed from the current weights each time.
fn engine_steps(opt: Optimizer) -> Vec<Vec<f64>> {
    let n = W0.len();
    let mut t = BufferTable::default();
    let ids: Vec<BufId> = ["grads", "weights", "a", "b"]
        .iter()
        .map(|s| t.add(s, Elem::F32, n))
        .collect();
    let bounds = t.add("bounds", Elem::U32, 2);
    let norms = t.add("norms", Elem::F32, 2);
    let bufs = OptimizerBuffers {
        grads: ids[0],
        weights: ids[1],
        state_a: ids[2],
        state_b: ids[3],
        bounds,
        norms,
        n,
        segments: 1,
    };
    let plan = Plan::of_kernels(t, optim::kernels(opt, bufs));
    let mut be = Backend::Cpu(CpuBackend::new(plan));
    be.write_u32(bounds, &[0, n as u32]);
    be.write_f32(ids[1], &W0.map(|x| x as f32));
    let mut out = Vec::new();
    for step in 1..=3 {
        let w: Vec<f64> = pollster::block_on(be.read_f32(ids[1], n))
            .unwrap()
            .iter()
            .map(|&x| x as f64)
            .collect();
        let g: Vec<f32> = grad(&w).iter().map(|&x| x as f32).collect();
        be.write_f32(ids[0], &g);
        be.run(
            Pass::Train,
            &StepScalars {
                slot: 0,
                t: step,
                lr: LR as f32,
                ..Default::default()
            },
        );
        out.push(
            pollster::block_on(be.read_f32(ids[1], n))
                .unwrap()
                .iter()
                .map(|&x| x as f64)
                .collect(),
        );
    }
    out
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// docs/theory.md §2, literally.
fn reference_steps(opt: Optimizer) -> Vec<Vec<f64>> {
    let mut w = W0.to_vec();
    let (mut s1, mut s2) = (vec![0.0; 4], vec![0.0; 4]);
    let mut out = Vec::new();
    for t in 1..=3 {
        match opt {
            Optimizer::Sgd => {
                let g = grad(&w);
                (0..4).for_each(|i| w[i] -= LR * g[i]);
            }
            Optimizer::Momentum { momentum: mu } => {
                let g = grad(&w);
                (0..4).for_each(|i| {
                    s1[i] = mu as f64 * s1[i] - LR * g[i];
                    w[i] += s1[i];
                });
            }
            Optimizer::Nesterov { momentum: mu } => {
                // v ← μ v − η ∇ℓ(w + μ v); w ← w + v
                let mu = mu as f64;
                let ahead: Vec<f64> = (0..4).map(|i| w[i] + mu * s1[i]).collect();
                let g = grad(&ahead);
                (0..4).for_each(|i| {
                    s1[i] = mu * s1[i] - LR * g[i];
                    w[i] += s1[i];
                });
                // The engine keeps the look-ahead point w + μ v as its weights.
                out.push((0..4).map(|i| w[i] + mu * s1[i]).collect());
                continue;
            }
            Optimizer::AdaGrad { eps } => {
                let g = grad(&w);
                (0..4).for_each(|i| {
                    s1[i] += g[i] * g[i];
                    w[i] -= LR * g[i] / (s1[i] + eps as f64).sqrt();
                });
            }
            Optimizer::RmsProp { beta, eps } => {
                let (b, g) = (beta as f64, grad(&w));
                (0..4).for_each(|i| {
                    s1[i] = b * s1[i] + (1.0 - b) * g[i] * g[i];
                    w[i] -= LR * g[i] / (s1[i].sqrt() + eps as f64);
                });
            }
            Optimizer::Adam { beta1, beta2, eps }
            | Optimizer::AdamW {
                beta1, beta2, eps, ..
            } => {
                let decay = match opt {
                    Optimizer::AdamW { weight_decay, .. } => weight_decay as f64,
                    _ => 0.0,
                };
                let (b1, b2, g) = (beta1 as f64, beta2 as f64, grad(&w));
                (0..4).for_each(|i| {
                    s1[i] = b1 * s1[i] + (1.0 - b1) * g[i];
                    s2[i] = b2 * s2[i] + (1.0 - b2) * g[i] * g[i];
                    let m_hat = s1[i] / (1.0 - b1.powi(t));
                    let v_hat = s2[i] / (1.0 - b2.powi(t));
                    w[i] = w[i] - LR * m_hat / (v_hat.sqrt() + eps as f64) - LR * decay * w[i];
                });
            }
            Optimizer::Lars {
                momentum,
                weight_decay,
            } => {
                let (mu, lambda, g) = (momentum as f64, weight_decay as f64, grad(&w));
                let local = LR * norm(&w) / (norm(&g) + lambda * norm(&w));
                (0..4).for_each(|i| {
                    s1[i] = mu * s1[i] + local * (g[i] + lambda * w[i]);
                    w[i] -= s1[i];
                });
            }
        }
        out.push(w.clone());
    }
    out
}

#[test]
fn first_three_updates_match_the_formulas() {
    for opt in Optimizer::all() {
        let (got, want) = (engine_steps(opt), reference_steps(opt));
        for (step, (g, w)) in got.iter().zip(&want).enumerate() {
            for i in 0..4 {
                assert!(
                    (g[i] - w[i]).abs() <= 1e-5 * (1.0 + w[i].abs()),
                    "{} step {}: w[{i}] engine {} vs formula {}",
                    opt.label(),
                    step + 1,
                    g[i],
                    w[i]
                );
            }
        }
        // Every optimizer moves the weights towards the minimum at 0 on this bowl.
        assert!(norm(&got[2]) < norm(&W0), "{}", opt.label());
    }
}
