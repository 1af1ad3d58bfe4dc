//! C = A · B with strided reads (see `shaders/matmul.wgsl`).

use crate::kernel::{live_points, BufId, CpuBuffers, DeviceFit, Kernel, Shader, StepScalars, Words};
use crate::tiles::TileShape;

pub use super::matmul_dims::{matmul_reference, MatmulDims};

#[derive(Clone)]
pub struct Matmul {
    pub a: BufId,
    pub b: BufId,
    pub c: BufId,
    pub dims: MatmulDims,
    /// Workgroups to run at most (0: the device decides, see `Kernel::fit_device`; none there:
    /// one per tile). A GPU emulated on the processor runs one workgroup per core at a time and
    /// pays for every extra one (W1's weight gradient, 26 tiles: 16 workgroups took about twice
    /// as long as 2 on SwiftShader with 2 cores), so there workgroups loop over the tiles.
    pub parallel: u32,
    /// The tile shape (None: the device's, see `Kernel::fit_device`; none there: 64 × 64).
    pub tiles: Option<TileShape>,
    /// The split tiles fetch the next slice of k while they multiply (on a real GPU, set by
    /// `Kernel::fit_device`; see `shaders/matmul_tile_split_ahead.wgsl`).
    pub fetch_ahead: bool,
}

impl Matmul {
    pub fn new(a: BufId, b: BufId, c: BufId, dims: MatmulDims) -> Self {
        Matmul {
            a,
            b,
            c,
            dims,
            parallel: 0,
            tiles: None,
            fetch_ahead: false,
        }
    }
}

/// The tile loop for a tile shape, put before a product shader: `$file` after its shape
/// (`tiles_64.wgsl`, `tiles_128.wgsl`, `tiles_32.wgsl`, `tiles_32k4.wgsl`), the shared copy into
/// workgroup memory (`matmul_tile_copy.wgsl`) and `matmul_tile.wgsl` (8×8 blocks),
/// `matmul_tile_small.wgsl` (4×4) or `matmul_tile_split.wgsl` (4×4, k split four ways, with its
/// loop `matmul_tile_split_loop.wgsl`, or `matmul_tile_split_ahead.wgsl` where `$ahead`: on a
/// real GPU), named apart (`$small`, `$large`, `$split`, `$split_ahead`) so each gets its own
/// compiled module.
macro_rules! with_tiles {
    ($tiles:expr, $ahead:expr, [$($part:literal),*], $file:literal, $small:literal, $large:literal,
     $split:literal, $split_ahead:literal) => {
        match $tiles {
            $crate::tiles::TileShape::Medium => $crate::kernel::wgsl_with!(
                [$($part,)* "tiles_64.wgsl", "matmul_tile_copy.wgsl", "matmul_tile.wgsl"],
                $file,
                "main"
            ),
            $crate::tiles::TileShape::Small => $crate::kernel::Shader {
                file: $small,
                ..$crate::kernel::wgsl_with!(
                    [$($part,)* "tiles_32.wgsl", "matmul_tile_copy.wgsl", "matmul_tile_small.wgsl"],
                    $file,
                    "main"
                )
            },
            $crate::tiles::TileShape::Large => $crate::kernel::Shader {
                file: $large,
                ..$crate::kernel::wgsl_with!(
                    [$($part,)* "tiles_128.wgsl", "matmul_tile_copy.wgsl", "matmul_tile.wgsl"],
                    $file,
                    "main"
                )
            },
            $crate::tiles::TileShape::Split if $ahead => $crate::kernel::Shader {
                file: $split_ahead,
                ..$crate::kernel::wgsl_with!(
                    [$($part,)* "tiles_32k4.wgsl", "matmul_tile_copy.wgsl", "matmul_tile_split.wgsl",
                     "matmul_tile_split_ahead.wgsl"],
                    $file,
                    "main"
                )
            },
            $crate::tiles::TileShape::Split => $crate::kernel::Shader {
                file: $split,
                ..$crate::kernel::wgsl_with!(
                    [$($part,)* "tiles_32k4.wgsl", "matmul_tile_copy.wgsl", "matmul_tile_split.wgsl",
                     "matmul_tile_split_loop.wgsl"],
                    $file,
                    "main"
                )
            },
        }
    };
}
pub(crate) use with_tiles;

/// The most workgroups a product kernel may run: `parallel` (see `Matmul::parallel`), 0 meaning
/// no limit.
pub fn workgroup_cap(parallel: u32) -> u32 {
    if parallel == 0 {
        u32::MAX
    } else {
        parallel
    }
}

impl Matmul {
    /// The most workgroups to run (`parallel`, 0 meaning no limit).
    fn cap(&self) -> u32 {
        workgroup_cap(self.parallel)
    }

    /// Rows and columns of C per workgroup.
    fn edge(&self) -> u32 {
        self.tiles.unwrap_or_default().edge()
    }

    /// Workgroups along n: every column tile, or fewer (each taking several, see the shader)
    /// while the row tiles times these still reach the cap.
    fn n_groups(&self) -> u32 {
        let n_tiles = (self.dims.n as u32).div_ceil(self.edge()).max(1);
        n_tiles.min(self.cap().div_ceil(self.m_tiles())).max(1)
    }

    /// Workgroups along the batch, by the same rule.
    fn z_groups(&self) -> u32 {
        let per_product = self.m_tiles() * self.n_groups();
        (self.dims.products() as u32)
            .min(self.cap().div_ceil(per_product))
            .max(1)
    }

    fn m_tiles(&self) -> u32 {
        (self.dims.m as u32).div_ceil(self.edge()).max(1)
    }
}

impl Kernel for Matmul {
    fn bytes(&self) -> f64 {
        // Each product reads A (m × k) and B (k × n) and writes C (m × n), reading it too when it
        // accumulates.
        let d = &self.dims;
        let c = d.m * d.n * (1 + usize::from(d.accumulate));
        4.0 * (d.products() * (d.m * d.k + d.k * d.n + c)) as f64
    }
    fn shader(&self) -> Shader {
        with_tiles!(
            self.tiles.unwrap_or_default(),
            self.fetch_ahead,
            [],
            "matmul.wgsl",
            "matmul_small.wgsl",
            "matmul_large.wgsl",
            "matmul_split.wgsl",
            "matmul_split_ahead.wgsl"
        )
    }

    fn params(&self, step: &StepScalars) -> Words {
        let d = &self.dims;
        Words::default()
            .u("m", d.m as u32)
            .u("n", d.n as u32)
            .u("k", d.k as u32)
            .u("accumulate", d.accumulate as u32)
            .u("a_off", d.a_off as u32)
            .u("a_rs", d.a_rs as u32)
            .u("a_cs", d.a_cs as u32)
            .u("b_off", d.b_off as u32)
            .u("b_rs", d.b_rs as u32)
            .u("b_cs", d.b_cs as u32)
            .u("c_off", d.c_off as u32)
            .u("n_groups", self.n_groups())
            .u("a_bs", d.a_bs as u32)
            .u("b_bs", d.b_bs as u32)
            .u("c_bs", d.c_bs as u32)
            .u("live", live_points(d.products(), step) as u32)
            .u("z_groups", self.z_groups())
            .u("c_rs", d.c_row_stride() as u32)
    }

    fn per_step(&self) -> bool {
        self.dims.products() > 1
    }

    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.a), (2, self.b), (3, self.c)]
    }

    fn workgroups(&self) -> [u32; 3] {
        [self.n_groups(), self.m_tiles(), self.z_groups()]
    }

    fn fit_device(&mut self, fit: DeviceFit) {
        self.fetch_ahead = fit.real_gpu();
        if self.parallel == 0 {
            self.parallel = fit.parallel_workgroups;
        }
        // By one product's size (the landscape's batch of products shares the shape).
        let d = &self.dims;
        let flops = 2.0 * (d.m * d.n * d.k) as f64;
        self.tiles.get_or_insert(fit.tiles.for_flops(flops));
    }

    fn flops(&self) -> f64 {
        2.0 * (self.dims.products() * self.dims.m * self.dims.n * self.dims.k) as f64
    }

    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let mut c = bufs.take_f32(self.c);
        for q in 0..live_points(self.dims.products(), step) {
            super::gemm_cpu::gemm(bufs.f32(self.a), bufs.f32(self.b), &mut c, &self.dims.product(q));
        }
        bufs.put_f32(self.c, c);
    }
}
