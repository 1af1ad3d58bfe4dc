// The fused products on an emulated GPU that offers subgroups: as `matmul_fused_block.wgsl`
// (whose helpers this file uses), but the four lanes of a quad share their block's rows of A.
// An emulator reads storage lane by lane, and that read, not the multiply-add, is what a block
// costs there; a quad's lanes sum the same 16 rows of C, each over its own 8 columns, so each
// lane reads 4 of the 16 rows' values and takes the other 12 from its neighbours (`quadSwapX`,
// `quadSwapY`, `quadSwapDiagonal`: shuffles within one vector). Each step of k then reads 4 + 8
// values per lane for 128 multiply-adds, where a lone 8 × 8 block reads 16 for 64.
//
// The loops over k take four steps a pass: an emulator merges every value a loop carries (the
// quad's 36 vectors of sums) under the lanes' mask at each pass, which cost as much as the
// multiply-adds when a pass took one step.
//
// A quad is four consecutive invocations (every emulator lays a one-dimensional workgroup's
// invocations onto its lanes in order). Every lane of a quad runs the same loops: the quad's
// block, its product and k are the quad's, and columns past the matrix read its last one and are
// not stored.

const QUAD_GROUP: u32 = 16u; // invocations per workgroup

// The first product's B is the gathered batch, read from the data set's bytes (a weight
// gradient dW = dZᵀ · X; `Product::b_gathered`).
override GATHER_B: bool = false;

// Quad blocks (16 rows × 32 columns) numbered across both products, column blocks slowest, as
// `main_block`'s.
@compute @workgroup_size(16)
fn main_quad(@builtin(global_invocation_id) gid: vec3<u32>) {
    let lane = gid.x % 4u;
    for (var q = gid.x / 4u; q < p.tiles; q = q + p.groups * (QUAD_GROUP / 4u)) {
        sum_and_store_quad(q, lane);
    }
}

// The 16 rows of a step of k from the quad's lanes: lane l holds rows l, l + 4, l + 8, l + 12.
// Lane l takes its neighbours' through the quad's swaps, so it holds them in its own order:
// component c of `r0` is row l ^ c (of `r4`, 4 + (l ^ c); …), and its sums' rows are permuted
// the same way (`store_block`'s `flip`). A swap is one shuffle of the vector; a broadcast from a
// lane chosen by number cost an emulator several operations a component.
struct QuadRows { r0: vec4<f32>, r4: vec4<f32>, r8: vec4<f32>, r12: vec4<f32> }

fn quad_rows(mine: vec4<f32>) -> QuadRows {
    let x0 = mine;
    let x1 = quadSwapX(mine);
    let x2 = quadSwapY(mine);
    let x3 = quadSwapDiagonal(mine);
    return QuadRows(vec4<f32>(x0.x, x1.x, x2.x, x3.x), vec4<f32>(x0.y, x1.y, x2.y, x3.y),
                    vec4<f32>(x0.z, x1.z, x2.z, x3.z), vec4<f32>(x0.w, x1.w, x2.w, x3.w));
}

// One step of k: the lane's two 8 × 8 halves (`top`, `bottom`) += the rows ⊗ its columns, and
// the rows' sums (the bias gradient's column of ones) when the pipeline has one.
fn quad_add(top: ptr<function, array<vec4<f32>, 16>>,
            bottom: ptr<function, array<vec4<f32>, 16>>,
            ones: ptr<function, array<vec4<f32>, 4>>, mine: vec4<f32>,
            b_lo: vec4<f32>, b_hi: vec4<f32>) {
    let r = quad_rows(mine);
    outer_add(top, r.r0, r.r4, b_lo, b_hi);
    outer_add(bottom, r.r8, r.r12, b_lo, b_hi);
    if (ONES) {
        (*ones)[0] += r.r0;
        (*ones)[1] += r.r4;
        (*ones)[2] += r.r8;
        (*ones)[3] += r.r12;
    }
}

// Quad block q, in a function of its own so that its sums start from zero (as
// `sum_and_store_block`).
fn sum_and_store_quad(q: u32, lane: u32) {
    let second = SECOND && q >= p.tiles0;
    let local = select(q, q - p.tiles0, second);
    let s = product(second);
    let row_blocks = (s.m + 15u) / 16u;
    let r0 = (local % row_blocks) * 16u;
    let c0 = (local / row_blocks) * 32u + lane * 8u;
    var top: array<vec4<f32>, 16>;
    var bottom: array<vec4<f32>, 16>;
    var ones: array<vec4<f32>, 4>;
    let mine = min(vec4<u32>(r0 + lane) + vec4<u32>(0u, 4u, 8u, 12u), vec4<u32>(s.m - 1u));
    let a_mine = row_starts(s, mine);
    let b_lo = s.b_off + four_from(c0, s.n - 1u) * s.b_cs;
    let b_hi = s.b_off + four_from(c0 + 4u, s.n - 1u) * s.b_cs;
    if (GATHER && gathers(s) && p.packed != 0u) {
        quad_sum_bytes(s, a_mine, b_lo, b_hi, &top, &bottom, &ones);
    } else {
        let k_second = select(0u, s.k, SECOND && s.second);
        let reads = QuadReads(a_mine, b_lo, b_hi, (s.b_off + c0) / 4u, s.b_rs / 4u);
        var source = FROM_B;
        if (GATHER_B && !second) {
            source = FROM_DATA;
        }
        quad_sum(s, reads, source, s.k - k_second, &top, &bottom, &ones);
        if (SECOND) {
            quad_sum(s, reads, FROM_B2, k_second, &top, &bottom, &ones);
        }
    }
    if (GATHER && s.gather == 1u && local / row_blocks == 0u) {
        keep_rows(s, mine, a_mine);
    }
    store_block(s, r0, c0, &top, ones[0], ones[1], lane);
    store_block(s, r0 + 8u, c0, &bottom, ones[2], ones[3], lane);
}

// The gathered product from the data set's bytes, as `sum_bytes`: where rows are whole words,
// one read per row gives four steps of k.
fn quad_sum_bytes(s: Sel, a_mine: vec4<u32>, b_lo: vec4<u32>, b_hi: vec4<u32>,
                  top: ptr<function, array<vec4<f32>, 16>>,
                  bottom: ptr<function, array<vec4<f32>, 16>>,
                  ones: ptr<function, array<vec4<f32>, 4>>) {
    let k_words = word_steps(s, s.k);
    for (var k = 0u; k < k_words; k = k + 4u) {
        let w = row_words(a_mine, k);
        let kb = k * s.b_rs;
        quad_add(top, bottom, ones, word_bytes(w, 0u), b4(b_lo + kb), b4(b_hi + kb));
        let kb1 = kb + s.b_rs;
        quad_add(top, bottom, ones, word_bytes(w, 1u), b4(b_lo + kb1), b4(b_hi + kb1));
        let kb2 = kb1 + s.b_rs;
        quad_add(top, bottom, ones, word_bytes(w, 2u), b4(b_lo + kb2), b4(b_hi + kb2));
        let kb3 = kb2 + s.b_rs;
        quad_add(top, bottom, ones, word_bytes(w, 3u), b4(b_lo + kb3), b4(b_hi + kb3));
    }
    for (var k = k_words; k < s.k; k = k + 1u) {
        quad_add(top, bottom, ones, bytes4(a_mine + k * s.a_cs), b4(b_lo + k * s.b_rs),
                 b4(b_hi + k * s.b_rs));
    }
}

// Where a lane's operands start: its four rows of A, its eight columns of B (two sets of four
// offsets), and, for B read from the data set's words (`FROM_DATA`), the columns' first word
// within a row and the words in a row.
struct QuadReads { a: vec4<u32>, b_lo: vec4<u32>, b_hi: vec4<u32>, col_word: u32, row_words: u32 }

// Where B's values come from: its own buffer, the second product's, or the data set's bytes
// (row k of B is the data set's row indices[k]; the gathered batch of a weight gradient).
const FROM_B: u32 = 0u;
const FROM_B2: u32 = 1u;
const FROM_DATA: u32 = 2u;

// Steps 0 .. k_end of k, four a pass, then the rest one by one. `source` is the same for every
// step, so each pass reads from one place.
fn quad_sum(s: Sel, r: QuadReads, source: u32, k_end: u32,
            top: ptr<function, array<vec4<f32>, 16>>,
            bottom: ptr<function, array<vec4<f32>, 16>>,
            ones: ptr<function, array<vec4<f32>, 4>>) {
    for (var k = 0u; k + 4u <= k_end; k = k + 4u) {
        quad_step(s, r, source, k, top, bottom, ones);
        quad_step(s, r, source, k + 1u, top, bottom, ones);
        quad_step(s, r, source, k + 2u, top, bottom, ones);
        quad_step(s, r, source, k + 3u, top, bottom, ones);
    }
    for (var k = k_end / 4u * 4u; k < k_end; k = k + 1u) {
        quad_step(s, r, source, k, top, bottom, ones);
    }
}

fn quad_step(s: Sel, r: QuadReads, source: u32, k: u32,
             top: ptr<function, array<vec4<f32>, 16>>,
             bottom: ptr<function, array<vec4<f32>, 16>>,
             ones: ptr<function, array<vec4<f32>, 4>>) {
    let a_k = a4(r.a + k * s.a_cs);
    if (source == FROM_DATA) {
        let at = indices[k] * r.row_words + r.col_word;
        quad_add(top, bottom, ones, a_k, word_floats(data_bytes[at]),
                 word_floats(data_bytes[at + 1u]));
    } else if (source == FROM_B2) {
        quad_add(top, bottom, ones, a_k, b2_4(r.b_lo + k * s.b_rs), b2_4(r.b_hi + k * s.b_rs));
    } else {
        quad_add(top, bottom, ones, a_k, b4(r.b_lo + k * s.b_rs), b4(r.b_hi + k * s.b_rs));
    }
}

// A word's four bytes as features (`byte_of`, byte / 255).
fn word_floats(w: u32) -> vec4<f32> {
    return vec4<f32>(byte_of(w, 0u), byte_of(w, 1u), byte_of(w, 2u), byte_of(w, 3u));
}
