//! A transformer block's activation memory (docs/theory.md §12.6): Korthikanti et al. 2022's
//! count, term by term — what one layer keeps from its forward pass for its backward, as a
//! function of the sequence s, the batch b, the width h, the heads a and the MLP's width f — and
//! how tensor parallelism over t devices (each holding a/t heads and a t-th of the MLP) and
//! sequence parallelism divide it. The paper's setting (16-bit activations, dropout, two layer
//! norms, f = 4h) gives its sbh(34 + 5as/h); the lab's engine (f32, no dropout, no layer norm)
//! keeps the terms that remain, which `engine::transformer::kept_activations` reads from the
//! step's own kernels.

use serde::{Deserialize, Serialize};

/// One layer's shape and how it is trained.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub seq: usize,
    pub batch: usize,
    pub width: usize,
    pub heads: usize,
    /// The MLP's hidden width (4·width in the paper).
    pub hidden: usize,
    /// Bytes of an activation (2 in the paper; 4 in the lab's f32 engine).
    pub bytes: usize,
    pub dropout: bool,
    pub layer_norm: bool,
    /// The norms' mean and variance per row, 4 bytes each, which the paper leaves out of its
    /// count and the lab's engine keeps.
    #[serde(default)]
    pub norm_stats: bool,
}

/// One kept tensor: what it is, its bytes, and whether tensor parallelism splits it.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub name: &'static str,
    pub bytes: f64,
    /// Inside the attention or the MLP, whose heads and hidden units the t devices share.
    pub split: bool,
}

impl Block {
    /// The paper's GPT layer: 16-bit, dropout, layer norm, an MLP 4 times as wide.
    pub fn paper(seq: usize, batch: usize, width: usize, heads: usize) -> Self {
        Self {
            seq,
            batch,
            width,
            heads,
            hidden: 4 * width,
            bytes: 2,
            dropout: true,
            layer_norm: true,
            norm_stats: false,
        }
    }

    /// Korthikanti et al.'s §4.1 list, each term as they count it (a dropout mask a byte an
    /// element), the ones the setting has.
    pub fn terms(&self) -> Vec<Term> {
        let (s, b, h, a, f) = (
            self.seq as f64,
            self.batch as f64,
            self.width as f64,
            self.heads as f64,
            self.hidden as f64,
        );
        let e = self.bytes as f64;
        let (sbh, scores) = (s * b * h, a * s * s * b);
        let mut t = vec![
            ("attention: input of the QKV projection", e * sbh, false),
            ("attention: Q and K (for QKᵀ)", 2.0 * e * sbh, true),
            ("attention: softmax output", e * scores, true),
        ];
        if self.dropout {
            t.push(("attention: softmax dropout mask", scores, true));
            t.push(("attention: softmax dropout output (for ·V)", e * scores, true));
        }
        t.push(("attention: V", e * sbh, true));
        t.push(("attention: input of the output projection", e * sbh, true));
        if self.dropout {
            t.push(("attention: dropout mask after the projection", sbh, false));
        }
        t.push(("MLP: input of the first linear", e * sbh, false));
        t.push(("MLP: first linear's output (for the GELU)", e * s * b * f, true));
        t.push(("MLP: GELU output (for the second linear)", e * s * b * f, true));
        if self.dropout {
            t.push(("MLP: dropout mask", sbh, false));
        }
        if self.layer_norm {
            t.push(("layer norms: their two inputs", 2.0 * e * sbh, false));
        }
        if self.layer_norm && self.norm_stats {
            t.push((
                "layer norms: each row's mean and variance",
                2.0 * 2.0 * 4.0 * s * b,
                false,
            ));
        }
        t.into_iter()
            .map(|(name, bytes, split)| Term { name, bytes, split })
            .collect()
    }

    /// Bytes one device keeps for this layer, over `t` tensor-parallel devices; with
    /// `sequence_parallel` the terms outside the attention and MLP are split along the sequence.
    pub fn bytes_per_device(&self, t: usize, sequence_parallel: bool) -> f64 {
        let t = t.max(1) as f64;
        self.terms()
            .iter()
            .map(|x| {
                if x.split || sequence_parallel {
                    x.bytes / t
                } else {
                    x.bytes
                }
            })
            .sum()
    }
}

/// The sequence lengths the memory chart spans.
pub const SEQS: [usize; 9] = [8, 16, 32, 64, 128, 256, 512, 1024, 2048];

/// One block's activation memory at one sequence length, in bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryPoint {
    pub seq: usize,
    /// What the engine's step keeps for one block (its first), read from its kernels (None past
    /// what its buffers can address: 2³⁰ probabilities, 4 GiB).
    pub engine: Option<f64>,
    /// Korthikanti's terms for the engine's setting: f32, no dropout, layer norm as the model.
    pub formula: f64,
    /// The paper's setting at the same length, batch, width and heads: 16-bit, dropout, layer
    /// norms, an MLP 4h wide (Korthikanti et al. 2022 §4.1).
    pub paper: f64,
    /// Per device over t tensor-parallel devices (t dividing the heads, above 1), the engine's
    /// setting: (t, bytes).
    pub tensor: Vec<(usize, f64)>,
}

impl Block {
    /// The lab's engine setting for `config` at its own sequence length: f32, no dropout, layer
    /// norms (and their statistics) if the model has them.
    pub fn engine(c: &engine::transformer::TransformerConfig) -> Self {
        Self {
            seq: c.seq,
            batch: c.batch,
            width: c.width,
            heads: c.heads,
            hidden: c.hidden,
            bytes: 4,
            dropout: false,
            layer_norm: c.layer_norm,
            norm_stats: c.layer_norm,
        }
    }
}

/// The bytes the engine's step keeps for block 0 of `config`.
pub fn engine_block_bytes(c: &engine::transformer::TransformerConfig) -> f64 {
    engine::transformer::kept_activations(c)
        .iter()
        .filter(|(n, _)| n.starts_with("block0.") || n == "x0")
        .map(|(_, len)| 4.0 * *len as f64)
        .sum()
}

/// Whether the engine's buffers can address `config`'s attention probabilities (batch · heads ·
/// seq² values, in 32-bit indices of 4-byte words), so it can build the step to read them from.
fn addressable(c: &engine::transformer::TransformerConfig) -> bool {
    let scores = (c.batch as u64) * (c.heads as u64) * (c.seq as u64).pow(2);
    scores < 1 << 30
}

/// One block of `config`'s model at each of `SEQS` and at its own length, in order.
pub fn curve(c: &engine::transformer::TransformerConfig) -> Vec<MemoryPoint> {
    let mut seqs: Vec<usize> = SEQS.to_vec();
    if !seqs.contains(&c.seq) {
        seqs.push(c.seq);
        seqs.sort_unstable();
    }
    seqs.into_iter()
        .map(|seq| {
            let at = engine::transformer::TransformerConfig { seq, ..*c };
            let block = Block::engine(&at);
            let tensor = (2..=c.heads)
                .filter(|t| c.heads.is_multiple_of(*t))
                .map(|t| (t, block.bytes_per_device(t, false)))
                .collect();
            MemoryPoint {
                seq,
                engine: addressable(&at).then(|| engine_block_bytes(&at)),
                formula: block.bytes_per_device(1, false),
                // The paper's layer at this width and heads: its MLP 4h wide, whatever the model's.
                paper: Block::paper(seq, c.batch, c.width, c.heads).bytes_per_device(1, false),
                tensor,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_setting_sums_to_its_closed_forms() {
        // GPT-3's layer (h 12,288, a 96) at s 2,048, b 1 and a small one: the terms add up to
        // sbh(34 + 5as/h) (eq. 1), sbh(10 + 24/t + 5as/(ht)) with tensor parallelism (eq. 2)
        // and sbh/t · (34 + 5as/h) with sequence parallelism too (eq. 4).
        for (s, b, h, a) in [(2048, 1, 12_288, 96), (16, 4, 32, 2)] {
            let x = Block::paper(s, b, h, a);
            let (sbh, ash) = ((s * b * h) as f64, (a * s) as f64 / h as f64);
            assert_eq!(x.bytes_per_device(1, false), sbh * (34.0 + 5.0 * ash));
            for t in [2.0, 4.0, 8.0] {
                let eq2 = sbh * (10.0 + 24.0 / t + 5.0 * ash / t);
                assert!((x.bytes_per_device(t as usize, false) - eq2).abs() < 1e-6 * eq2);
                let eq4 = sbh / t * (34.0 + 5.0 * ash);
                assert!((x.bytes_per_device(t as usize, true) - eq4).abs() < 1e-6 * eq4);
            }
        }
    }
}
