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

    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    pub fn point(&self, i: usize) -> &[f32] {
        &self.x[i * self.dim..(i + 1) * self.dim]
    }
}
