//! Runs a plan with the kernels' CPU twins: the reference in tests and the fallback in browsers
//! without WebGPU.

use super::Pass;
use crate::error::Error;
use crate::kernel::{BufId, CpuBuf, CpuBuffers, StepScalars};
use crate::plan::Plan;

/// What the CPU path may allocate for one model: in a browser the page shares a 4 GB wasm
/// memory with everything else, so a model past this is refused before anything is allocated.
pub const CPU_MEMORY_BUDGET: u64 = 512 << 20;

/// Refuses a plan whose buffers together exceed [`CPU_MEMORY_BUDGET`].
pub fn check_budget(plan: &Plan) -> Result<(), Error> {
    let bytes = plan.table.total_bytes();
    if bytes > CPU_MEMORY_BUDGET {
        let largest = plan.table.specs.iter().max_by_key(|s| s.len);
        return Err(Error::TooLarge(format!(
            "this model needs {:.0} MB (its largest buffer, '{}', {:.0} MB) but the CPU path allows {} MB: use a smaller model, batch or data set",
            bytes as f64 / 1e6,
            largest.map_or("", |s| s.name.as_str()),
            largest.map_or(0.0, |s| s.len as f64 * 4.0 / 1e6),
            CPU_MEMORY_BUDGET >> 20
        )));
    }
    Ok(())
}

pub struct CpuBackend {
    plan: Plan,
    bufs: CpuBuffers,
}

impl CpuBackend {
    pub fn new(plan: Plan) -> Self {
        let bufs = CpuBuffers::new(&plan.table);
        Self { plan, bufs }
    }

    pub fn write_f32(&mut self, id: BufId, data: &[f32]) {
        self.write_f32_at(id, 0, data);
    }

    /// Writes `data` into the buffer from element `at` on.
    pub fn write_f32_at(&mut self, id: BufId, at: usize, data: &[f32]) {
        match self.bufs.memory(id) {
            CpuBuf::F32(v) => v[at..at + data.len()].copy_from_slice(data),
            CpuBuf::U32(_) => panic!("buffer {} holds u32", id.0),
        }
    }

    pub fn write_u32(&mut self, id: BufId, data: &[u32]) {
        match self.bufs.memory(id) {
            CpuBuf::U32(v) => v[..data.len()].copy_from_slice(data),
            CpuBuf::F32(_) => panic!("buffer {} holds f32", id.0),
        }
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    pub fn run(&mut self, pass: Pass, step: &StepScalars) {
        for k in self.plan.kernels(pass) {
            k.run_cpu(&mut self.bufs, step);
        }
    }

    /// Runs whole training passes fused (the default) or as the teaching kernels.
    pub fn set_fused(&mut self, on: bool) {
        self.plan.use_fused = on;
    }

    pub fn run_train_range(&mut self, range: std::ops::Range<usize>, step: &StepScalars) {
        for k in &self.plan.train[range] {
            k.run_cpu(&mut self.bufs, step);
        }
    }

    /// Times every kernel of `pass` over `reps` runs; ms per run.
    pub fn profile(
        &mut self,
        pass: Pass,
        step: &StepScalars,
        reps: usize,
        now_ms: &dyn Fn() -> f64,
    ) -> Vec<f64> {
        self.plan
            .kernels(pass)
            .iter()
            .map(|k| {
                let t0 = now_ms();
                for _ in 0..reps {
                    k.run_cpu(&mut self.bufs, step);
                }
                (now_ms() - t0) / reps as f64
            })
            .collect()
    }

    /// Moves a whole f32 buffer of `len` elements into `out`, leaving `out`'s old contents (of the
    /// same length) in its place: no copy. Only for buffers the next pass overwrites (the
    /// gradients); otherwise, or when the lengths differ, copies.
    pub fn take_f32_into(&mut self, id: BufId, len: usize, out: &mut Vec<f32>) {
        match self.bufs.memory(id) {
            CpuBuf::F32(v) if v.len() == len && out.len() == len => std::mem::swap(v, out),
            _ => {
                out.clear();
                self.read_f32_into(id, len, out);
            }
        }
    }

    /// Appends the first `len` elements of an f32 buffer to `out`.
    pub fn read_f32_into(&self, id: BufId, len: usize, out: &mut Vec<f32>) {
        match self.bufs.memory_ref(id) {
            CpuBuf::F32(v) => out.extend_from_slice(&v[..len]),
            CpuBuf::U32(v) => out.extend(v[..len].iter().map(|w| f32::from_bits(*w))),
        }
    }

    /// The first `len` elements as raw 32-bit words, like a GPU readback.
    pub fn read_words(&self, id: BufId, len: usize) -> Vec<u32> {
        match self.bufs.memory_ref(id) {
            CpuBuf::F32(v) => v[..len].iter().map(|x| x.to_bits()).collect(),
            CpuBuf::U32(v) => v[..len].to_vec(),
        }
    }
}
