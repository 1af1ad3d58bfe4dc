//! A lab's settings as one declarative table, one row per setting (TensorFlow Playground's model):
//! the URL key, the control `<name>_hide=true` takes off the page, how the value is written and
//! read as URL text, and the rule that keeps it in range or among its choices. The same table
//! drives the URL (write, read, unknown keys), the settings file's check, the notices, what can
//! be hidden, the README's list of hideable names and the fuzz tests. A row's type and default
//! are its field's in the lab's serde struct; most rows write that field as serde does
//! (`field!`), and a row with its own text form (`lr` for `learning_rate`, a nested link)
//! spells out `write` and `read`.

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::query::{encode, Query};

/// One setting of a lab whose settings are `S`.
pub struct Setting<S> {
    /// The URL key (`lr`); the settings file's field where they agree.
    pub key: &'static str,
    /// The control `<name>_hide=true` takes off the page (None: not hideable on its own).
    pub hides: Option<&'static str>,
    /// The value as URL text.
    pub write: fn(&S) -> String,
    /// Takes URL text; a value it cannot use keeps the setting and gives a notice.
    pub read: fn(&mut S, &str, &mut Vec<String>),
    /// Brings the value into range (or back to its default when unusable), with a notice.
    pub check: fn(&mut S, &mut Vec<String>),
}

/// A lab's whole table: its settings, and the controls that are not settings (buttons, charts)
/// but can be hidden too.
pub trait Table: Serialize + DeserializeOwned + Default + Clone + 'static {
    const SETTINGS: &'static [Setting<Self>];
    /// The lab's own controls that are not settings (its buttons, its charts).
    const OTHER_CONTROLS: &'static [&'static str];
    /// The controls it shares with other labs, after its own: `RECORDED_RUN_CONTROLS` for a lab
    /// whose runs are a record to export and load.
    const SHARED_CONTROLS: &'static [&'static str] = &[];

    /// The controls an instructor hid.
    fn hidden(&self) -> &BTreeSet<String>;
    fn hidden_mut(&mut self) -> &mut BTreeSet<String>;

    /// Checks between settings (a network and the data it reads), after every row's own.
    fn relate(&mut self, _notices: &mut Vec<String>) {}

    /// Every name `<name>_hide=true` may hide: the settings' controls, then the others.
    fn controls() -> Vec<&'static str> {
        let rows = Self::SETTINGS.iter().filter_map(|r| r.hides);
        let others = Self::OTHER_CONTROLS.iter().chain(Self::SHARED_CONTROLS);
        rows.chain(others.copied()).collect()
    }
}

/// The controls of a lab whose runs are a record (`lab_sims::record::RunRecord`): its exports,
/// loading a record back, the link, and the lesson box.
pub const RECORDED_RUN_CONTROLS: &[&str] = &["export-csv", "export-record", "load", "share", "lesson"];

pub fn no_check<S>(_: &mut S, _: &mut Vec<String>) {}

/// For text that is a number but not one of the field's type: the bound it lies beyond (`-1` for
/// an unsigned field is below `lo`, `1e12` above `hi`); None when it is no number at all.
pub fn beyond<T: std::fmt::Display + Copy>(raw: &str, lo: T, hi: T) -> Option<T> {
    let x: f64 = raw.trim().parse().ok().filter(|x: &f64| x.is_finite())?;
    let lo_x: f64 = lo.to_string().parse().ok()?;
    let hi_x: f64 = hi.to_string().parse().ok()?;
    if x < lo_x {
        Some(lo)
    } else if x > hi_x {
        Some(hi)
    } else {
        None
    }
}

use crate::notice::QUOTED;
pub use crate::notice::{cut, quote, unknown_notice};

/// Notices quote long values cut (`quote`), so a 100 KB value cannot make a 100 KB notice.
fn cut_quotes(notices: &mut [String], values: &[&str]) {
    for raw in values.iter().filter(|r| r.chars().count() > QUOTED) {
        let short = quote(raw);
        for n in notices.iter_mut().filter(|n| n.contains(*raw)) {
            *n = n.replace(*raw, &short);
        }
    }
}

/// Every value brought into range, each change with a notice; hidden names it does not know
/// are dropped.
pub fn check<S: Table>(s: &mut S, notices: &mut Vec<String>) {
    for row in S::SETTINGS {
        (row.check)(s, notices);
    }
    s.relate(notices);
    let controls = S::controls();
    let before = s.hidden().len();
    s.hidden_mut().retain(|h| controls.contains(&h.as_str()));
    if s.hidden().len() != before {
        notices.push("unknown control names in hide: ignored".into());
    }
}

/// Whether `s` is within its table's ranges as it stands: the reason a link or file with these
/// values would get a notice, if any ("epochs=500 is outside 1–200"), without what the link would
/// use instead: a control that asks keeps its last good value. A control that writes a value asks
/// this, so its range is the table's and is written once.
pub fn refusal<S: Table>(s: &S) -> Option<String> {
    let mut checked = s.clone();
    let mut notices = Vec::new();
    for row in S::SETTINGS {
        (row.check)(&mut checked, &mut notices);
    }
    let first = notices.into_iter().next()?;
    let reason = [": using ", "; using "]
        .iter()
        .filter_map(|tail| first.find(tail))
        .min()
        .map_or(first.as_str(), |at| &first[..at]);
    Some(reason.to_string())
}

/// Only what differs from the defaults, so links stay short; then the hidden controls. A row is
/// compared with what reading the rows before it leaves (a network brings its own defaults).
pub fn to_query<S: Table>(s: &S) -> String {
    let mut read = S::default();
    let mut pairs = Vec::new();
    for row in S::SETTINGS {
        let text = (row.write)(s);
        if text != (row.write)(&read) {
            (row.read)(&mut read, &text, &mut Vec::new());
            pairs.push((row.key.to_string(), text));
        }
    }
    let controls = S::controls();
    for name in s.hidden().iter().filter(|n| controls.contains(&n.as_str())) {
        pairs.push((format!("{name}_hide"), "true".into()));
    }
    encode(pairs)
}

/// Never fails: what it cannot use keeps its default or is clamped, each with a notice.
pub fn from_query<S: Table>(query: &str) -> (S, Vec<String>) {
    let mut q = Query::parse(query);
    let mut s = S::default();
    let mut notices = Vec::new();
    // In table order, so a row may set the defaults of the rows after it (a network's epochs).
    for row in S::SETTINGS {
        if let Some(raw) = q.raw(row.key).map(str::to_owned) {
            (row.read)(&mut s, &raw, &mut notices);
        }
    }
    let controls = S::controls();
    for c in &controls {
        if q.flag(&format!("{c}_hide"), false) {
            s.hidden_mut().insert(c.to_string());
        }
    }
    check(&mut s, &mut notices);
    let known = |k: &str| {
        S::SETTINGS.iter().any(|row| row.key == k)
            || k.strip_suffix("_hide").is_some_and(|c| controls.contains(&c))
    };
    let unknown: Vec<&str> = q.keys().filter(|k| !known(k)).collect();
    notices.extend(unknown_notice(&unknown));
    notices.append(&mut q.notices);
    let values: Vec<&str> = q.keys().filter_map(|k| q.raw(k)).collect();
    cut_quotes(&mut notices, &values);
    (s, notices)
}

/// The serde fields of a state (through text, so f32 values read back as written: 0.1, not
/// 0.100000001…).
pub fn fields_of<S: Serialize>(s: &S) -> Map<String, Value> {
    serde_json::to_string(s)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .and_then(|v: Value| match v {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .unwrap_or_default()
}

/// Sets one field if the whole state still deserializes with it, else notes it and keeps the old.
pub fn try_set<S: DeserializeOwned>(
    fields: &mut Map<String, Value>,
    key: &str,
    v: Value,
    notices: &mut Vec<String>,
    shown: &str,
) {
    let old = fields.insert(key.to_string(), v);
    if serde_json::from_value::<S>(Value::Object(fields.clone())).is_err() {
        notices.push(format!("{key}={} is not a valid value: ignored", quote(shown)));
        if let Some(old) = old {
            fields.insert(key.to_string(), old);
        }
    }
}

/// Field `key` as URL text, as serde writes it (`field!`).
pub fn field_text<S: Serialize>(s: &S, key: &str) -> String {
    fields_of(s).get(key).map(encode_value).unwrap_or_default()
}

/// Field `key` from URL text, read as serde reads it (`field!`).
pub fn read_field<S: Serialize + DeserializeOwned>(
    s: &mut S,
    key: &str,
    raw: &str,
    notices: &mut Vec<String>,
) {
    let mut fields = fields_of(s);
    let Some(like) = fields.get(key).cloned() else {
        return;
    };
    match decode_value(raw, &like) {
        Some(v) => {
            let asked: Option<f64> = raw.trim().parse().ok();
            if v.is_i64() || v.is_u64() {
                if let (Some(x), Some(got)) = (asked, v.as_f64()) {
                    if x != got {
                        notices.push(format!("{key}={} is out of range: using {v}", quote(raw)));
                    }
                }
            }
            try_set::<S>(&mut fields, key, v, notices, raw);
            if let Ok(read) = serde_json::from_value(Value::Object(fields)) {
                *s = read;
            }
        }
        None => notices.push(format!("{key}={raw} is not a valid value: ignored")),
    }
}

/// A field as URL text: strings as they are, lists of plain values as "a,b,c", the rest as JSON.
fn encode_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items)
            if items
                .iter()
                .all(|i| i.is_number() || i.as_str().is_some_and(|s| !s.contains(','))) =>
        {
            items
                .iter()
                .map(|i| match i {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(",")
        }
        other => other.to_string(),
    }
}

/// URL text back to a value shaped like the field's default.
fn decode_value(raw: &str, like: &Value) -> Option<Value> {
    // Text stays as written (a cut may end in a space); everything else ignores spaces around it.
    if let Value::String(_) = like {
        return Some(Value::String(raw.to_string()));
    }
    let raw = raw.trim();
    match like {
        Value::Bool(_) => match raw {
            "1" | "true" | "yes" => Some(true.into()),
            "0" | "false" | "no" => Some(false.into()),
            _ => None,
        },
        Value::Number(n) => {
            let x: f64 = raw.parse().ok().filter(|x: &f64| x.is_finite())?;
            if n.is_f64() {
                serde_json::Number::from_f64(x).map(Value::Number)
            } else if x.fract() != 0.0 {
                None
            } else {
                // A whole number beyond what the field holds (`-1`, `1e12`) comes in at the
                // nearest value it does hold, for the table's rule to clamp with its notice.
                let lo = if n.is_u64() { 0.0 } else { i32::MIN as f64 };
                Some(Value::from(x.clamp(lo, u32::MAX as f64) as i64))
            }
        }
        Value::Array(_) if !raw.starts_with('[') => Some(list(raw)),
        _ => serde_json::from_str(raw).ok().or_else(|| Some(list(raw))),
    }
}

/// "a,1,b" as a JSON list: numbers where they parse, strings otherwise.
fn list(raw: &str) -> Value {
    Value::Array(
        raw.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| match p.parse::<f64>() {
                Ok(x) if x.is_finite() => {
                    serde_json::from_str(p).unwrap_or_else(|_| Value::String(p.to_string()))
                }
                _ => Value::String(p.to_string()),
            })
            .collect(),
    )
}

/// A row whose URL text is its serde field's (key = field name), hiding the control of the same
/// name unless another is given, kept in range by `check` (`no_check` when serde's type is rule
/// enough: a flag, a named choice).
macro_rules! field {
    ($key:literal) => {
        $crate::table::field!($key, Some($key), $crate::table::no_check)
    };
    ($key:literal, $check:expr) => {
        $crate::table::field!($key, Some($key), $check)
    };
    ($key:literal, $hides:expr, $check:expr) => {
        $crate::table::Setting {
            key: $key,
            hides: $hides,
            write: |s| $crate::table::field_text(s, $key),
            read: |s, raw, notices| $crate::table::read_field(s, $key, raw, notices),
            check: $check,
        }
    };
}

/// A `field!` row kept in [lo, hi] (clamped with a notice).
macro_rules! ranged {
    ($key:literal, $field:ident, $lo:expr, $hi:expr) => {
        $crate::table::ranged!($key, Some($key), $field, $lo, $hi)
    };
    ($key:literal, $hides:expr, $field:ident, $lo:expr, $hi:expr) => {
        $crate::table::field!($key, $hides, |s, notices| $crate::range::clamp(
            notices,
            $key,
            &mut s.$field,
            $lo,
            $hi
        ))
    };
}

/// A `field!` row of free text checked by `parse` when the link or file loads: text it refuses
/// is replaced by the default, with the reason.
macro_rules! text {
    ($key:literal, $hides:expr, $field:ident, $max:expr, $parse:expr) => {
        $crate::table::field!($key, $hides, |s, notices| {
            $crate::range::shorten(notices, $key, &mut s.$field, $max);
            if let Err(why) = $parse(&s.$field) {
                let default = Self::default().$field;
                let shown = $crate::table::quote(&s.$field);
                let why = $crate::table::cut(&why.to_string(), 160);
                notices.push(format!("{}={shown}: {why}; using {default}", $key));
                s.$field = default;
            }
        })
    };
}

/// `Table::hidden` and `hidden_mut` for a settings struct whose hidden set is its `hide` field.
macro_rules! hide_field {
    () => {
        fn hidden(&self) -> &std::collections::BTreeSet<String> {
            &self.hide
        }

        fn hidden_mut(&mut self) -> &mut std::collections::BTreeSet<String> {
            &mut self.hide
        }
    };
}

pub(crate) use {field, hide_field, ranged, text};
