//! A transformer block's activation memory three ways that must agree: what the engine's step
//! keeps from its forward pass for its backward (`kept_activations`, read from the kernels'
//! bindings), a hand count of this model, and Korthikanti et al. 2022's term list with the terms
//! the engine has no use for (dropout, layer norm) left out, at 4 bytes an element.

use engine::transformer::{kept_activations, TransformerConfig};
use lab_sims::attention::memory::Block;

/// The lab's default block shape (copy 4 tokens: 8 positions, 11 tokens) over a batch of 4.
fn model(blocks: usize, layer_norm: bool) -> TransformerConfig {
    TransformerConfig {
        vocab: 11,
        seq: 8,
        width: 32,
        heads: 2,
        hidden: 64,
        blocks,
        batch: 4,
        layer_norm,
    }
}

#[test]
fn the_engines_kept_activations_are_korthikantis_terms_without_dropout_or_layer_norm() {
    let c = model(2, false);
    let kept = kept_activations(&c);
    let names: Vec<&str> = kept.iter().map(|(n, _)| n.as_str()).collect();
    // Per block: its input, Q|K|V, the heads' output (the projection's input), the softmax
    // output, the MLP's input, its first linear's output and its GELU; then the head's input.
    assert_eq!(
        names,
        [
            "x0",
            "block0.qkv",
            "block0.attention",
            "block0.probs",
            "block0.h",
            "block0.u",
            "block0.gelu",
            "x1",
            "block1.qkv",
            "block1.attention",
            "block1.probs",
            "block1.h",
            "block1.u",
            "block1.gelu",
            "x2"
        ]
    );
    let (s, b, d, a, f) = (8, 4, 32, 2, 64);
    // By hand: 6 tensors of s·b·d, 2 of s·b·f, a·b·s² probabilities, 4 bytes each.
    let by_hand = 4 * (6 * s * b * d + 2 * s * b * f + a * b * s * s);
    assert_eq!(by_hand, 43_008);
    let paper = Block {
        seq: s,
        batch: b,
        width: d,
        heads: a,
        hidden: f,
        bytes: 4,
        dropout: false,
        layer_norm: false,
        norm_stats: false,
    };
    for l in 0..2 {
        let block: usize = (kept.iter())
            .filter(|(n, _)| n.starts_with(&format!("block{l}.")) || *n == format!("x{l}"))
            .map(|(_, len)| 4 * len)
            .sum();
        assert_eq!(block, by_hand, "block {l}");
        assert_eq!(paper.bytes_per_device(1, false), by_hand as f64);
    }
    // The page's curve: at every length from 8 to 2,048 the engine keeps exactly the count, and
    // the softmax output's square makes it grow faster than the length.
    let points = lab_sims::attention::memory::curve(&c);
    assert_eq!(points.len(), 9, "the model's own length 8 is one of them");
    for p in &points {
        assert_eq!(p.engine, Some(p.formula), "seq {}", p.seq);
        assert_eq!(p.tensor.len(), 1, "2 heads: over 2 devices");
    }
    let (first, last) = (&points[0], &points[8]);
    assert!(last.formula / first.formula > 2.0 * (last.seq / first.seq) as f64);
    // The largest model the page allows (batch 512, 4 heads) past 2²⁸ positions' pairs: the
    // engine cannot address the probabilities, and the chart says so by leaving out its dot.
    let big = TransformerConfig {
        batch: 512,
        heads: 4,
        width: 32,
        ..c
    };
    let points = lab_sims::attention::memory::curve(&big);
    assert!(points.iter().any(|p| p.seq == 2048 && p.engine.is_none()));
    assert!(points.iter().any(|p| p.seq == 512 && p.engine == Some(p.formula)));
}

#[test]
fn with_layer_norm_the_engine_keeps_the_norms_inputs_outputs_and_statistics() {
    let c = model(1, true);
    let kept = kept_activations(&c);
    let names: Vec<&str> = kept.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "x0",
            "block0.n1",
            "block0.n1.stats",
            "block0.qkv",
            "block0.attention",
            "block0.probs",
            "block0.h",
            "block0.n2",
            "block0.n2.stats",
            "block0.u",
            "block0.gelu",
            "x1",
            "xf",
            "xf.stats"
        ]
    );
    // By hand: the two norms' inputs (x, h) join the six tensors of s·b·d, and each norm keeps a
    // mean and a variance per row: 4 · (8·sbd + 2·sbf + abs² + 2·2·sb).
    let (s, b, d, a, f) = (8, 4, 32, 2, 64);
    let by_hand = 4 * (8 * s * b * d + 2 * s * b * f + a * b * s * s + 4 * s * b);
    assert_eq!(
        lab_sims::attention::memory::engine_block_bytes(&c),
        by_hand as f64
    );
    assert_eq!(Block::engine(&c).bytes_per_device(1, false), by_hand as f64);
}
