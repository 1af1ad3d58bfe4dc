//! How long a run has left, in words, from how far it is and how long it has taken: the run bar
//! says so, so that a link asking for a run of hours is not a page that seems stuck.

/// "about 40 s left", "about 3 min left", "about 5 h left", "about 2 days left": the time so far
/// scaled by what remains (`elapsed_s` × (1 − `done`) / `done`). None before the run has taken
/// `SETTLE_S` (a short run needs no estimate, and the first steps include set-up) or while
/// nothing (or everything) is done.
pub fn time_left(done: f64, elapsed_s: f64) -> Option<String> {
    // NaN fails every comparison, so it gets no estimate either.
    let under_way = done > 0.0 && done < 1.0 && elapsed_s >= SETTLE_S;
    if !under_way {
        return None;
    }
    let left = elapsed_s * (1.0 - done) / done;
    let (value, unit) = if left < 90.0 {
        (left.max(1.0).round(), "s")
    } else if left < 90.0 * 60.0 {
        ((left / 60.0).round(), "min")
    } else if left < 36.0 * 3600.0 {
        ((left / 3600.0).round(), "h")
    } else {
        ((left / 86_400.0).round(), "days")
    };
    Some(format!("about {value} {unit} left"))
}

/// Seconds a run goes before it gets an estimate.
pub const SETTLE_S: f64 = 3.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_scales_the_time_so_far_by_what_remains() {
        // A quarter done in 10 s: 30 s to go.
        assert_eq!(time_left(0.25, 10.0).as_deref(), Some("about 30 s left"));
        // 1 % in 12 s: 1,188 s, about 20 min.
        assert_eq!(time_left(0.01, 12.0).as_deref(), Some("about 20 min left"));
        // 0.01 % in 12 s: 119,988 s, about 33 h.
        assert_eq!(time_left(1e-4, 12.0).as_deref(), Some("about 33 h left"));
        // 16 steps of 20,000 in 12 s: 14,988 s, about 4 h.
        assert_eq!(
            time_left(16.0 / 20_000.0, 12.0).as_deref(),
            Some("about 4 h left")
        );
        // 0.001 % in 12 s: 1,199,988 s, about 14 days.
        assert_eq!(time_left(1e-5, 12.0).as_deref(), Some("about 14 days left"));
    }

    #[test]
    fn no_estimate_too_early_or_without_progress() {
        assert_eq!(time_left(0.5, 1.0), None);
        assert_eq!(time_left(0.0, 60.0), None);
        assert_eq!(time_left(1.0, 60.0), None);
        assert_eq!(time_left(f64::NAN, 60.0), None);
        assert_eq!(time_left(0.5, f64::NAN), None);
    }
}
