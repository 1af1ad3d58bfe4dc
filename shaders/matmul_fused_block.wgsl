// The fused products (`matmul_fused.wgsl`, which this file follows: its bindings, reads of the
// uniform and epilogue) on a GPU emulated on the processor (SwiftShader, lavapipe). Each
// invocation sums an 8 × 8 block of C over all of k straight from the storage buffers, as the
// convolutions do there (`conv2d.wgsl`): no workgroup memory, no barriers, 16 reads per 64
// multiply-adds.
//
// An emulator runs four or eight invocations as the lanes of one vector, runs every branch for
// all of them under a mask, and reads memory lane by lane. So nothing is decided per value in the
// loop over k: each source of the operands has a loop of its own (B, or the second product's B;
// A as floats, through the batch's indices or not, or as the data set's bytes, a word of four at
// a time), and only the blocks that need it run the loop for the bias gradient's column of ones
// or the one that stores the gathered batch. A loop whose lanes all have nothing to do ends at
// once. Rows and columns past the matrix read its last one, and are not stored.

const BLOCK_GROUP: u32 = 64u; // invocations per workgroup

// Blocks numbered across both products (as the tiles are in `main`), column blocks slowest, so
// the invocations that store the gathered batch (the first column's) sit in few vectors; a few
// long-lived workgroups (one per core) loop over them.
@compute @workgroup_size(64)
fn main_block(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var t = gid.x; t < p.tiles; t = t + p.groups * BLOCK_GROUP) {
        sum_and_store_block(t);
    }
}

// Block t, in a function of its own so that its sums start from zero for every block: a
// variable declared in a loop's body is not zeroed again on every pass by every compiler
// (Chromium's WebGPU trained W1 wrongly when they were declared there).
fn sum_and_store_block(t: u32) {
    let second = SECOND && t >= p.tiles0;
    let local = select(t, t - p.tiles0, second);
    let s = product(second);
    let row_blocks = (s.m + 7u) / 8u;
    let r0 = (local % row_blocks) * 8u;
    let c0 = (local / row_blocks) * 8u;
    var acc: array<vec4<f32>, 16>;
    let rows_lo = four_from(r0, s.m - 1u);
    let rows_hi = four_from(r0 + 4u, s.m - 1u);
    // The block of the column of ones past B's last column computes nothing else.
    let k_main = select(s.k, 0u, c0 >= s.n);
    let b_lo = s.b_off + four_from(c0, s.n - 1u) * s.b_cs;
    let b_hi = s.b_off + four_from(c0 + 4u, s.n - 1u) * s.b_cs;
    let a_lo = row_starts(s, rows_lo);
    let a_hi = row_starts(s, rows_hi);
    if (GATHER && gathers(s) && p.packed != 0u) {
        sum_bytes(s, a_lo, a_hi, b_lo, b_hi, k_main, &acc);
    } else {
        let k_second = select(0u, k_main, SECOND && s.second);
        for (var k = 0u; k < k_main - k_second; k = k + 1u) {
            outer_add(&acc, a4(a_lo + k * s.a_cs), a4(a_hi + k * s.a_cs),
                      b4(b_lo + k * s.b_rs), b4(b_hi + k * s.b_rs));
        }
        if (SECOND) {
            for (var k = 0u; k < k_second; k = k + 1u) {
                outer_add(&acc, a4(a_lo + k * s.a_cs), a4(a_hi + k * s.a_cs),
                          b2_4(b_lo + k * s.b_rs), b2_4(b_hi + k * s.b_rs));
            }
        }
    }
    // The bias gradient (never a gathered product's): Σ_k A[row, k], for the block that holds
    // column n.
    var ones_lo = vec4<f32>(0.0);
    var ones_hi = vec4<f32>(0.0);
    if (ONES) {
        let has_ones = s.ones != NONE && c0 <= s.n && s.n < c0 + 8u;
        for (var k = 0u; k < select(0u, s.k, has_ones); k = k + 1u) {
            ones_lo += a4(a_lo + k * s.a_cs);
            ones_hi += a4(a_hi + k * s.a_cs);
        }
    }
    if (GATHER && s.gather == 1u && c0 == 0u) {
        keep_rows(s, rows_lo, a_lo);
        keep_rows(s, rows_hi, a_hi);
    }
    store_block(s, r0, c0, &acc, ones_lo, ones_hi, 0u);
}

// Where four rows of A start: through the batch's indices when gathered (in bytes when packed).
fn row_starts(s: Sel, rows: vec4<u32>) -> vec4<u32> {
    var r = rows;
    if (GATHER && gathers(s)) {
        r = vec4<u32>(indices[rows.x], indices[rows.y], indices[rows.z], indices[rows.w]);
    }
    return s.a_off + r * s.a_rs;
}

fn a4(at: vec4<u32>) -> vec4<f32> { return vec4<f32>(a[at.x], a[at.y], a[at.z], a[at.w]); }
fn b4(at: vec4<u32>) -> vec4<f32> { return vec4<f32>(b[at.x], b[at.y], b[at.z], b[at.w]); }
fn b2_4(at: vec4<u32>) -> vec4<f32> { return vec4<f32>(b2[at.x], b2[at.y], b2[at.z], b2[at.w]); }

// A's values as the data set's bytes (`byte_at`) from byte offsets `at`.
fn bytes4(at: vec4<u32>) -> vec4<f32> {
    return vec4<f32>(byte_at(at.x), byte_at(at.y), byte_at(at.z), byte_at(at.w));
}

// Byte `j` of four words (`byte_of`; a row that starts on a word has step k + j there).
fn word_bytes(w: vec4<u32>, j: u32) -> vec4<f32> {
    return vec4<f32>(byte_of(w.x, j), byte_of(w.y, j), byte_of(w.z, j), byte_of(w.w, j));
}

// The gathered product from the data set's bytes: where rows are whole words (A's rows
// contiguous, starting on a word), one read per row gives four steps of k; the rest byte by byte.
fn sum_bytes(s: Sel, a_lo: vec4<u32>, a_hi: vec4<u32>, b_lo: vec4<u32>, b_hi: vec4<u32>,
             k_main: u32, acc: ptr<function, array<vec4<f32>, 16>>) {
    let k_words = word_steps(s, k_main);
    for (var k = 0u; k < k_words; k = k + 4u) {
        let word_lo = row_words(a_lo, k);
        let word_hi = row_words(a_hi, k);
        for (var j = 0u; j < 4u; j = j + 1u) {
            let kb = (k + j) * s.b_rs;
            outer_add(acc, word_bytes(word_lo, j), word_bytes(word_hi, j),
                      b4(b_lo + kb), b4(b_hi + kb));
        }
    }
    for (var k = k_words; k < k_main; k = k + 1u) {
        outer_add(acc, bytes4(a_lo + k * s.a_cs), bytes4(a_hi + k * s.a_cs),
                  b4(b_lo + k * s.b_rs), b4(b_hi + k * s.b_rs));
    }
}

// The steps of k (of `k_main`) read a word of four bytes at a time: all but the last few where
// A's rows are contiguous and start on a word, else none.
fn word_steps(s: Sel, k_main: u32) -> u32 {
    let whole = s.a_cs == 1u && s.a_off % 4u == 0u && s.a_rs % 4u == 0u;
    return select(0u, k_main / 4u * 4u, whole);
}

// The words holding steps k..k + 3 of four rows that start at byte offsets `at` (on a word).
fn row_words(at: vec4<u32>, k: u32) -> vec4<u32> {
    let w = (at + vec4<u32>(k)) / 4u;
    return vec4<u32>(data_bytes[w.x], data_bytes[w.y], data_bytes[w.z], data_bytes[w.w]);
}

// The first column's blocks store the gathered batch for the backward (as `keep_row_value`),
// four rows at a time (`rows`, their values from `at`): rows past the matrix repeat its last
// row's values into its own place.
fn keep_rows(s: Sel, rows: vec4<u32>, at: vec4<u32>) {
    let to = rows * s.a_rs;
    for (var k = 0u; k < s.k; k = k + 1u) {
        var v: vec4<f32>;
        if (p.packed != 0u) {
            v = bytes4(at + k * s.a_cs);
        } else {
            v = a4(at + k * s.a_cs);
        }
        let t = to + k * s.a_cs;
        c2[t.x] = v.x;
        c2[t.y] = v.y;
        c2[t.z] = v.z;
        c2[t.w] = v.w;
    }
}

// C's block through the epilogue (`store_value`); column n takes the bias gradient. Eight calls
// because the accumulators take only constant indices. Sum i belongs to row r0 + (i ^ flip): 0
// for a block, the lane's number within its quad for a quad's (`quad_rows`).
fn store_block(s: Sel, r0: u32, c0: u32, acc: ptr<function, array<vec4<f32>, 16>>,
               ones_lo: vec4<f32>, ones_hi: vec4<f32>, flip: u32) {
    store_block_row(s, r0 + flip, c0, (*acc)[0], (*acc)[1], ones_lo.x);
    store_block_row(s, r0 + (1u ^ flip), c0, (*acc)[2], (*acc)[3], ones_lo.y);
    store_block_row(s, r0 + (2u ^ flip), c0, (*acc)[4], (*acc)[5], ones_lo.z);
    store_block_row(s, r0 + (3u ^ flip), c0, (*acc)[6], (*acc)[7], ones_lo.w);
    store_block_row(s, r0 + (4u ^ flip), c0, (*acc)[8], (*acc)[9], ones_hi.x);
    store_block_row(s, r0 + (5u ^ flip), c0, (*acc)[10], (*acc)[11], ones_hi.y);
    store_block_row(s, r0 + (6u ^ flip), c0, (*acc)[12], (*acc)[13], ones_hi.z);
    store_block_row(s, r0 + (7u ^ flip), c0, (*acc)[14], (*acc)[15], ones_hi.w);
}

fn store_block_row(s: Sel, row: u32, c0: u32, lo: vec4<f32>, hi: vec4<f32>, one: f32) {
    if (row >= s.m) { return; }
    // A plain product's row inside the matrix: eight writes, none of the per-value loop's tests
    // (an emulator runs every test of that loop for every value, masked).
    if (!SECOND && !EPILOGUE && c0 + 8u <= s.n) {
        let at = s.c_off + row * s.n + c0;
        c[at] = lo.x;
        c[at + 1u] = lo.y;
        c[at + 2u] = lo.z;
        c[at + 3u] = lo.w;
        c[at + 4u] = hi.x;
        c[at + 5u] = hi.y;
        c[at + 6u] = hi.z;
        c[at + 7u] = hi.w;
        return;
    }
    for (var j = 0u; j < 8u; j = j + 1u) {
        let col = c0 + j;
        let v = select(hi[j % 4u], lo[j % 4u], j < 4u);
        if (col < s.n) {
            store_value(s, row, col, v);
        } else if (ONES && col == s.n && s.ones != NONE) {
            store_value(s, row, col, one);
        }
    }
}
