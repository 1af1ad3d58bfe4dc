// The tile loops' copy into workgroup memory, shared by `matmul_tile.wgsl` (8×8 blocks),
// `matmul_tile_small.wgsl` (4×4 blocks) and the split loops (4×4, k split four ways:
// `matmul_tile_split_loop.wgsl` copies with copy_tiles, `matmul_tile_split_ahead.wgsl` fetches
// the next slice while it multiplies, hence fetch and put apart). TILE, DEPTH and
// WG come from the shape file the engine puts first (`tiles_32.wgsl`, `tiles_64.wgsl`,
// `tiles_128.wgsl`, `tiles_32k4.wgsl`); `Sel`, `a_at` and `b_at` from
// the product shader after the tile loop (see `matmul_tile.wgsl`).

const COLS4: u32 = TILE / 4u; // vec4s across a tile
const COPIES: u32 = COLS4 * DEPTH / (WG * WG); // vec4s each invocation copies per operand and step
// tile_a[k][i] holds A rows 4i..4i+3 at column k; tile_b[k][j] holds B columns 4j..4j+3 at row k
// (8 KB each in the 64 and 128 shapes: the two fill the 16 KB of workgroup memory every WebGPU
// device has; 4 KB each in the 32 shape).
var<workgroup> tile_a: array<array<vec4<f32>, COLS4>, DEPTH>;
var<workgroup> tile_b: array<array<vec4<f32>, COLS4>, DEPTH>;

// The workgroup's invocations (invocation `flat` of WG·WG) copy the TILE×DEPTH slice of A at
// (row0, k0) and the DEPTH×TILE slice of B at (k0, col0), COPIES vec4s each (a whole vec4 per
// write: writing single lanes of a vector in workgroup memory can cost a read-modify-write of the
// whole vector), zero outside the matrices. Neighbouring invocations read neighbouring addresses:
// along k where A's rows are contiguous (`a_by_k`), along m where its columns are (transposed
// reads); same for B (`b_by_n`). The caller puts a barrier after it.
fn copy_tiles(s: Sel, row0: u32, col0: u32, k0: u32, flat: u32, a_by_k: bool, b_by_n: bool) {
    // Written out rather than through the split loop's halves below: built from those, this copy
    // made the 128 × 128 shape about a third slower on an H100 (a 2048 square 1.1 ms against 0.78).
    for (var e = 0u; e < COPIES; e = e + 1u) {
        let idx = e * WG * WG + flat;
        let ka = select(idx / COLS4, idx % DEPTH, a_by_k);
        let ia = select(idx % COLS4, idx / DEPTH, a_by_k);
        let ra = row0 + 4u * ia;
        tile_a[ka][ia] = vec4<f32>(a_at(s, ra, k0 + ka), a_at(s, ra + 1u, k0 + ka),
                                   a_at(s, ra + 2u, k0 + ka), a_at(s, ra + 3u, k0 + ka));
        let jb = select(idx / DEPTH, idx % COLS4, b_by_n);
        let kb = select(idx % DEPTH, idx / COLS4, b_by_n);
        let cb = col0 + 4u * jb;
        tile_b[kb][jb] = vec4<f32>(b_at(s, k0 + kb, cb), b_at(s, k0 + kb, cb + 1u),
                                   b_at(s, k0 + kb, cb + 2u), b_at(s, k0 + kb, cb + 3u));
    }
}

// The split loop's copy in halves, so it can fetch the next slice while it multiplies. A's
// values are fetched as raw words and turned into floats only when put: nothing waits on a read
// until the multiply-adds between have run. (A gathered product's words are the data set's bytes,
// four to a word, whose decoding and storing as the batch had waited on each read in turn.)

// Where the idx-th vec4 of A's slice at (row0, k0) lies: its first row (rows 4i..4i+3) and its
// step of k, as copy_tiles reads it.
fn a_place(row0: u32, k0: u32, idx: u32, a_by_k: bool) -> vec2<u32> {
    let ka = select(idx / COLS4, idx % DEPTH, a_by_k);
    return vec2<u32>(row0 + 4u * select(idx % COLS4, idx / DEPTH, a_by_k), k0 + ka);
}

// `starts`: where the four rows begin (`a_rows`, the includer's, at the place's first row), the
// same at every step of k, so read once per tile.
fn fetch_a_words(s: Sel, starts: vec4<u32>, at: vec2<u32>) -> vec4<u32> {
    return vec4<u32>(a_word(s, starts.x, at.x, at.y), a_word(s, starts.y, at.x + 1u, at.y),
                     a_word(s, starts.z, at.x + 2u, at.y), a_word(s, starts.w, at.x + 3u, at.y));
}

fn cook_a(s: Sel, starts: vec4<u32>, at: vec2<u32>, w: vec4<u32>) -> vec4<f32> {
    return vec4<f32>(a_cooked(s, starts.x, at.x, at.y, w.x),
                     a_cooked(s, starts.y, at.x + 1u, at.y, w.y),
                     a_cooked(s, starts.z, at.x + 2u, at.y, w.z),
                     a_cooked(s, starts.w, at.x + 3u, at.y, w.w));
}

fn put_a(idx: u32, a_by_k: bool, v: vec4<f32>) {
    tile_a[select(idx / COLS4, idx % DEPTH, a_by_k)][select(idx % COLS4, idx / DEPTH, a_by_k)] = v;
}

// The idx-th vec4 of B's slice at (k0, col0): columns 4j..4j+3 at one step of k.
fn fetch_b(s: Sel, col0: u32, k0: u32, idx: u32, b_by_n: bool) -> vec4<f32> {
    let kb = select(idx % DEPTH, idx / COLS4, b_by_n);
    let cb = col0 + 4u * select(idx / DEPTH, idx % COLS4, b_by_n);
    return vec4<f32>(b_at(s, k0 + kb, cb), b_at(s, k0 + kb, cb + 1u),
                     b_at(s, k0 + kb, cb + 2u), b_at(s, k0 + kb, cb + 3u));
}

fn put_b(idx: u32, b_by_n: bool, v: vec4<f32>) {
    tile_b[select(idx % DEPTH, idx / COLS4, b_by_n)][select(idx / DEPTH, idx % COLS4, b_by_n)] = v;
}

// C[row, col .. col + 3] = v, those inside the matrix: the 4×4-block loops' store
// (`matmul_tile_small.wgsl`, `matmul_tile_split.wgsl`).
fn store_row4(s: Sel, row: u32, col: u32, m: u32, n: u32, v: vec4<f32>) {
    if (row >= m) { return; }
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (col + j < n) { store_value(s, row, col + j, v[j]); }
    }
}
