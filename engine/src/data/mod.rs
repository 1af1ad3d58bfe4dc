//! Data sets: 2-D toy generators and the image sets (MNIST, Fashion-MNIST) prepared at setup.

pub mod csv;
pub mod images;
pub mod sampler;
pub mod toy;

/// Labelled points: row-major features (len × dim) and a class per row.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    pub x: Vec<f32>,
    pub y: Vec<u32>,
    pub dim: usize,
    pub classes: usize,
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

    /// The first `n` samples (all of them when there are fewer).
    pub fn head(&self, n: usize) -> Dataset {
        let n = n.min(self.len());
        Dataset {
            x: self.x[..n * self.dim].to_vec(),
            y: self.y[..n].to_vec(),
            dim: self.dim,
            classes: self.classes,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    pub fn point(&self, i: usize) -> &[f32] {
        &self.x[i * self.dim..(i + 1) * self.dim]
    }
}
