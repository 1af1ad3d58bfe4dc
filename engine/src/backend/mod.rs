//! Where a plan runs: the GPU (WGSL kernels through wgpu) or the CPU (the kernels' Rust twins).

pub mod cpu;
pub mod gpu;

use crate::error::Error;
use crate::kernel::{BufId, StepScalars};

pub use crate::plan::Pass;
pub use cpu::CpuBackend;
pub use gpu::GpuBackend;

/// How a kernel's time was taken (docs/theory.md §11.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// The host's clock around many copies of the dispatch in one submission, less the time of
    /// a read-back alone: what any WebGPU offers.
    #[default]
    Repeated,
    /// The GPU's own clock (timestamp queries) at the start and end of a pass of many copies.
    Timestamps,
    /// The host's clock around repeated runs of the CPU twin.
    Cpu,
}

/// How long one kernel of a pass took.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KernelTime {
    pub name: String,
    pub ms: f64,
    pub flops: f64,
    /// The least bytes it moves (`Kernel::bytes`; 0 where not counted).
    #[serde(default)]
    pub bytes: f64,
    #[serde(default)]
    pub clock: Clock,
}

pub enum Backend {
    Gpu(GpuBackend),
    Cpu(CpuBackend),
}

impl Backend {
    /// `plan` on the GPU `gpu` gives, else on the CPU path (the trainer adds its memory budget
    /// check to the CPU side; the sparse network and the roofline's probes need none).
    pub async fn on(
        gpu: Option<std::rc::Rc<crate::gpu::GpuContext>>,
        plan: crate::plan::Plan,
    ) -> Result<Self, Error> {
        Ok(match gpu {
            Some(ctx) => Backend::Gpu(GpuBackend::new(ctx, plan).await?),
            None => Backend::Cpu(CpuBackend::new(plan)),
        })
    }

    pub fn write_f32(&mut self, id: BufId, data: &[f32]) {
        match self {
            Backend::Gpu(g) => g.write(id, bytemuck::cast_slice(data)),
            Backend::Cpu(c) => c.write_f32(id, data),
        }
    }

    /// Writes `data` into an f32 buffer from element `at` on.
    pub fn write_f32_at(&mut self, id: BufId, at: usize, data: &[f32]) {
        match self {
            Backend::Gpu(g) => g.write_at(id, 4 * at as u64, bytemuck::cast_slice(data)),
            Backend::Cpu(c) => c.write_f32_at(id, at, data),
        }
    }

    pub fn write_u32(&mut self, id: BufId, data: &[u32]) {
        match self {
            Backend::Gpu(g) => g.write(id, bytemuck::cast_slice(data)),
            Backend::Cpu(c) => c.write_u32(id, data),
        }
    }

    pub fn run(&mut self, pass: Pass, step: &StepScalars) {
        match self {
            Backend::Gpu(g) => g.run(pass, step),
            Backend::Cpu(c) => c.run(pass, step),
        }
    }

    /// Runs whole training passes as the fused kernel list (the default) or as the teaching
    /// kernels, one op each; the values agree (bit for bit on the CPU).
    pub fn set_fused(&mut self, on: bool) {
        match self {
            Backend::Gpu(g) => g.set_fused(on),
            Backend::Cpu(c) => c.set_fused(on),
        }
    }

    /// Runs the training pass's unfused kernels `range` only (rematerialization re-runs a stretch of
    /// the forward between backward kernels).
    pub fn run_train_range(&mut self, range: std::ops::Range<usize>, step: &StepScalars) {
        match self {
            Backend::Gpu(g) => g.run_train_range(range, step),
            Backend::Cpu(c) => c.run_train_range(range, step),
        }
    }

    /// Runs `pass` and reads `reads` (buffer, elements) back as f32, on the GPU in the pass's
    /// own command buffer with one awaited readback.
    pub async fn run_and_read(
        &mut self,
        pass: Pass,
        step: &StepScalars,
        reads: &[(BufId, usize)],
    ) -> Result<Vec<Vec<f32>>, Error> {
        let words = match self {
            Backend::Gpu(g) => g.run_and_read(pass, step, reads).await?,
            Backend::Cpu(c) => {
                c.run(pass, step);
                reads.iter().map(|(id, len)| c.read_words(*id, *len)).collect()
            }
        };
        Ok(as_f32(words))
    }

    /// Readbacks awaited on the GPU so far (0 on the CPU path, which reads memory directly).
    pub fn readbacks(&self) -> u64 {
        match self {
            Backend::Gpu(g) => g.ctx.readbacks(),
            Backend::Cpu(_) => 0,
        }
    }

    /// Reads back `len` elements as f32 (u32 buffers come back bit-cast, as on the GPU).
    pub async fn read_f32(&self, id: BufId, len: usize) -> Result<Vec<f32>, Error> {
        let words = match self {
            Backend::Gpu(g) => g.read(id, len).await?,
            Backend::Cpu(c) => c.read_words(id, len),
        };
        Ok(words.into_iter().map(f32::from_bits).collect())
    }

    /// Reads `len` f32 elements into `out`, reusing its allocation (a cluster reads a gradient per
    /// worker per step: fresh vectors of that size cost a page fault per 4 KiB).
    pub async fn read_f32_into(&self, id: BufId, len: usize, out: &mut Vec<f32>) -> Result<(), Error> {
        out.clear();
        match self {
            Backend::Gpu(g) => out.extend(g.read(id, len).await?.into_iter().map(f32::from_bits)),
            Backend::Cpu(c) => c.read_f32_into(id, len, out),
        }
        Ok(())
    }

    /// Like [`Self::read_f32_into`] for a buffer the next pass overwrites (the gradients): the CPU
    /// path swaps it with `out` instead of copying when their lengths match.
    pub async fn take_f32_into(&mut self, id: BufId, len: usize, out: &mut Vec<f32>) -> Result<(), Error> {
        match self {
            Backend::Cpu(c) => {
                c.take_f32_into(id, len, out);
                Ok(())
            }
            Backend::Gpu(_) => self.read_f32_into(id, len, out).await,
        }
    }

    pub fn name(&self) -> String {
        match self {
            Backend::Gpu(g) => g.ctx.adapter.label(),
            Backend::Cpu(_) => "CPU".to_string(),
        }
    }

    /// Per-kernel times of one run of `pass` (see the backends' `profile`), with each kernel's
    /// name and FLOPs.
    pub async fn profile(
        &mut self,
        pass: Pass,
        step: &StepScalars,
        reps: usize,
        now_ms: &dyn Fn() -> f64,
    ) -> Result<Vec<KernelTime>, Error> {
        let reps = reps.max(1);
        let (times, clock) = match self {
            Backend::Gpu(g) => g.profile(pass, step, reps, now_ms).await?,
            Backend::Cpu(c) => (c.profile(pass, step, reps, now_ms), Clock::Cpu),
        };
        let plan = self.plan();
        Ok(plan
            .kernels(pass)
            .iter()
            .zip(times)
            .map(|(k, ms)| KernelTime {
                name: k.name(),
                ms,
                flops: k.flops(),
                bytes: k.bytes(),
                clock,
            })
            .collect())
    }

    pub fn plan(&self) -> &crate::plan::Plan {
        match self {
            Backend::Gpu(g) => g.plan(),
            Backend::Cpu(c) => c.plan(),
        }
    }

    pub fn is_gpu(&self) -> bool {
        matches!(self, Backend::Gpu(_))
    }

    /// The product kernels' tiles on a GPU; None on the CPU path.
    pub fn tiles(&self) -> Option<crate::tiles::TilePlan> {
        match self {
            Backend::Gpu(g) => Some(g.tiles),
            Backend::Cpu(_) => None,
        }
    }

    /// Why the GPU device under this backend was lost, if it was.
    pub fn gpu_lost(&self) -> Option<String> {
        match self {
            Backend::Gpu(g) => g.ctx.lost(),
            Backend::Cpu(_) => None,
        }
    }
}

fn as_f32(words: Vec<Vec<u32>>) -> Vec<Vec<f32>> {
    words
        .into_iter()
        .map(|w| w.into_iter().map(f32::from_bits).collect())
        .collect()
}
