//! Input features computed from a 2-D point, as TensorFlow Playground offers them: the network
//! sees (x, y, x², …) instead of (x, y), which lets even a network without hidden layers draw a
//! circle (x² + y²) or a checkerboard-like boundary (xy).

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    X,
    Y,
    XSquared,
    YSquared,
    XTimesY,
    SinX,
    SinY,
}

impl Feature {
    pub const ALL: [Feature; 7] = [
        Feature::X,
        Feature::Y,
        Feature::XSquared,
        Feature::YSquared,
        Feature::XTimesY,
        Feature::SinX,
        Feature::SinY,
    ];

    /// The feature's value at (x, y). Points live in [-1, 1]²; sin uses 3x so that it bends
    /// within the square (sin x alone is nearly linear there).
    pub fn value(self, x: f32, y: f32) -> f32 {
        match self {
            Feature::X => x,
            Feature::Y => y,
            Feature::XSquared => x * x,
            Feature::YSquared => y * y,
            Feature::XTimesY => x * y,
            Feature::SinX => (3.0 * x).sin(),
            Feature::SinY => (3.0 * y).sin(),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Feature::X => "x",
            Feature::Y => "y",
            Feature::XSquared => "x²",
            Feature::YSquared => "y²",
            Feature::XTimesY => "xy",
            Feature::SinX => "sin 3x",
            Feature::SinY => "sin 3y",
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Feature::X => "x",
            Feature::Y => "y",
            Feature::XSquared => "x_squared",
            Feature::YSquared => "y_squared",
            Feature::XTimesY => "x_times_y",
            Feature::SinX => "sin_x",
            Feature::SinY => "sin_y",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.key() == key)
    }
}

/// Maps 2-D points (x, y interleaved) to their features, one row of `features.len()` values per
/// point.
pub fn expand(points: &[f32], features: &[Feature]) -> Vec<f32> {
    points
        .chunks_exact(2)
        .flat_map(|p| features.iter().map(move |f| f.value(p[0], p[1])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_each_point_in_feature_order() {
        let rows = expand(
            &[0.5, -2.0, 1.0, 0.0],
            &[Feature::XSquared, Feature::XTimesY, Feature::Y],
        );
        assert_eq!(rows, vec![0.25, -1.0, -2.0, 1.0, 0.0, 0.0]);
        for f in Feature::ALL {
            assert_eq!(Feature::from_key(f.key()), Some(f));
        }
        assert_eq!(expand(&[0.1, 0.2], &[Feature::SinX])[0], 0.3f32.sin());
    }
}
