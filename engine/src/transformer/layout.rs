//! Where the transformer's tensors lie in its one flat parameter buffer, and which of them
//! AdamW's weight decay shrinks.

use super::TransformerConfig;

/// Where a block's tensors start in the flat parameters: W_qkv [3·width, width], W_out [width,
/// width], W_1 [hidden, width], b_1, W_2 [width, hidden], b_2; with layer norm, the γ of the norm
/// before the attention and of the one before the MLP, each followed by its β.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockOffsets {
    pub qkv: usize,
    pub out: usize,
    pub w1: usize,
    pub b1: usize,
    pub w2: usize,
    pub b2: usize,
    pub ln1: Option<usize>,
    pub ln2: Option<usize>,
}

/// The flat parameters: the token table [vocab, width] (also the output head), the positions
/// [seq, width], then each block's, then (with layer norm) the final norm's γ and β.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub table: usize,
    pub pos: usize,
    pub blocks: Vec<BlockOffsets>,
    pub ln_f: Option<usize>,
    pub n: usize,
}

impl Layout {
    pub fn new(c: &TransformerConfig) -> Self {
        let (d, f, norm) = (c.width, c.hidden, c.layer_norm);
        let mut at = c.vocab * d + c.seq * d;
        let blocks: Vec<BlockOffsets> = (0..c.blocks)
            .map(|_| {
                let b = BlockOffsets {
                    qkv: at,
                    out: at + 3 * d * d,
                    w1: at + 4 * d * d,
                    b1: at + 4 * d * d + f * d,
                    w2: at + 4 * d * d + f * d + f,
                    b2: at + 4 * d * d + 2 * f * d + f,
                    ln1: norm.then_some(at + 4 * d * d + 2 * f * d + f + d),
                    ln2: norm.then_some(at + 4 * d * d + 2 * f * d + f + 3 * d),
                };
                at = b.b2 + d + if norm { 4 * d } else { 0 };
                b
            })
            .collect();
        let ln_f = norm.then_some(at);
        Layout {
            table: 0,
            pos: c.vocab * d,
            blocks,
            ln_f,
            n: at + if norm { 2 * d } else { 0 },
        }
    }
}

/// The parameters AdamW's weight decay shrinks, as (offset, length): the token table and the
/// positions, then each block's W_qkv, W_out and W_1 (contiguous) and its W_2 — every tensor
/// but the biases and the layer norms' γ and β.
pub fn decayed_slices(layout: &Layout) -> Vec<(usize, usize)> {
    let first = layout.blocks.first().map_or(layout.n, |b| b.qkv);
    let mut out = vec![(layout.table, first - layout.table)];
    for b in &layout.blocks {
        out.push((b.qkv, b.b1 - b.qkv));
        out.push((b.w2, b.b2 - b.w2));
    }
    out
}
