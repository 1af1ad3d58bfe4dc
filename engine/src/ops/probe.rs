//! The roofline's two probes (`shaders/probe_flops.wgsl`, `shaders/probe_copy.wgsl`): one all
//! arithmetic, one all memory traffic. Timed on a device they give its attainable FLOP/s and
//! bytes/s, the two roofs of the roofline model (Williams et al. 2009; docs/theory.md §11.1).

use crate::kernel::{wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

/// FLOPs one round of the compute probe does in one invocation: 8 chains × 4 lanes × 2.
pub const FLOPS_PER_ROUND: f64 = 64.0;

/// The probe's multiply and add: every lane walks to exactly 1.0.
const A: f32 = 0.5;
const B: f32 = 0.5;

/// `n` invocations of `iters` rounds of fused multiply-adds; out[i] their lanes' sum.
#[derive(Clone)]
pub struct ProbeFlops {
    pub out: BufId,
    pub n: usize,
    pub iters: usize,
}

/// The CPU twin of `probe_flops.wgsl`, invocation by invocation, the invocations shared among
/// the cores as the other twins share their work (`parallel`), the 32 lanes in one flat loop the
/// compiler vectorizes: the CPU path's attainable rate for code written as the twins are.
pub fn probe_flops_cpu(n: usize, iters: usize, out: &mut [f32]) {
    crate::parallel::for_each_piece(&mut out[..n], 256, |piece, out| {
        for (offset, o) in out.iter_mut().enumerate() {
            let i = piece * 256 + offset;
            let s = (i & 7) as f32 * 0.125;
            let start = [s, s + 0.01, s + 0.02, s + 0.03];
            // Chain c, lane l at 4·c + l, as the shader's x_c.
            let mut x = [0.0f32; 32];
            for (k, v) in x.iter_mut().enumerate() {
                let (c, l) = (k / 4, k % 4);
                *v = if c == 0 {
                    start[l]
                } else {
                    start[l] + 0.1 * c as f32
                };
            }
            // A multiply then an add: A·x is exact (a halving), so one rounding, as the fused op's.
            for _ in 0..iters {
                for v in x.iter_mut() {
                    *v = *v * A + B;
                }
            }
            let lane = |l: usize| {
                ((x[l] + x[4 + l]) + (x[8 + l] + x[12 + l]))
                    + ((x[16 + l] + x[20 + l]) + (x[24 + l] + x[28 + l]))
            };
            *o = (lane(0) + lane(1)) + (lane(2) + lane(3));
        }
    });
}

impl Kernel for ProbeFlops {
    fn shader(&self) -> Shader {
        wgsl!("probe_flops.wgsl", "main")
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default()
            .u("n", self.n as u32)
            .u("iters", self.iters as u32)
            .f("a", A)
            .f("b", B)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.out)]
    }
    fn workgroups(&self) -> [u32; 3] {
        [(self.n as u32).div_ceil(256).max(1), 1, 1]
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut out = bufs.take_f32(self.out);
        probe_flops_cpu(self.n, self.iters, &mut out);
        bufs.put_f32(self.out, out);
    }
    fn flops(&self) -> f64 {
        FLOPS_PER_ROUND * (self.n * self.iters) as f64
    }
    fn bytes(&self) -> f64 {
        4.0 * self.n as f64
    }
}

/// dst ← src over `n` floats, on `groups` workgroups striding over them.
#[derive(Clone)]
pub struct ProbeCopy {
    pub src: BufId,
    pub dst: BufId,
    pub n: usize,
    pub groups: u32,
}

impl Kernel for ProbeCopy {
    fn shader(&self) -> Shader {
        wgsl!("probe_copy.wgsl", "main")
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default().u("n", self.n as u32)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.src), (2, self.dst)]
    }
    fn workgroups(&self) -> [u32; 3] {
        [self.groups.max(1), 1, 1]
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut dst = bufs.take_f32(self.dst);
        dst[..self.n].copy_from_slice(&bufs.f32(self.src)[..self.n]);
        bufs.put_f32(self.dst, dst);
    }
    fn bytes(&self) -> f64 {
        8.0 * self.n as f64
    }
}
