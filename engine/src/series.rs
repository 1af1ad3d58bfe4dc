//! A metric over training steps in bounded memory. A live lab may train for hours; its charts
//! need a few thousand points, not one per step. A `Series` keeps every point until it holds
//! `capacity`, then every other one of those, and from then on only points at least `stride`
//! steps apart (the stride doubling each time it fills again): at most `capacity` points, spread
//! evenly over the whole run, whatever its length.

/// (step, value) points, steps increasing.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    points: Vec<(u64, f32)>,
    capacity: usize,
    stride: u64,
}

/// Points a chart keeps: more than a canvas is wide.
pub const CHART_POINTS: usize = 4096;

impl Default for Series {
    fn default() -> Self {
        Self::new(CHART_POINTS)
    }
}

impl Series {
    pub fn new(capacity: usize) -> Self {
        Self {
            points: Vec::new(),
            // Even, so that the point just pushed is one of those kept when it fills.
            capacity: (capacity.max(2) + 1) & !1,
            stride: 1,
        }
    }

    /// Adds the value at `step` (later than the last one), unless it falls within the stride.
    pub fn push(&mut self, step: u64, value: f32) {
        if let Some(&(last, _)) = self.points.last() {
            if step < last + self.stride {
                return;
            }
        }
        self.points.push((step, value));
        if self.points.len() > self.capacity {
            let mut i = 0;
            self.points.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.stride *= 2;
        }
    }

    pub fn points(&self) -> &[(u64, f32)] {
        &self.points
    }

    pub fn last(&self) -> Option<(u64, f32)> {
        self.points.last().copied()
    }

    /// Forgets the points after `step` (a run resumed from an earlier checkpoint).
    pub fn truncate_after(&mut self, step: u64) {
        self.points.retain(|&(s, _)| s <= step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_run_keeps_at_most_capacity_points_spread_over_all_of_it() {
        let mut s = Series::new(100);
        for step in 1..=1_000_000u64 {
            s.push(step, step as f32);
        }
        let p = s.points();
        assert!(p.len() <= 100 && p.len() > 50, "{}", p.len());
        assert_eq!(p[0], (1, 1.0), "the start is kept");
        assert!(p.windows(2).all(|w| w[0].0 < w[1].0), "steps increase");
        // Evenly spread: every gap is the current stride (or the one before it).
        let gaps: Vec<u64> = p.windows(2).map(|w| w[1].0 - w[0].0).collect();
        let (lo, hi) = (gaps.iter().min().unwrap(), gaps.iter().max().unwrap());
        assert!(hi <= &(2 * lo), "gaps {lo}..{hi}");
        assert!(
            1_000_000 - p.last().unwrap().0 <= *hi,
            "the end is near the last step"
        );
        // Every value is the one pushed at its step.
        assert!(p.iter().all(|&(s, v)| v == s as f32));
    }

    #[test]
    fn a_short_run_keeps_every_point_and_forgets_after_a_step() {
        let mut s = Series::new(100);
        for step in 1..=50u64 {
            s.push(step, 0.5);
        }
        assert_eq!(s.points().len(), 50);
        s.truncate_after(20);
        assert_eq!(s.last(), Some((20, 0.5)));
        s.push(21, 0.25);
        assert_eq!(s.points().len(), 21);
    }
}
