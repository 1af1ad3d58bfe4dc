//! The loss scaler's state between steps (docs/theory.md §7.3).

use serde::{Deserialize, Serialize};

use super::LossScaling;

/// One step's scale and whether its update was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScaleEvent {
    pub step: u64,
    pub scale: f32,
    /// A gradient was ±∞ or NaN at this scale: the dynamic scaler skipped the update.
    pub overflow: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LossScaler {
    pub scaling: LossScaling,
    pub scale: f32,
    /// Steps since the last overflow or growth.
    pub good_steps: u32,
    pub skipped: u64,
}

impl LossScaler {
    pub fn new(scaling: LossScaling) -> Self {
        Self {
            scaling,
            scale: scaling.initial(),
            good_steps: 0,
            skipped: 0,
        }
    }

    pub fn is_dynamic(&self) -> bool {
        matches!(self.scaling, LossScaling::Dynamic { .. })
    }

    /// After a step's backward: whether to apply its update, the scale moved for the next step.
    /// Only the dynamic scaler skips; the others apply whatever the gradients hold.
    pub fn after_backward(&mut self, overflow: bool) -> bool {
        let LossScaling::Dynamic { interval, .. } = self.scaling else {
            return true;
        };
        if overflow {
            // Halve, but never below the smallest normal fp32 scale.
            self.scale = (self.scale * 0.5).max(f32::MIN_POSITIVE);
            self.good_steps = 0;
            self.skipped += 1;
            return false;
        }
        self.good_steps += 1;
        if self.good_steps >= interval.max(1) {
            // Doubling stops short of fp32's range.
            if self.scale < 2f32.powi(100) {
                self.scale *= 2.0;
            }
            self.good_steps = 0;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_and_skips_on_overflow_and_doubles_after_the_interval() {
        let mut s = LossScaler::new(LossScaling::Dynamic {
            initial: 1024.0,
            interval: 3,
        });
        assert!(!s.after_backward(true));
        assert_eq!((s.scale, s.skipped), (512.0, 1));
        for _ in 0..2 {
            assert!(s.after_backward(false));
        }
        assert_eq!(s.scale, 512.0);
        assert!(s.after_backward(false));
        assert_eq!((s.scale, s.good_steps), (1024.0, 0));
        let mut fixed = LossScaler::new(LossScaling::Static { scale: 8.0 });
        assert!(fixed.after_backward(true));
        assert_eq!((fixed.scale, fixed.skipped), (8.0, 0));
    }
}
