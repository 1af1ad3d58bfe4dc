//! LARS: layer-wise trust ratios (`shaders/lars.wgsl`). Two kernels: the per-tensor norms, then the
//! update that uses them.

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

/// What both LARS kernels bind.
#[derive(Clone, Copy, Debug)]
pub struct LarsBuffers {
    pub grads: BufId,
    pub weights: BufId,
    pub velocity: BufId,
    /// u32 × (segments + 1): tensor l covers [bounds[l], bounds[l + 1]).
    pub bounds: BufId,
    /// f32 × 2·segments: ‖w_l‖, ‖g_l‖.
    pub norms: BufId,
    pub n: usize,
    pub segments: usize,
}

#[derive(Clone, Copy, Debug)]
pub struct LarsHyper {
    pub momentum: f32,
    pub weight_decay: f32,
}

#[derive(Clone)]
pub struct LarsNorms {
    pub b: LarsBuffers,
    pub h: LarsHyper,
}

#[derive(Clone)]
pub struct LarsUpdate {
    pub b: LarsBuffers,
    pub h: LarsHyper,
}

/// The trust-ratio learning rate of one tensor.
pub fn local_lr(lr: f32, w_norm: f32, g_norm: f32, weight_decay: f32) -> f32 {
    if w_norm > 0.0 && g_norm > 0.0 {
        lr * w_norm / (g_norm + weight_decay * w_norm)
    } else {
        lr
    }
}

/// The CPU twin of both kernels.
pub fn lars_cpu(g: &[f32], w: &mut [f32], v: &mut [f32], bounds: &[u32], lr: f32, h: LarsHyper) {
    for seg in bounds.windows(2) {
        let r = seg[0] as usize..seg[1] as usize;
        let wn = w[r.clone()].iter().map(|x| x * x).sum::<f32>().sqrt();
        let gn = g[r.clone()].iter().map(|x| x * x).sum::<f32>().sqrt();
        let eta = local_lr(lr, wn, gn, h.weight_decay);
        for i in r {
            v[i] = h.momentum * v[i] + eta * (g[i] + h.weight_decay * w[i]);
            w[i] -= v[i];
        }
    }
}

fn words(b: &LarsBuffers, h: &LarsHyper, lr: f32) -> Words {
    Words::default()
        .u("n", b.n as u32)
        .u("segments", b.segments as u32)
        .f("lr", lr)
        .f("momentum", h.momentum)
        .f("weight_decay", h.weight_decay)
}

/// FLOPs a parameter of LARS (theory §11.1): the layer norms' w·w and g·g, each summed (4), then
/// the update v = μ·v + η_l·(g + λ·w), w − v (6); the per-layer rate η_l is the layer's, not the
/// parameter's.
pub const LARS_FLOPS_PER_PARAM: (f64, f64) = (4.0, 6.0);

impl Kernel for LarsNorms {
    fn flops(&self) -> f64 {
        LARS_FLOPS_PER_PARAM.0 * self.b.n as f64
    }
    fn bytes(&self) -> f64 {
        // Reads w and g once; the per-layer bounds and norms are a few words.
        8.0 * self.b.n as f64
    }
    fn shader(&self) -> Shader {
        wgsl!("lars.wgsl", "layer_norms")
    }
    fn params(&self, step: &StepScalars) -> Words {
        words(&self.b, &self.h, step.lr)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.b.grads),
            (2, self.b.weights),
            (4, self.b.bounds),
            (5, self.b.norms),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        [self.b.segments.max(1) as u32, 1, 1]
    }
    fn run_cpu(&self, _: &mut CpuBuffers, _: &StepScalars) {
        // The CPU twin computes the norms inside `LarsUpdate`.
    }
}

impl Kernel for LarsUpdate {
    fn flops(&self) -> f64 {
        LARS_FLOPS_PER_PARAM.1 * self.b.n as f64
    }
    fn bytes(&self) -> f64 {
        // Reads g, w and v; writes w and v.
        20.0 * self.b.n as f64
    }
    fn shader(&self) -> Shader {
        wgsl!("lars.wgsl", "update")
    }
    fn params(&self, step: &StepScalars) -> Words {
        words(&self.b, &self.h, step.lr)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        let b = &self.b;
        vec![
            (1, b.grads),
            (2, b.weights),
            (3, b.velocity),
            (4, b.bounds),
            (6, b.norms),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.b.n, 256)
    }
    fn per_step(&self) -> bool {
        true
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let b = &self.b;
        let (mut w, mut v) = (bufs.take_f32(b.weights), bufs.take_f32(b.velocity));
        let bounds = bufs.u32(b.bounds)[..=b.segments].to_vec();
        lars_cpu(bufs.f32(b.grads), &mut w, &mut v, &bounds, step.lr, self.h);
        bufs.put_f32(b.weights, w);
        bufs.put_f32(b.velocity, v);
    }
}
