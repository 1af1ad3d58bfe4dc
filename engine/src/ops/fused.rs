//! The training step's fused products: a dense layer's products with their bias, activation,
//! batch gather and bias gradient folded in (`shaders/matmul_fused.wgsl`; the loss with its batch
//! mean is `loss_head`). The fusion pass (`plan::fuse`) builds them from the teaching kernels they
//! replace.
//!
//! Each keeps those kernels as its CPU twin and runs them in order, so a fused step on the CPU
//! is the unfused step, bit for bit; the GPU kernels compute the same operations in the same
//! order per value, and `tests/fused.rs` holds them to their twins.

use crate::kernel::{wgsl_with, BufId, CpuBuffers, DeviceFit, Kernel, Shader, StepScalars, Words};
use crate::ops::activation::Activation;
use crate::ops::matmul::{with_tiles, workgroup_cap, MatmulDims};
use crate::tiles::TileShape;

mod product;
pub use product::Product;

/// The shader's "none" for an offset (no bias, no ones column).
const NONE: u32 = u32::MAX;

/// Rows and columns of C each invocation sums on an emulated GPU, and invocations per workgroup
/// there (`shaders/matmul_fused_block.wgsl`).
const BLOCK: u32 = 8;
const BLOCK_GROUP: u32 = 64;
/// The same with subgroups (`shaders/matmul_fused_quad.wgsl`): a quad of lanes sums 16 rows by
/// 4 × 8 columns; the workgroup holds four quads.
const QUAD_ROWS: u32 = 16;
const QUAD_COLS: u32 = 32;
const QUAD_GROUP: u32 = 16;

/// `KIND` in `shaders/activation_fns.wgsl` when a pipeline's calls pass their own kind.
const ANY_KIND: f64 = 255.0;

/// What happens to a product's values as they are stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Epilogue {
    None,
    /// Also store H = act(Z) into `h` (the activation layer's forward).
    Activate {
        kind: Activation,
        h: BufId,
    },
    /// Store dZ · act'(z) instead of dZ (the activation layer's backward below this one).
    ActivationGradient {
        kind: Activation,
        z: BufId,
    },
}

/// The data set a gathered product reads, and the buffers that stand in for the shader's
/// bindings a dispatch does not use (each writable one its own, so no two bindings alias).
#[derive(Clone, Copy, Debug)]
pub struct FusedBuffers {
    pub indices: BufId,
    /// The data set's features: f32, or bytes four to a word when `packed`.
    pub data: BufId,
    pub packed: bool,
    pub unused_f32: BufId,
    pub unused_u32: BufId,
    pub unused_aux: BufId,
    pub unused_out: BufId,
}

/// One or two matrix products in one dispatch (see `shaders/matmul_fused.wgsl`).
pub struct FusedMatmul {
    pub first: Product,
    /// A second product reading the same A (a dense layer's input gradient beside its weight
    /// gradient).
    pub second: Option<Product>,
    pub buffers: FusedBuffers,
    /// The unfused kernels this one replaces, in order: its CPU twin.
    pub replaces: Vec<Box<dyn Kernel>>,
    /// Workgroups to run at most (0: one per tile), as `Matmul::parallel`.
    pub parallel: u32,
    /// The tile shape, as `Matmul::tiles`.
    pub tiles: Option<TileShape>,
    /// As `Matmul::fetch_ahead`.
    pub fetch_ahead: bool,
    /// Blocks of 8 × 8 summed straight from the storage buffers
    /// (`shaders/matmul_fused_block.wgsl`) rather than tiles: set by `fit_device` on a GPU
    /// emulated on the processor.
    pub block: bool,
    /// The blocks as quads of lanes that share their rows' reads
    /// (`shaders/matmul_fused_quad.wgsl`): set by `fit_device` where the emulated GPU offers
    /// subgroups.
    pub quads: bool,
}

impl Clone for FusedMatmul {
    fn clone(&self) -> Self {
        FusedMatmul {
            replaces: self.replaces.iter().map(|k| k.boxed_copy()).collect(),
            ..*self
        }
    }
}

impl FusedMatmul {
    /// A tile's (or block's) rows and columns of C.
    fn edges(&self) -> (u32, u32) {
        if self.quads {
            return (QUAD_ROWS, QUAD_COLS);
        }
        if self.block {
            return (BLOCK, BLOCK);
        }
        let edge = self.tiles.unwrap_or_default().edge();
        (edge, edge)
    }

    fn tiles(&self) -> u32 {
        let edges = self.edges();
        self.first.tiles(edges) + self.second.map_or(0, |s| s.tiles(edges))
    }

    fn groups(&self) -> u32 {
        // Invocations per workgroup over invocations per tile (a quad is one tile).
        let per_group = match (self.quads, self.block) {
            (true, _) => QUAD_GROUP / 4,
            (false, true) => BLOCK_GROUP,
            (false, false) => 1,
        };
        self.tiles()
            .div_ceil(per_group)
            .min(workgroup_cap(self.parallel))
            .max(1)
    }
}

impl Kernel for FusedMatmul {
    fn parts(&self) -> &[Box<dyn Kernel>] {
        &self.replaces
    }
    fn bytes(&self) -> f64 {
        // Each product's A (once when the second shares it), B, C (read too when it accumulates)
        // and bias; what the fused kernels kept apart wrote and read again stays on the chip.
        let one = |p: &Product, a: bool| {
            let d = &p.dims;
            let c = d.m * d.n * (1 + usize::from(d.accumulate));
            4.0 * (usize::from(a) * d.m * d.k + d.k * d.n + c + p.bias.map_or(0, |_| d.n)) as f64
        };
        // A gathered first product reads its rows from the data set and stores them for the
        // backward: the gather's own traffic, in place of reading A.
        let gather = (self.replaces.iter())
            .find(|k| self.first.gathered && k.name().starts_with("gather"))
            .map(|g| g.bytes());
        let first = match gather {
            Some(g) => g + one(&self.first, false),
            None => one(&self.first, true),
        };
        first + self.second.as_ref().map_or(0.0, |p| one(p, false))
    }
    fn shader(&self) -> Shader {
        if self.quads {
            return wgsl_with!(
                [
                    "subgroups_enable.wgsl",
                    "activation_fns.wgsl",
                    "tiles_64.wgsl",
                    "matmul_tile_copy.wgsl",
                    "matmul_tile.wgsl",
                    "matmul_fused.wgsl",
                    "block_fns.wgsl",
                    "matmul_fused_block.wgsl"
                ],
                "matmul_fused_quad.wgsl",
                "main_quad"
            );
        }
        if self.block {
            return wgsl_with!(
                [
                    "activation_fns.wgsl",
                    "tiles_64.wgsl",
                    "matmul_tile_copy.wgsl",
                    "matmul_tile.wgsl",
                    "matmul_fused.wgsl",
                    "block_fns.wgsl"
                ],
                "matmul_fused_block.wgsl",
                "main_block"
            );
        }
        with_tiles!(
            self.tiles.unwrap_or_default(),
            self.fetch_ahead,
            ["activation_fns.wgsl"],
            "matmul_fused.wgsl",
            "matmul_fused_small.wgsl",
            "matmul_fused_large.wgsl",
            "matmul_fused_split.wgsl",
            "matmul_fused_split_ahead.wgsl"
        )
    }

    fn params(&self, _: &StepScalars) -> Words {
        let edges = self.edges();
        let w = self.first.words(Words::default(), 0, edges);
        // An absent second product is one with no tiles.
        let w = self.second.unwrap_or(self.first).words(w, 1, edges);
        w.u("tiles0", self.first.tiles(edges))
            .u("tiles", self.tiles())
            .u("groups", self.groups())
            .u("packed", self.buffers.packed as u32)
    }

    fn bindings(&self) -> Vec<(u32, BufId)> {
        let (f, u) = (&self.first, &self.buffers);
        let aux = f
            .aux()
            .or(self.second.and_then(|s| s.aux()))
            .unwrap_or(u.unused_aux);
        // A gathered product reads the data set (its f32 buffer at A's binding, or its bytes at
        // binding 8) and writes the batch (A's own buffer) where a second product's C would go.
        let a = match (f.gathered, u.packed) {
            (true, true) => u.unused_f32,
            (true, false) => u.data,
            (false, _) => f.a,
        };
        let reads_data = f.gathered || f.b_gathered;
        let c2 = match (&self.second, f.gathered) {
            (Some(s), _) => s.out,
            (None, true) => f.a,
            (None, false) => u.unused_out,
        };
        vec![
            (1, a),
            (2, f.b),
            (3, f.out),
            (4, aux),
            (5, self.second.map_or(u.unused_f32, |s| s.b)),
            (6, c2),
            (7, if reads_data { u.indices } else { u.unused_u32 }),
            (
                8,
                if reads_data && u.packed {
                    u.data
                } else {
                    u.unused_u32
                },
            ),
        ]
    }

    fn workgroups(&self) -> [u32; 3] {
        [self.groups(), 1, 1]
    }

    fn constants(&self, fine: bool) -> Vec<(&'static str, f64)> {
        let products = [Some(self.first), self.second];
        let any = |f: &dyn Fn(&Product) -> bool| products.iter().flatten().any(f) as u8 as f64;
        // Blocks are specialized finely everywhere: their epilogue runs per value with nothing
        // to share its cost, and an emulated GPU runs a shared pipeline's unused branches masked.
        if !fine && !self.block {
            // Two pipelines: the forward products and the backward ones.
            let backward = (self.second.is_some() || self.first.ones.is_some()) as u8 as f64;
            return vec![
                ("GATHER", 1.0 - backward),
                ("ONES", backward),
                ("SECOND", backward),
                ("EPILOGUE", 1.0),
            ];
        }
        // The one activation of the dispatch's epilogues (`KIND`), or any when they differ.
        let mut kinds = products.iter().flatten().filter_map(|p| match p.epilogue {
            Epilogue::None => None,
            Epilogue::Activate { kind, .. } | Epilogue::ActivationGradient { kind, .. } => Some(kind),
        });
        let first_kind = kinds.next();
        let kind = match first_kind {
            Some(k) if kinds.all(|other| other == k) => k.code() as f64,
            _ => ANY_KIND,
        };
        let mut constants = vec![
            ("KIND", kind),
            ("GATHER", self.first.gathered as u8 as f64),
            ("ONES", any(&|p| p.ones.is_some())),
            ("SECOND", self.second.is_some() as u8 as f64),
            (
                "EPILOGUE",
                any(&|p| p.bias.is_some() || p.epilogue != Epilogue::None),
            ),
        ];
        // Only the quads read B from the data set (the others read the stored batch).
        if self.quads {
            let b_bytes = self.first.b_gathered && self.buffers.packed;
            constants.push(("GATHER_B", b_bytes as u8 as f64));
        }
        constants
    }

    fn fit_device(&mut self, fit: DeviceFit) {
        self.fetch_ahead = fit.real_gpu();
        self.block = !fit.real_gpu();
        self.quads = self.block && fit.subgroups;
        if self.parallel == 0 {
            self.parallel = fit.parallel_workgroups;
        }
        let flops = self.flops();
        self.tiles
            .get_or_insert(fit.tiles.for_product(flops, self.first.gathered));
    }

    fn flops(&self) -> f64 {
        let one = |p: &Product| 2.0 * (p.dims.m * p.dims.n * p.dims.k) as f64;
        one(&self.first) + self.second.as_ref().map_or(0.0, one)
    }

    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        for k in &self.replaces {
            k.run_cpu(bufs, step);
        }
    }

    fn name(&self) -> String {
        let part = |p: &Product| {
            let mut s = String::from("matmul");
            if p.gathered {
                s = format!("gather+{s}");
            }
            if p.bias.is_some() {
                s += "+bias";
            }
            if p.ones.is_some() {
                s += "+bias_grad";
            }
            match p.epilogue {
                Epilogue::Activate { kind, .. } => s += &format!("+{}", kind.label()),
                Epilogue::ActivationGradient { kind, .. } => s += &format!("+{}'", kind.label()),
                Epilogue::None => {}
            }
            s
        };
        match &self.second {
            Some(s) => format!("fused:{} | {}", part(&self.first), part(s)),
            None => format!("fused:{}", part(&self.first)),
        }
    }
}
