//! The matrix products' tile shapes, chosen per adapter by timing. The best tiles for an emulated
//! GPU, an integrated laptop GPU and a data-centre GPU differ, and on one GPU they differ with
//! the product's size: large tiles reuse every loaded value more, small tiles make more
//! workgroups, which a GPU with many cores needs for the skinny products of a small network
//! (W1's first forward product is two 64 × 64 tiles), and big workgroups hide memory latency on a
//! big product, once it has enough tiles to fill every core. So `autotune` times each candidate
//! on this device for three classes of products: small (the workloads' own and a 256 square),
//! medium (a 512 square) and, on a real GPU, large (a 2048 square), and for the first layer's
//! forward product as a training step runs it, gathering its rows from the data set
//! (`tile_probes`); the context keeps the fastest of each (`GpuContext::tiles`, a `TilePlan`).
//! Every candidate but one sums each value of C over k in the same order, so they give the same
//! numbers; the split shape (32 × 32 k÷4) sums k in four partial sums, so its values differ from
//! theirs by rounding.

use serde::Serialize;

/// A product kernel's tiling (`shaders/matmul_tile.wgsl` with `tiles_64.wgsl` or
/// `tiles_128.wgsl`, or `shaders/matmul_tile_small.wgsl` with `tiles_32.wgsl`; every shape copies
/// into workgroup memory with `matmul_tile_copy.wgsl`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum TileShape {
    /// 64 × 64 tiles of C per workgroup of 8 × 8 invocations, each an 8 × 8 block.
    #[default]
    Medium,
    /// 32 × 32 tiles per workgroup of 8 × 8 invocations, each a 4 × 4 block.
    Small,
    /// 128 × 128 tiles per workgroup of 16 × 16 invocations, each an 8 × 8 block.
    Large,
    /// 32 × 32 tiles per workgroup of 16 × 16 invocations in four groups of 8 × 8, each group
    /// summing a quarter of k into 4 × 4 blocks (`matmul_tile_split.wgsl`): for small products
    /// with a long k on a GPU with many cores.
    Split,
}

impl TileShape {
    pub const ALL: [TileShape; 4] = [
        TileShape::Medium,
        TileShape::Small,
        TileShape::Large,
        TileShape::Split,
    ];

    /// Rows and columns of C per workgroup.
    pub fn edge(self) -> u32 {
        match self {
            TileShape::Medium => 64,
            TileShape::Small | TileShape::Split => 32,
            TileShape::Large => 128,
        }
    }

    /// "64×64", or "32×32 k÷4" (k split four ways): what the pages show.
    pub fn label(self) -> String {
        let split = if self == TileShape::Split { " k÷4" } else { "" };
        format!("{0}×{0}{split}", self.edge())
    }

    /// "64", "32", "128" or "32k4": the word in URLs, on the command line and in the browser's
    /// cache.
    pub fn code(self) -> &'static str {
        match self {
            TileShape::Medium => "64",
            TileShape::Small => "32",
            TileShape::Large => "128",
            TileShape::Split => "32k4",
        }
    }

    pub fn parse(code: &str) -> Option<TileShape> {
        TileShape::ALL.into_iter().find(|t| t.code() == code)
    }
}

/// Products of at least this many FLOPs (2·m·n·k) are medium: a 512 square is, W1's products
/// and a 256 square are not.
pub const MEDIUM_FLOPS: f64 = 1e8;
/// Products of at least this many FLOPs are large: a 2048 square is, a 1024 square is not (on an
/// H100 the 128 × 128 tiles won from 2048 on, where a product has two tiles per multiprocessor).
pub const LARGE_FLOPS: f64 = 1e10;

/// The most chunks a convolution's weight gradient is split into on a real GPU (split-K: each
/// chunk of output positions summed by its own workgroups, then the chunks added up; see
/// `ops::conv2d::ConvGeom::grad_chunk`): the candidates the autotune times there. More chunks
/// keep more cores of a big GPU busy; fewer give each workgroup more positions to sum and the
/// reduce fewer partial sums to add, which a GPU with few cores may prefer.
pub const CONV_CHUNK_CAPS: [u32; 4] = [8, 32, 128, 512];
/// The cap where nothing was timed: on an H100 W2's convolutions needed about a hundred chunks to
/// keep its 132 multiprocessors busy.
pub const DEFAULT_CONV_CHUNKS: u32 = 128;

/// The tiles a device uses by a product's size: small, medium (`MEDIUM_FLOPS`) and large
/// (`LARGE_FLOPS`) products, and small products that gather their rows from the data set; and,
/// on a real GPU, the most chunks a convolution's weight gradient is split into and the tiles
/// of its GEMMs of at most 8 columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TilePlan {
    pub small: TileShape,
    pub medium: TileShape,
    pub large: TileShape,
    pub gathered: TileShape,
    /// One of `CONV_CHUNK_CAPS`.
    pub conv_chunks: u32,
    /// The convolutions' GEMMs of at most 8 columns run tiles of 128 × 8 rather than 64 × 16
    /// (`ops::conv2d`'s `narrow`).
    pub conv_narrow: bool,
}

impl Default for TilePlan {
    fn default() -> Self {
        TilePlan::uniform(TileShape::default())
    }
}

impl TilePlan {
    /// The same shape for every product (and the default cap on the convolutions' chunks).
    pub fn uniform(tiles: TileShape) -> Self {
        TilePlan {
            small: tiles,
            medium: tiles,
            large: tiles,
            gathered: tiles,
            conv_chunks: DEFAULT_CONV_CHUNKS,
            conv_narrow: false,
        }
    }

    /// The shape for a product of `flops` (2·m·n·k), gathering its rows or not.
    pub fn for_product(&self, flops: f64, gathered: bool) -> TileShape {
        if gathered && flops < MEDIUM_FLOPS {
            self.gathered
        } else {
            self.for_flops(flops)
        }
    }

    /// The shape for a plain product of `flops` (2·m·n·k).
    pub fn for_flops(&self, flops: f64) -> TileShape {
        if flops >= LARGE_FLOPS {
            self.large
        } else if flops >= MEDIUM_FLOPS {
            self.medium
        } else {
            self.small
        }
    }

    /// "64"; "64/128" (small products' shape / the larger ones'); "32/64/128" (small / medium /
    /// large); or "32/64/128/32k4" (… / gathered, where it is not the small products'); then
    /// "/c32" where the convolutions' cap on chunks is not the default, and "/n" where their
    /// narrow GEMMs take narrow tiles: URLs, the CLI, the cache.
    pub fn code(&self) -> String {
        let [s, m, l, g] = [self.small, self.medium, self.large, self.gathered].map(TileShape::code);
        let shapes = if g != s {
            format!("{s}/{m}/{l}/{g}")
        } else if s == m && m == l {
            s.to_string()
        } else if m == l {
            format!("{s}/{m}")
        } else {
            format!("{s}/{m}/{l}")
        };
        let chunks = if self.conv_chunks == DEFAULT_CONV_CHUNKS {
            String::new()
        } else {
            format!("/c{}", self.conv_chunks)
        };
        let narrow = if self.conv_narrow { "/n" } else { "" };
        format!("{shapes}{chunks}{narrow}")
    }

    pub fn parse(code: &str) -> Option<TilePlan> {
        let (code, conv_narrow) = match code.strip_suffix("/n") {
            Some(rest) => (rest, true),
            None => (code, false),
        };
        let (code, conv_chunks) = match code.rsplit_once("/c") {
            Some((shapes, cap)) => (shapes, cap.parse().ok().filter(|c| CONV_CHUNK_CAPS.contains(c))?),
            None => (code, DEFAULT_CONV_CHUNKS),
        };
        let shapes: Option<Vec<TileShape>> = code.split('/').map(TileShape::parse).collect();
        let (small, medium, large, gathered) = match shapes?[..] {
            [t] => (t, t, t, t),
            [s, rest] => (s, rest, rest, s),
            [s, m, l] => (s, m, l, s),
            [s, m, l, g] => (s, m, l, g),
            _ => return None,
        };
        Some(TilePlan {
            small,
            medium,
            large,
            gathered,
            conv_chunks,
            conv_narrow,
        })
    }

    /// "64×64", "64×64 (larger products 128×128)" or "32×32 (medium products 64×64, large
    /// 128×128)", then "; gathered 32×32 k÷4" where that differs, then ", convolutions'
    /// weight gradients in at most 32 chunks" where that is not the default, then ",
    /// convolutions' GEMMs of ≤ 8 columns in 128×8 tiles" where they are.
    pub fn label(&self) -> String {
        let mut label = self.shapes_label();
        if self.conv_chunks != DEFAULT_CONV_CHUNKS {
            let cap = self.conv_chunks;
            label += &format!(", convolutions' weight gradients in at most {cap} chunks");
        }
        if self.conv_narrow {
            label += ", convolutions' GEMMs of ≤ 8 columns in 128×8 tiles";
        }
        label
    }

    fn shapes_label(&self) -> String {
        let [s, m, l, g] = [self.small, self.medium, self.large, self.gathered].map(TileShape::label);
        let gathered = if g != s {
            format!("; gathered {g}")
        } else {
            String::new()
        };
        if s == m && m == l {
            if gathered.is_empty() {
                s
            } else {
                format!("{s} ({})", &gathered[2..])
            }
        } else if m == l {
            format!("{s} (larger products {m}{gathered})")
        } else {
            format!("{s} (medium products {m}, large {l}{gathered})")
        }
    }
}
