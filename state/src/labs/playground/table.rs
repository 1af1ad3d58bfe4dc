//! The playground's settings, one row each: the URL key, the control it hides, how the value is
//! written and read as URL text, and how it is kept in range. This one table drives the URL
//! (write and read, unknown keys), the settings file's check, the notices and what can be
//! hidden; the page's controls go through the same check. Rows whose value is a choice take it
//! by name.

use engine::data::features::Feature;
use engine::data::toy::{ToyKind, MAX_CLASSES};

use super::{from_key, key_of, parse_hidden, Playground, DECAYS, OPTIMIZERS, SPEEDS};
use crate::lab::clamp;
use crate::table::{hide_field, Setting, Table};

/// Controls that are not settings but can be hidden too.
pub const OTHER_CONTROLS: [&str; 7] = [
    "share",
    "regenerate",
    "step",
    "export",
    "upload",
    "add-point",
    "lesson",
];

fn no_check(_: &mut Playground, _: &mut Vec<String>) {}

fn not_a_number(key: &str, raw: &str, now: impl std::fmt::Display) -> String {
    format!("{key}={raw} is not a number: using {now}")
}

fn unknown_choice(key: &str, raw: &str) -> String {
    format!("{key}={raw} is not a known choice: ignored")
}

/// A number setting in [lo, hi] (clamped with a notice).
macro_rules! number {
    ($key:literal, $field:ident, $lo:expr, $hi:expr) => {
        number!($key, Some($key), $field, $lo, $hi)
    };
    ($key:literal, $hides:expr, $field:ident, $lo:expr, $hi:expr) => {
        Setting {
            key: $key,
            hides: $hides,
            write: |s| s.$field.to_string(),
            read: |s, raw, notices| match raw.trim().parse() {
                Ok(v) if PartialOrd::partial_cmp(&v, &v).is_some() => s.$field = v,
                // A number the field's type cannot hold (`seed=-1`, `warmup=1e12`) is out of
                // range, not "not a number".
                _ => match crate::table::beyond(raw, $lo, $hi) {
                    Some(v) => {
                        notices.push(format!("{}={raw} is outside {}–{}: using {v}", $key, $lo, $hi));
                        s.$field = v;
                    }
                    None => notices.push(not_a_number($key, raw, s.$field)),
                },
            },
            check: |s, notices| clamp(notices, $key, &mut s.$field, $lo, $hi),
        }
    };
}

/// A choice among unit-enum values, by their serde names.
macro_rules! named {
    ($key:literal, $field:ident) => {
        Setting {
            key: $key,
            hides: Some($key),
            write: |s| key_of(&s.$field),
            read: |s, raw, notices| match from_key(raw.trim()) {
                Some(v) => s.$field = v,
                None => notices.push(unknown_choice($key, raw)),
            },
            check: no_check,
        }
    };
}

/// A choice among a list of names kept as text.
macro_rules! listed {
    ($key:literal, $field:ident, $names:expr) => {
        Setting {
            key: $key,
            hides: Some($key),
            write: |s| s.$field.clone(),
            read: |s, raw, notices| match $names.iter().find(|n| **n == raw.trim()) {
                Some(n) => s.$field = n.to_string(),
                None => notices.push(unknown_choice($key, raw)),
            },
            check: |s, notices| {
                if !$names.contains(&s.$field.as_str()) {
                    notices.push(unknown_choice($key, &s.$field));
                    s.$field = Playground::default().$field;
                }
            },
        }
    };
}

pub const SETTINGS: &[Setting<Playground>] = &[
    Setting {
        key: "dataset",
        hides: Some("dataset"),
        write: |s| s.dataset.key().into(),
        read: |s, raw, notices| match ToyKind::from_key(raw.trim()) {
            Some(k) => s.dataset = k,
            None => notices.push(unknown_choice("dataset", raw)),
        },
        check: no_check,
    },
    number!("classes", classes, 2, MAX_CLASSES),
    number!("points", points, 10, 2000),
    number!("noise", noise, 0.0, 0.5),
    number!("test", test_ratio, 0.0, 0.9),
    number!("seed", seed, 0, u32::MAX as u64),
    Setting {
        key: "hidden",
        hides: Some("hidden"),
        write: |s| {
            s.hidden
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(",")
        },
        read: |s, raw, notices| {
            if let Some(h) = parse_hidden(raw, notices) {
                s.hidden = h;
            }
        },
        check: |s, notices| {
            let text = s
                .hidden
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(",");
            if let Some(h) = parse_hidden(&text, notices) {
                s.hidden = h;
            }
        },
    },
    named!("activation", activation),
    Setting {
        key: "features",
        hides: Some("features"),
        write: |s| s.features.iter().map(|f| f.key()).collect::<Vec<_>>().join(","),
        read: |s, raw, notices| {
            let parsed: Option<Vec<Feature>> = raw
                .split(',')
                .filter(|f| !f.trim().is_empty())
                .map(|f| Feature::from_key(f.trim()))
                .collect();
            match parsed {
                Some(f) if !f.is_empty() => s.features = f,
                _ => notices.push(format!("features={raw} has an unknown or no feature: using x, y")),
            }
        },
        check: |s, notices| {
            if s.features.is_empty() {
                notices.push("features: none chosen: using x, y".into());
                s.features = vec![Feature::X, Feature::Y];
            }
        },
    },
    named!("init", init),
    named!("loss", loss),
    listed!("optimizer", optimizer, OPTIMIZERS),
    number!("momentum", momentum, 0.0, 0.999),
    number!("beta2", beta2, 0.0, 0.99999),
    number!("eps", eps, 1e-12, 1.0),
    number!("weight_decay", weight_decay, 0.0, 1.0),
    number!("lr", learning_rate, 1e-5, 10.0),
    number!("batch", batch, 1, 256),
    number!("l1", l1, 0.0, 1.0),
    number!("l2", l2, 0.0, 1.0),
    number!("dropout", dropout, 0.0, 0.9),
    number!("warmup", warmup, 0, 100_000),
    listed!("decay", decay, DECAYS),
    // Shown and hidden with the schedule it paces.
    number!("decay_steps", None, decay_steps, 1, 1_000_000),
    named!("backend", backend),
    listed!("speed", speed, SPEEDS),
    Setting {
        key: "show_test",
        hides: Some("show_test"),
        write: |s| s.show_test.to_string(),
        read: |s, raw, notices| match raw.trim() {
            "1" | "true" | "yes" => s.show_test = true,
            "0" | "false" | "no" => s.show_test = false,
            _ => notices.push(format!("show_test={raw} should be true or false: ignored")),
        },
        check: no_check,
    },
];

const fn count_hides() -> usize {
    let (mut i, mut n) = (0, 0);
    while i < SETTINGS.len() {
        if SETTINGS[i].hides.is_some() {
            n += 1;
        }
        i += 1;
    }
    n + OTHER_CONTROLS.len()
}

/// Every name `<name>_hide=true` may hide: the settings' controls, then the others.
pub const CONTROLS: [&str; count_hides()] = {
    let mut out = [""; count_hides()];
    let (mut i, mut n) = (0, 0);
    while i < SETTINGS.len() {
        if let Some(h) = SETTINGS[i].hides {
            out[n] = h;
            n += 1;
        }
        i += 1;
    }
    let mut j = 0;
    while j < OTHER_CONTROLS.len() {
        out[n + j] = OTHER_CONTROLS[j];
        j += 1;
    }
    out
};

impl Table for Playground {
    const SETTINGS: &'static [Setting<Self>] = SETTINGS;
    const OTHER_CONTROLS: &'static [&'static str] = &OTHER_CONTROLS;

    hide_field!();
}
