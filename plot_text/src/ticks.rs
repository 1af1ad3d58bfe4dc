//! Tick labels that never collide or mislead: steps as whole numbers (10k, not 10000.0), values
//! without "-0.0", log axes labelled at whole decades only; and the log-or-linear y range of a
//! loss chart.

/// A step count: whole, and short once large (1.5k, 20k, 3M).
pub fn step_label(v: f64) -> String {
    let v = v.round();
    let a = v.abs();
    if a >= 1e6 {
        trim(format!("{:.1}", v / 1e6)) + "M"
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 1e3 {
        trim(format!("{:.1}", v / 1e3)) + "k"
    } else {
        format!("{v:.0}")
    }
}

/// A value on a linear axis: at most three significant digits, no trailing zeros, no "-0".
pub fn value_label(v: f64) -> String {
    let a = v.abs();
    if a < 1e-9 {
        return "0".into();
    }
    if !(1e-3..1e5).contains(&a) {
        return format!("{v:.0e}");
    }
    let decimals = (2 - a.log10().floor() as i32).clamp(0, 6) as usize;
    trim(format!("{v:.decimals$}"))
}

/// A log10 axis labelled only at whole decades (1e-4, 0.001, 0.01, 0.1, 1, 10, 100, 1e3).
pub fn decade_label(log10: f64) -> String {
    let k = log10.round();
    if (log10 - k).abs() > 1e-3 {
        return String::new();
    }
    match k as i32 {
        -3..=-1 => trim(format!("{:.3}", 10f64.powf(k))),
        0..=2 => format!("{:.0}", 10f64.powf(k)),
        k => format!("1e{k}"),
    }
}

/// The label count that puts one on each whole decade of a log10 range.
pub fn decade_count(range: &std::ops::Range<f32>) -> usize {
    ((range.end - range.start).abs().ceil() as usize + 1).clamp(2, 12)
}

fn trim(s: String) -> String {
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// The y range of a loss chart: log10 of the values (padded to whole decades) when `log` and
/// every value is positive, else linear from the smallest (or 0) to a little over the largest.
/// Returns the range and whether it is logarithmic.
pub fn loss_range(values: impl Iterator<Item = f32>, log: bool) -> (std::ops::Range<f32>, bool) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo > hi {
        return if log { (-2.0..1.0, true) } else { (0.0..1.0, false) };
    }
    if log && lo > 0.0 {
        let (a, b) = (lo.log10().floor(), hi.log10().ceil());
        return (a..b.max(a + 1.0), true);
    }
    let lo = lo.min(0.0);
    (lo..(hi * 1.05).max(lo + 1e-3), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_short_and_never_minus_zero() {
        assert_eq!(step_label(50.0), "50");
        assert_eq!(step_label(1500.0), "1.5k");
        assert_eq!(step_label(2000.0), "2k");
        assert_eq!(step_label(40000.0), "40k");
        assert_eq!(value_label(-0.0), "0");
        assert_eq!(value_label(-1e-12), "0");
        assert_eq!(value_label(0.25), "0.25");
        assert_eq!(value_label(-1.5), "-1.5");
        assert_eq!(value_label(12.0), "12");
        assert_eq!(decade_label(-2.0), "0.01");
        assert_eq!(decade_label(0.0), "1");
        assert_eq!(decade_label(-5.0), "1e-5");
        assert_eq!(decade_label(-1.5), "");
    }

    #[test]
    fn a_log_range_spans_whole_decades_and_falls_back_for_non_positive_losses() {
        let (r, log) = loss_range([0.003, 2.0].into_iter(), true);
        assert!(log);
        assert_eq!((r.start, r.end), (-3.0, 1.0));
        let (r, log) = loss_range([-0.5, 2.0].into_iter(), true);
        assert!(!log);
        assert_eq!(r.start, -0.5);
    }
}
