//! What every op shares: the buffers it names, the scalars that change from step to step, and the
//! `Kernel` trait that gives each op both a GPU description (shader, uniform, bindings, grid) and
//! a plain-Rust CPU twin. A plan is a list of kernels; the GPU and CPU backends run the same list.

mod groups;
pub use groups::{groups_1d, strided_groups};

/// What kernels adapt to on a device (`Kernel::fit_device`, `GpuContext::fit`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeviceFit {
    /// Workgroups the device runs at once where that is few (`GpuContext::parallel_workgroups`;
    /// 0: a real GPU).
    pub parallel_workgroups: u32,
    /// The matrix products' tiles by product size (`GpuContext::tiles`).
    pub tiles: crate::tiles::TilePlan,
    /// The device runs subgroup operations (WebGPU's `subgroups`): an emulated GPU's products
    /// then share reads across a quad of lanes (`shaders/matmul_fused_quad.wgsl`).
    pub subgroups: bool,
}

impl DeviceFit {
    /// A real GPU, not one emulated on the processor: kernels size their work for many cores.
    pub fn real_gpu(&self) -> bool {
        self.parallel_workgroups == 0
    }
}

/// Index of a buffer in a plan's buffer table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BufId(pub usize);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F32,
    U32,
}

#[derive(Clone, Debug)]
pub struct BufSpec {
    pub name: String,
    pub elem: Elem,
    pub len: usize,
    /// The buffer whose memory this one lives in: itself, unless the plan found the two never
    /// live at once (`plan::liveness`), when they share it (the larger's size).
    pub home: BufId,
}

/// The buffers of a plan. Every buffer holds 32-bit elements.
#[derive(Clone, Debug, Default)]
pub struct BufferTable {
    pub specs: Vec<BufSpec>,
}

impl BufferTable {
    pub fn add(&mut self, name: &str, elem: Elem, len: usize) -> BufId {
        let id = BufId(self.specs.len());
        self.specs.push(BufSpec {
            name: name.to_string(),
            elem,
            len: len.max(1),
            home: id,
        });
        id
    }

    pub fn len_of(&self, id: BufId) -> usize {
        self.specs[id.0].len
    }

    /// The buffer whose memory `id` lives in.
    pub fn home(&self, id: BufId) -> BufId {
        self.specs[id.0].home
    }

    /// Each buffer's allocation in elements: the largest of those living in it for a home, 0
    /// for a buffer that lives in another's.
    pub fn allocations(&self) -> Vec<usize> {
        let mut lens = vec![0; self.specs.len()];
        for s in &self.specs {
            lens[s.home.0] = lens[s.home.0].max(s.len);
        }
        lens
    }

    /// Bytes of device memory the plan allocates (buffers that share memory counted once).
    pub fn total_bytes(&self) -> u64 {
        self.allocations().iter().map(|&l| l as u64 * 4).sum()
    }
}

/// Values that change every step; kernels that depend on them have their uniform rewritten.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepScalars {
    /// Slot in the metrics log for this step.
    pub slot: u32,
    /// Optimizer step, from 1.
    pub t: u32,
    /// Learning rate for this step.
    pub lr: f32,
    /// Landscape points this pass evaluates, when fewer than the plan's `points_per_pass` (the
    /// last pass of a list): kernels skip the other points' work. 0: all.
    pub points: u32,
    /// The loss scale of a reduced-precision step (a power of two; 0 counts as 1): the loss's
    /// gradient is multiplied by it and the weights' gradients divided by it.
    pub loss_scale: f32,
}

impl StepScalars {
    /// The loss scale, 1 when none was set.
    pub fn loss_scale(&self) -> f32 {
        if self.loss_scale == 0.0 {
            1.0
        } else {
            self.loss_scale
        }
    }
}

/// Independent copies of one forward computation run in a single dispatch: the loss landscape's
/// points, each with its own weights. Copy q reads its parameters `q·param_stride` further on
/// and its rows follow copy q − 1's. The default is a single copy (training, prediction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Points {
    pub count: usize,
    pub param_stride: usize,
}

impl Points {
    pub fn new(count: usize, param_stride: usize) -> Self {
        Self { count, param_stride }
    }

    /// How many copies (at least one).
    pub fn n(&self) -> usize {
        self.count.max(1)
    }

    /// How many copies this run computes (see `StepScalars::points`).
    pub fn live(&self, step: &StepScalars) -> usize {
        live_points(self.count, step)
    }
}

/// How many of `count` copies (0 counts as 1) a run computes: the first `step.points`, or all
/// when the step names none.
pub fn live_points(count: usize, step: &StepScalars) -> usize {
    match step.points as usize {
        0 => count.max(1),
        p => p.min(count.max(1)),
    }
}

/// CPU storage for a plan's buffers.
#[derive(Clone, Debug)]
pub enum CpuBuf {
    F32(Vec<f32>),
    U32(Vec<u32>),
}

/// A plan's buffers in memory, one allocation per home (`BufSpec::home`): a buffer that shares
/// its home's memory sees its first `len` elements, as the GPU binds them.
pub struct CpuBuffers {
    /// By buffer; empty for a buffer that lives in another's home.
    bufs: Vec<CpuBuf>,
    homes: Vec<usize>,
    lens: Vec<usize>,
    /// By buffer: its allocation in elements if it is a home (`BufferTable::allocations`).
    allocations: Vec<usize>,
}

impl CpuBuffers {
    pub fn new(table: &BufferTable) -> Self {
        let allocations = table.allocations();
        let bufs = table
            .specs
            .iter()
            .zip(&allocations)
            .map(|(s, &n)| match s.elem {
                Elem::F32 => CpuBuf::F32(vec![0.0; n]),
                Elem::U32 => CpuBuf::U32(vec![0; n]),
            })
            .collect();
        Self {
            bufs,
            homes: table.specs.iter().map(|s| s.home.0).collect(),
            lens: table.specs.iter().map(|s| s.len).collect(),
            allocations,
        }
    }

    /// The buffer's memory: its home's whole allocation (at least its own length).
    pub fn memory(&mut self, id: BufId) -> &mut CpuBuf {
        &mut self.bufs[self.homes[id.0]]
    }

    /// The buffer's memory, to read.
    pub fn memory_ref(&self, id: BufId) -> &CpuBuf {
        &self.bufs[self.homes[id.0]]
    }

    pub fn f32(&self, id: BufId) -> &[f32] {
        match self.memory_ref(id) {
            CpuBuf::F32(v) => &v[..self.lens[id.0]],
            CpuBuf::U32(_) => panic!("buffer {} holds u32", id.0),
        }
    }

    pub fn u32(&self, id: BufId) -> &[u32] {
        match self.memory_ref(id) {
            CpuBuf::U32(v) => &v[..self.lens[id.0]],
            CpuBuf::F32(_) => panic!("buffer {} holds f32", id.0),
        }
    }

    /// Takes a buffer out (so it can be written while others are read); put it back with `put_f32`.
    pub fn take_f32(&mut self, id: BufId) -> Vec<f32> {
        let len = self.lens[id.0];
        match std::mem::replace(self.memory(id), CpuBuf::F32(Vec::new())) {
            CpuBuf::F32(mut v) => {
                v.truncate(len);
                v
            }
            CpuBuf::U32(_) => panic!("buffer {} holds u32", id.0),
        }
    }

    /// Puts back what `take_f32` took (its home's allocation regrown: what lay past the buffer
    /// belonged to buffers that are dead while it lives).
    pub fn put_f32(&mut self, id: BufId, mut v: Vec<f32>) {
        let home = self.homes[id.0];
        v.resize(v.len().max(self.allocations[home]), 0.0);
        self.bufs[home] = CpuBuf::F32(v);
    }

    pub fn take_u32(&mut self, id: BufId) -> Vec<u32> {
        let len = self.lens[id.0];
        match std::mem::replace(self.memory(id), CpuBuf::U32(Vec::new())) {
            CpuBuf::U32(mut v) => {
                v.truncate(len);
                v
            }
            CpuBuf::F32(_) => panic!("buffer {} holds f32", id.0),
        }
    }

    pub fn put_u32(&mut self, id: BufId, mut v: Vec<u32>) {
        let home = self.homes[id.0];
        v.resize(v.len().max(self.allocations[home]), 0);
        self.bufs[home] = CpuBuf::U32(v);
    }
}

/// A WGSL source file and the entry point a kernel uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shader {
    pub file: &'static str,
    pub source: &'static str,
    pub entry: &'static str,
}

/// Uniform words, packed as the shader's `Params` struct (u32 and f32 fields, 4 bytes each), each
/// named after its field so that a test can hold the order against the WGSL.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Words {
    values: Vec<u32>,
    fields: Vec<(&'static str, Elem)>,
}

impl Words {
    pub fn u(mut self, field: &'static str, v: u32) -> Self {
        self.values.push(v);
        self.fields.push((field, Elem::U32));
        self
    }
    pub fn f(mut self, field: &'static str, v: f32) -> Self {
        self.values.push(v.to_bits());
        self.fields.push((field, Elem::F32));
        self
    }
    /// The fields written, in order: what the shader's `Params` must begin with.
    pub fn fields(&self) -> &[(&'static str, Elem)] {
        &self.fields
    }
    /// Pads to a multiple of 16 bytes, as uniform buffers want.
    pub fn padded(mut self) -> Vec<u32> {
        while !self.values.len().is_multiple_of(4) || self.values.is_empty() {
            self.values.push(0);
        }
        self.values
    }
}

/// What every kernel gets for free: a boxed copy (the fused list copies the kernels it leaves
/// alone) and a view as `Any` (the fusion pass recognises kernels by their type).
pub trait KernelCopy {
    fn boxed_copy(&self) -> Box<dyn Kernel>;
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: Kernel + Clone + 'static> KernelCopy for T {
    fn boxed_copy(&self) -> Box<dyn Kernel> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

pub trait Kernel: KernelCopy {
    fn shader(&self) -> Shader;
    /// The uniform at binding 0, for the given step.
    fn params(&self, step: &StepScalars) -> Words;
    /// Storage buffers the entry point uses, as (binding, buffer).
    fn bindings(&self) -> Vec<(u32, BufId)>;
    /// Workgroups to dispatch.
    fn workgroups(&self) -> [u32; 3];
    /// Values for the shader's pipeline-overridable constants (`override` in WGSL): the kernel's
    /// pipeline is specialized to them. `fine`: specialize to this kernel alone (a real GPU,
    /// whose driver compiles in milliseconds); else share pipelines between kernels where the
    /// kernel can (an emulated GPU, where each compile takes a second or more). Empty: the
    /// shader's defaults.
    fn constants(&self, _fine: bool) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// Adapts the kernel to the device (`GpuContext::fit`): a grid for one that runs only a few
    /// workgroups at once, the product kernels' tile shape. Called once, before dispatching.
    fn fit_device(&mut self, _fit: DeviceFit) {}
    /// True when `params` depends on the step scalars (the uniform is rewritten each step).
    fn per_step(&self) -> bool {
        false
    }
    /// True when the shader walks its 1-D grid in a grid-stride loop (each invocation takes every
    /// (workgroups × size)-th element from its own), so it may be dispatched fewer workgroups
    /// along x than `workgroups` gives (`strided_groups`).
    fn strided(&self) -> bool {
        false
    }
    /// The CPU twin: the same computation in plain Rust.
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars);
    /// Floating-point operations of one run (a multiply-add counts 2), for GFLOP/s figures;
    /// 0 for kernels whose cost is memory traffic rather than arithmetic.
    fn flops(&self) -> f64 {
        0.0
    }
    /// Bytes the kernel must move between memory and the device at the least (each value it
    /// reads or writes once), for its arithmetic intensity on a roofline; 0 where not counted.
    fn bytes(&self) -> f64 {
        0.0
    }
    /// The teaching kernels a fused kernel runs as one, in order (none for a kernel of one op).
    fn parts(&self) -> &[Box<dyn Kernel>] {
        &[]
    }
    /// A short name for profiles: the shader file, and the entry point when it is not `main`.
    fn name(&self) -> String {
        let s = self.shader();
        let file = s.file.trim_end_matches(".wgsl");
        if s.entry == "main" {
            file.to_string()
        } else {
            format!("{file}:{}", s.entry)
        }
    }
}

macro_rules! wgsl {
    ($file:literal, $entry:literal) => {
        $crate::kernel::Shader {
            file: $file,
            // From the crate root, so an op may live at any depth under `ops/`.
            source: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../shaders/", $file)),
            entry: $entry,
        }
    };
}
pub(crate) use wgsl;

/// A shader made of several WGSL files, concatenated in order (shared code first, e.g. the
/// matrix product's tile loop); `$file` names the result (the last file, which holds the entry).
macro_rules! wgsl_with {
    ([$($part:literal),+], $file:literal, $entry:literal) => {
        $crate::kernel::Shader {
            file: $file,
            source: concat!(
                $(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../shaders/", $part)),)+
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../shaders/", $file))
            ),
            entry: $entry,
        }
    };
}
pub(crate) use wgsl_with;
