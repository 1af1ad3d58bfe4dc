//! Token-sequence tasks for a transformer (docs/theory.md §12.2), generated, so nothing is
//! downloaded: modular addition (Power et al. 2022, the grokking task), copying a sequence
//! (where induction heads form, Olsson et al. 2022) and sorting one. A sample's features are its
//! token ids, one per position; its label is the token to predict after the last.

use super::Dataset;
use crate::rng::Rng;

/// How many of the p² pairs `modular_addition` trains on (the rest are its test set).
pub fn modular_training_pairs(p: usize, train_fraction: f32) -> usize {
    let pairs = p * p;
    ((pairs as f32 * train_fraction.clamp(0.0, 1.0)).round() as usize).min(pairs)
}

/// Every pair (a, b) with a, b < p as the sequence (a, b, =) — "=" is token p — labelled
/// (a + b) mod p, shuffled with `seed` and split: the first `train_fraction` of the pairs to
/// train on, the rest to test (the split grokking is measured on).
pub fn modular_addition(p: usize, train_fraction: f32, seed: u64) -> (Dataset, Dataset) {
    let mut pairs: Vec<(usize, usize)> = (0..p).flat_map(|a| (0..p).map(move |b| (a, b))).collect();
    Rng::new(seed).shuffle(&mut pairs);
    let cut = modular_training_pairs(p, train_fraction);
    let set = |pairs: &[(usize, usize)]| Dataset {
        x: pairs
            .iter()
            .flat_map(|&(a, b)| [a as f32, b as f32, p as f32])
            .collect(),
        y: pairs.iter().map(|&(a, b)| ((a + b) % p) as u32).collect(),
        dim: 3,
        // The vocabulary is p + 1 tokens, but only the p residues are ever answers.
        classes: p,
        targets: Vec::new(),
    };
    (set(&pairs[..cut]), set(&pairs[cut..]))
}

/// `count` samples of `len` random tokens below `vocab`, a separator (token `vocab`), then the
/// same tokens again: each sample is the sequence up to a position of the copy, labelled with the
/// token that comes next, so a model must look back to where the token after the current one
/// stood. The copy always starts right after the separator, so that place is a fixed distance
/// from where the copy's padding begins: position alone finds it, not the induction mechanism
/// of Olsson et al. 2022 (match the current token's earlier occurrence, read what followed),
/// which a repeat at a random offset would need. Positions are drawn evenly over the copy.
pub fn copying(vocab: usize, len: usize, count: usize, seed: u64) -> Dataset {
    repeating(vocab, len, count, seed, false)
}

/// As `copying`, but what follows the separator is the tokens in ascending order: the model must
/// find, each time, the smallest token not yet written out.
pub fn sorting(vocab: usize, len: usize, count: usize, seed: u64) -> Dataset {
    repeating(vocab, len, count, seed, true)
}

/// `len` random tokens, the separator, then the first `s mod len` of them again — as they came,
/// or sorted — labelled with the next.
fn repeating(vocab: usize, len: usize, count: usize, seed: u64, sorted: bool) -> Dataset {
    let mut rng = Rng::new(seed);
    let dim = 2 * len;
    let (mut x, mut y) = (Vec::with_capacity(count * dim), Vec::with_capacity(count));
    for s in 0..count {
        let tokens: Vec<usize> = (0..len).map(|_| rng.below(vocab)).collect();
        let mut answer = tokens.clone();
        if sorted {
            answer.sort_unstable();
        }
        // Show the sequence, the separator and the first `shown` tokens of the copy; pad the rest
        // with the separator, which the model never has to predict.
        let shown = s % len;
        let mut row: Vec<f32> = tokens.iter().map(|t| *t as f32).collect();
        row.push(vocab as f32);
        row.extend(answer[..shown].iter().map(|t| *t as f32));
        row.resize(dim, vocab as f32);
        x.extend(row);
        y.push(answer[shown] as u32);
    }
    Dataset {
        x,
        y,
        dim,
        classes: vocab,
        targets: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modular_addition_by_hand() {
        // p = 5: 25 pairs, 15 to train (0.6), 10 to test; each labelled (a + b) mod 5.
        let (train, test) = modular_addition(5, 0.6, 7);
        assert_eq!(
            (train.len(), test.len(), train.dim, train.classes),
            (15, 10, 3, 5)
        );
        let mut all: Vec<(u32, u32)> = Vec::new();
        for set in [&train, &test] {
            for (row, y) in set.x.chunks(3).zip(&set.y) {
                let (a, b) = (row[0] as u32, row[1] as u32);
                assert_eq!((row[2], *y), (5.0, (a + b) % 5));
                all.push((a, b));
            }
        }
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 25, "every pair once, train and test apart");
        assert_eq!(
            modular_addition(5, 0.6, 7).0.x,
            train.x,
            "the seed fixes the split"
        );
        assert_ne!(modular_addition(5, 0.6, 8).0.x, train.x);
    }

    #[test]
    fn sorting_asks_for_the_next_smallest_token() {
        let d = sorting(8, 4, 12, 3);
        for (s, (row, y)) in d.x.chunks(8).zip(&d.y).enumerate() {
            let shown = s % 4;
            let mut sorted = row[..4].to_vec();
            sorted.sort_by(f32::total_cmp);
            assert_eq!(row[4], 8.0, "the separator");
            assert_eq!(&row[5..5 + shown], &sorted[..shown], "sorted so far");
            assert_eq!(*y as f32, sorted[shown], "the next smallest");
        }
        assert_eq!(
            sorting(8, 4, 12, 3).x[..4],
            copying(8, 4, 12, 3).x[..4],
            "the same draws"
        );
    }

    #[test]
    fn copying_asks_for_the_next_token_of_the_copy() {
        let d = copying(8, 4, 12, 3);
        assert_eq!((d.len(), d.dim, d.classes), (12, 8, 8));
        for (s, (row, y)) in d.x.chunks(8).zip(&d.y).enumerate() {
            let shown = s % 4;
            assert_eq!(row[4], 8.0, "the separator");
            assert_eq!(&row[5..5 + shown], &row[..shown], "the copy so far");
            assert!(row[5 + shown..].iter().all(|t| *t == 8.0), "padding");
            assert_eq!(*y as f32, row[shown], "the next token of the copy");
        }
    }
}
