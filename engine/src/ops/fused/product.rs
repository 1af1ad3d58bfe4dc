//! One product of a fused dispatch: its shapes, its epilogue, and the uniform words that describe
//! it to the shader.

use super::*;

/// One product of a fused dispatch: C = A · B through `dims` (A and B as the unfused product
/// reads them), its epilogue, and where C goes.
#[derive(Clone, Copy, Debug)]
pub struct Product {
    pub a: BufId,
    pub b: BufId,
    pub out: BufId,
    pub dims: MatmulDims,
    /// A's row r is the data set's row indices[r] (the first layer's forward, A the batch): the
    /// product reads the data set and stores those rows into A's buffer as it goes.
    pub gathered: bool,
    /// B is the batch that a gathered product stores (`gathered`, above), each row k of B the
    /// data set's row indices[k], bytes four to a word: a weight gradient dW = dZᵀ · X. The quads
    /// (first product only) read those words instead of the stored floats, two words for a
    /// lane's eight columns where the floats take eight reads; the same values, byte / 255.
    pub b_gathered: bool,
    /// Z += b[bias + col], the bias read from B's buffer (the forward's parameters).
    pub bias: Option<usize>,
    pub epilogue: Epilogue,
    /// The bias gradient: Σ_k A[row, k] stored at `out[ones + row]` (B's column of ones).
    pub ones: Option<usize>,
}

impl Product {
    pub(super) fn n_cols(&self) -> u32 {
        self.dims.n as u32 + self.ones.is_some() as u32
    }

    /// Column tiles of `cols` columns.
    pub(super) fn tiles_n(&self, cols: u32) -> u32 {
        self.n_cols().div_ceil(cols).max(1)
    }

    /// Tiles of `rows` × `cols` of C.
    pub(super) fn tiles(&self, (rows, cols): (u32, u32)) -> u32 {
        (self.dims.m as u32).div_ceil(rows).max(1) * self.tiles_n(cols)
    }

    pub(super) fn words(&self, w: Words, s: usize, edges: (u32, u32)) -> Words {
        let d = &self.dims;
        let names: [[&'static str; 16]; 2] = [
            [
                "m0", "n0", "k0", "gather0", "a_off0", "a_rs0", "a_cs0", "b_off0", "b_rs0", "b_cs0",
                "c_off0", "bias0", "epi0", "kind0", "ones0", "tiles_n0",
            ],
            [
                "m1", "n1", "k1", "gather1", "a_off1", "a_rs1", "a_cs1", "b_off1", "b_rs1", "b_cs1",
                "c_off1", "bias1", "epi1", "kind1", "ones1", "tiles_n1",
            ],
        ];
        let (epi, kind) = match self.epilogue {
            Epilogue::None => (0, 0),
            Epilogue::Activate { kind, .. } => (1, kind.code()),
            Epilogue::ActivationGradient { kind, .. } => (2, kind.code()),
        };
        let offset = |o: Option<usize>| o.map_or(NONE, |o| o as u32);
        let values = [
            d.m as u32,
            d.n as u32,
            d.k as u32,
            self.gathered as u32,
            d.a_off as u32,
            d.a_rs as u32,
            d.a_cs as u32,
            d.b_off as u32,
            d.b_rs as u32,
            d.b_cs as u32,
            d.c_off as u32,
            offset(self.bias),
            epi,
            kind,
            offset(self.ones),
            self.tiles_n(edges.1),
        ];
        names[s].iter().zip(values).fold(w, |w, (name, v)| w.u(name, v))
    }

    pub(super) fn aux(&self) -> Option<BufId> {
        match self.epilogue {
            Epilogue::None => None,
            Epilogue::Activate { h, .. } => Some(h),
            Epilogue::ActivationGradient { z, .. } => Some(z),
        }
    }
}
