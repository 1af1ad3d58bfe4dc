//! Keeping a setting in its range with a notice that says what changed: the checks the settings
//! tables' rows (`table::ranged!`, `table::text!`) and the labs' own `check`s call.

use std::fmt::Display;

/// Range checks for `check`: keeps `v` in [lo, hi], noting a change.
pub fn clamp<T: PartialOrd + Copy + Display>(notices: &mut Vec<String>, name: &str, v: &mut T, lo: T, hi: T) {
    let c = if *v < lo {
        lo
    } else if *v > hi {
        hi
    } else if *v >= lo && *v <= hi {
        return;
    } else {
        // NaN: neither below nor above, and not a number any setting can hold (typed into a
        // number box, `"NaN".parse::<f32>()` is Ok).
        notices.push(format!("{name}={v} is not a number: using {lo}"));
        *v = lo;
        return;
    };
    notices.push(format!("{name}={v} is outside {lo}–{hi}: using {c}"));
    *v = c;
}

/// Keeps a text field to at most `max` characters (whole characters), noting a cut.
pub fn shorten(notices: &mut Vec<String>, name: &str, v: &mut String, max: usize) {
    if let Some((cut, _)) = v.char_indices().nth(max) {
        v.truncate(cut);
        notices.push(format!("{name} is longer than {max} characters: cut"));
    }
}

#[cfg(test)]
mod tests {
    use super::clamp;

    #[test]
    fn nan_is_refused_where_comparisons_let_it_pass() {
        let mut notices = Vec::new();
        let mut lr = f32::NAN;
        clamp(&mut notices, "lr", &mut lr, 1e-4, 1.0);
        assert_eq!(
            (lr, notices.as_slice()),
            (
                1e-4,
                ["lr=NaN is not a number: using 0.0001".to_string()].as_slice()
            )
        );
        let mut inside = 0.5f32;
        clamp(&mut notices, "lr", &mut inside, 1e-4, 1.0);
        assert_eq!((inside, notices.len()), (0.5, 1));
    }
}
