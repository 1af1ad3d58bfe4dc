//! Data sets: 2-D toy generators and the image sets (MNIST, Fashion-MNIST) prepared at setup.

pub mod csv;
pub mod features;
pub mod images;
pub mod sampler;
pub mod sequences;
pub mod slices;
pub mod toy;

/// Labelled points: row-major features (len × dim) and a class per row, or for regression a
/// target value per row (then `y` is all zeros and `classes` is 1, the one output).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Dataset {
    pub x: Vec<f32>,
    pub y: Vec<u32>,
    pub dim: usize,
    pub classes: usize,
    /// Regression targets; empty for classification.
    pub targets: Vec<f32>,
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// The features packed four bytes to a word (little-endian), when every one of them is a
    /// byte over 255 exactly, as image pixels are: a quarter of the memory on the device, which
    /// is what lets all 60,000 MNIST images fit the 128 MB a WebGPU buffer may hold.
    pub fn packed_u8(&self) -> Option<Vec<u32>> {
        let byte = |v: f32| {
            let b = (v * 255.0).round();
            ((0.0..=255.0).contains(&b) && b / 255.0 == v).then_some(b as u32)
        };
        let mut words = vec![0u32; self.x.len().div_ceil(4)];
        for (i, &v) in self.x.iter().enumerate() {
            words[i / 4] |= byte(v)? << (8 * (i % 4));
        }
        Some(words)
    }

    pub fn is_regression(&self) -> bool {
        !self.targets.is_empty()
    }

    /// The first `n` samples (all of them when there are fewer).
    pub fn head(&self, n: usize) -> Dataset {
        self.rows(&(0..n.min(self.len())).collect::<Vec<_>>())
    }

    /// The given rows, in that order.
    pub fn rows(&self, rows: &[usize]) -> Dataset {
        Dataset {
            x: rows.iter().flat_map(|&r| self.point(r).to_vec()).collect(),
            y: rows.iter().map(|&r| self.y[r]).collect(),
            dim: self.dim,
            classes: self.classes,
            targets: if self.is_regression() {
                rows.iter().map(|&r| self.targets[r]).collect()
            } else {
                Vec::new()
            },
        }
    }

    /// A seeded random split into (train, test), `test_fraction` of the rows (rounded) in test;
    /// each part keeps the original row order.
    pub fn split(&self, test_fraction: f32, seed: u64) -> (Dataset, Dataset) {
        let n = self.len();
        let n_test = ((n as f32 * test_fraction.clamp(0.0, 1.0)).round() as usize).min(n);
        let mut order: Vec<usize> = (0..n).collect();
        crate::rng::Rng::new(seed).shuffle(&mut order);
        let (mut test, mut train) = (order[..n_test].to_vec(), order[n_test..].to_vec());
        test.sort_unstable();
        train.sort_unstable();
        (self.rows(&train), self.rows(&test))
    }

    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    pub fn point(&self, i: usize) -> &[f32] {
        &self.x[i * self.dim..(i + 1) * self.dim]
    }
}
