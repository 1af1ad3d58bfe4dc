//! Seeded mini-batches: each epoch is a fresh permutation (or file order, unshuffled); a batch never
//! straddles two epochs, so every batch has the same size (the kernels are compiled for one batch size).

use crate::rng::Rng;

#[derive(Clone, Debug)]
pub struct BatchSampler {
    order: Vec<u32>,
    pos: usize,
    pub epoch: u64,
    rng: Rng,
    shuffle: bool,
}

impl BatchSampler {
    pub fn new(len: usize, seed: u64, shuffle: bool) -> Self {
        let mut s = Self {
            order: (0..len as u32).collect(),
            pos: 0,
            epoch: 0,
            rng: Rng::new(seed),
            shuffle,
        };
        if shuffle {
            s.rng.shuffle(&mut s.order);
        }
        s
    }

    /// The next `batch` row indices (batch ≤ data length).
    pub fn next_batch(&mut self, batch: usize) -> &[u32] {
        assert!(batch <= self.order.len(), "batch larger than the data set");
        if self.pos + batch > self.order.len() {
            if self.shuffle {
                self.rng.shuffle(&mut self.order);
            }
            self.pos = 0;
            self.epoch += 1;
        }
        let out = &self.order[self.pos..self.pos + batch];
        self.pos += batch;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_epoch_visits_every_row_once() {
        let mut s = BatchSampler::new(10, 3, true);
        let mut seen: Vec<u32> = (0..5).flat_map(|_| s.next_batch(2).to_vec()).collect();
        seen.sort();
        assert_eq!(seen, (0..10).collect::<Vec<_>>());
        assert_eq!(s.epoch, 0);
        s.next_batch(4);
        assert_eq!(s.epoch, 1);
        let mut f = BatchSampler::new(5, 3, false);
        assert_eq!(f.next_batch(2), &[0, 1]);
        assert_eq!(f.next_batch(2), &[2, 3]);
        assert_eq!(f.next_batch(2), &[0, 1], "the remainder is dropped, order kept");
    }
}
