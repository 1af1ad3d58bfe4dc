//! Keeping a setting in its range with a notice that says what changed: the checks the settings
//! tables' rows (`table::ranged!`, `table::text!`) and the labs' own `check`s call.

use std::fmt::Display;

/// Range checks for `check`: keeps `v` in [lo, hi], noting a change.
pub fn clamp<T: PartialOrd + Copy + Display>(notices: &mut Vec<String>, name: &str, v: &mut T, lo: T, hi: T) {
    let c = if *v < lo {
        lo
    } else if *v > hi {
        hi
    } else {
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
