//! A product's shapes and strides, and its definition: the textbook triple loop that the
//! kernel (`matmul`) and the fast CPU twin (`gemm_cpu`) are both tested against. Its own module so
//! that the two depend on it and not on each other.

/// Shapes and strides: C[c_off + m·c_rs + n] (+)= Σ_k A[a_off + m·a_rs + k·a_cs] · B[b_off + k·b_rs + n·b_cs],
/// C's rows dense (`c_rs` 0, read as n) or further apart (a transformer's head writes only each
/// sequence's last position). `batch` independent products (0 counts as 1): product q starts
/// q·a_bs, q·b_bs and q·c_bs further on in A, B and C.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MatmulDims {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a_off: usize,
    pub a_rs: usize,
    pub a_cs: usize,
    pub b_off: usize,
    pub b_rs: usize,
    pub b_cs: usize,
    pub c_off: usize,
    /// C's row stride; 0: n (dense rows).
    pub c_rs: usize,
    pub accumulate: bool,
    pub batch: usize,
    pub a_bs: usize,
    pub b_bs: usize,
    pub c_bs: usize,
}

impl MatmulDims {
    /// C = A · B for dense row-major A (m × k) and B (k × n) from offset 0.
    pub fn row_major(m: usize, n: usize, k: usize) -> Self {
        MatmulDims {
            m,
            n,
            k,
            a_rs: k,
            a_cs: 1,
            b_rs: n,
            b_cs: 1,
            ..Default::default()
        }
    }

    pub fn products(&self) -> usize {
        self.batch.max(1)
    }

    /// Where C's rows start from one another: `c_rs`, or n where that is 0.
    pub fn c_row_stride(&self) -> usize {
        if self.c_rs == 0 {
            self.n
        } else {
            self.c_rs
        }
    }

    /// Product q of the batch as a single product.
    pub fn product(&self, q: usize) -> MatmulDims {
        MatmulDims {
            a_off: self.a_off + q * self.a_bs,
            b_off: self.b_off + q * self.b_bs,
            c_off: self.c_off + q * self.c_bs,
            batch: 1,
            ..*self
        }
    }
}

/// The textbook triple loop: the definition the fast CPU twin (`gemm_cpu::gemm`) is tested against.
pub fn matmul_reference(a: &[f32], b: &[f32], c: &mut [f32], batched: &MatmulDims) {
    for q in 0..batched.products() {
        product_reference(a, b, c, &batched.product(q));
    }
}

fn product_reference(a: &[f32], b: &[f32], c: &mut [f32], d: &MatmulDims) {
    for m in 0..d.m {
        for n in 0..d.n {
            let mut acc = 0.0f32;
            for k in 0..d.k {
                acc += a[d.a_off + m * d.a_rs + k * d.a_cs] * b[d.b_off + k * d.b_rs + n * d.b_cs];
            }
            let idx = d.c_off + m * d.c_row_stride() + n;
            c[idx] = if d.accumulate { c[idx] + acc } else { acc };
        }
    }
}
