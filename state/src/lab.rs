//! One way for every lab's settings to travel: the URL (only what differs from the defaults, so
//! links stay short), and a JSON file tagged with the lab's name and a version. A lab's settings
//! are a serde struct with `#[serde(default)]` and a `hide` set (the controls an instructor hid,
//! `<name>_hide=true` in the URL); `LabState` gives it both codecs.
//!
//! Reading never panics and never fails outright: what cannot be used keeps its default, what is
//! out of range is clamped by the lab's `check`, and each gives a notice the page shows. Only a
//! JSON file of another lab, of an unknown version or not JSON at all is refused, with a reason.

use std::collections::BTreeSet;
use std::fmt::Display;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::query::{encode, Query};

pub trait LabState: Serialize + DeserializeOwned + Default + Clone + PartialEq {
    /// The lab's route name ("optimizers"), written into its JSON files.
    const LAB: &'static str;
    /// Bumped when a field changes meaning; `upgrade` reads older files or refuses them.
    const VERSION: u32;
    /// Every control `<name>_hide=true` may hide.
    const CONTROLS: &'static [&'static str];

    /// Clamps out-of-range values into range, with a notice for each.
    fn check(&mut self, notices: &mut Vec<String>);

    /// Turns an older version's JSON into this version's, or says why it cannot.
    fn upgrade(version: u32, _settings: Value) -> Result<Value, String> {
        Err(unreadable::<Self>(version))
    }

    fn to_query(&self) -> String {
        to_query(self)
    }

    fn from_query(query: &str) -> (Self, Vec<String>) {
        from_query(query)
    }

    /// The settings as a JSON file: `{"lab": …, "version": …, <fields>}`.
    fn to_json(&self) -> String {
        let mut fields = match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let mut out = Map::new();
        out.insert("lab".into(), Self::LAB.into());
        out.insert("version".into(), Self::VERSION.into());
        out.append(&mut fields);
        serde_json::to_string_pretty(&Value::Object(out)).unwrap_or_default()
    }

    /// Reads a JSON file: refuses another lab's, a newer version's or malformed JSON; upgrades
    /// or refuses an older version's; otherwise keeps what it can, with notices.
    fn from_json(text: &str) -> Result<(Self, Vec<String>), String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let Value::Object(mut map) = value else {
            return Err("not a lab's settings: expected a JSON object".into());
        };
        match map.remove("lab") {
            Some(Value::String(lab)) if lab == Self::LAB => {}
            Some(Value::String(lab)) => {
                return Err(format!(
                    "this file holds the {lab} lab's settings, not the {} lab's",
                    Self::LAB
                ))
            }
            _ => return Err(format!("not the {} lab's settings: no \"lab\" name", Self::LAB)),
        }
        let version = map
            .remove("version")
            .and_then(|v| v.as_u64())
            .ok_or_else(|| format!("not the {} lab's settings: no version", Self::LAB))?;
        let mut settings = Value::Object(map);
        if version > Self::VERSION as u64 {
            return Err(format!(
                "this file is version {version} of the {} lab's settings, newer than this lab \
                 reads (version {}): reload the page for the latest lab",
                Self::LAB,
                Self::VERSION
            ));
        }
        if version < Self::VERSION as u64 {
            settings = Self::upgrade(version as u32, settings)?;
        }
        let mut notices = Vec::new();
        let state = merge_fields(settings, &mut notices);
        Ok(finish(state, notices))
    }
}

/// Why a file of an older settings version cannot be read.
pub fn unreadable<S: LabState>(version: u32) -> String {
    format!(
        "this file holds version {version} of the {} lab's settings, which this version of \
         the lab (settings version {}) cannot read: set the lab up again and re-export",
        S::LAB,
        S::VERSION
    )
}

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

/// Keeps `v` one of `allowed`, else the first, noting it.
pub fn one_of(notices: &mut Vec<String>, name: &str, v: &mut String, allowed: &[&str]) {
    if !allowed.contains(&v.as_str()) {
        notices.push(format!(
            "{name}={v} is not one of {}: using {}",
            allowed.join(", "),
            allowed[0]
        ));
        *v = allowed[0].to_string();
    }
}

/// Clamps, then drops hidden names the lab does not know.
fn finish<S: LabState>(mut state: S, mut notices: Vec<String>) -> (S, Vec<String>) {
    state.check(&mut notices);
    let mut value = serde_json::to_value(&state).unwrap_or(Value::Null);
    if let Some(Value::Array(hide)) = value.get_mut("hide") {
        let before = hide.len();
        hide.retain(|h| h.as_str().is_some_and(|h| S::CONTROLS.contains(&h)));
        if hide.len() != before {
            notices.push("unknown control names in hide: ignored".into());
            if let Ok(s) = serde_json::from_value(value) {
                state = s;
            }
        }
    }
    (state, notices)
}

/// Builds the state field by field from a JSON object, so one bad field keeps its default
/// instead of losing the whole file.
fn merge_fields<S: LabState>(settings: Value, notices: &mut Vec<String>) -> S {
    let mut current = fields_of(&S::default());
    if let Value::Object(map) = settings {
        for (key, v) in map {
            if !current.contains_key(&key) {
                notices.push(format!("unknown setting '{key}': ignored"));
                continue;
            }
            try_set::<S>(&mut current, &key, v, notices, |v| v.to_string());
        }
    }
    serde_json::from_value(Value::Object(current)).unwrap_or_default()
}

fn fields_of<S: Serialize>(s: &S) -> Map<String, Value> {
    // Through text, so f32 values read back as written (0.1, not 0.100000001…).
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
fn try_set<S: LabState>(
    fields: &mut Map<String, Value>,
    key: &str,
    v: Value,
    notices: &mut Vec<String>,
    shown: impl Fn(&Value) -> String,
) {
    let old = fields.insert(key.to_string(), v.clone());
    if serde_json::from_value::<S>(Value::Object(fields.clone())).is_err() {
        notices.push(format!("{key}={} is not a valid value: ignored", shown(&v)));
        if let Some(old) = old {
            fields.insert(key.to_string(), old);
        }
    }
}

fn to_query<S: LabState>(state: &S) -> String {
    let (fields, defaults) = (fields_of(state), fields_of(&S::default()));
    let mut pairs = Vec::new();
    for (key, v) in &fields {
        if key == "hide" || defaults.get(key) == Some(v) {
            continue;
        }
        pairs.push((key.clone(), encode_value(v)));
    }
    if let Some(Value::Array(hide)) = fields.get("hide") {
        for name in hide.iter().filter_map(Value::as_str) {
            if S::CONTROLS.contains(&name) {
                pairs.push((format!("{name}_hide"), "true".into()));
            }
        }
    }
    encode(pairs)
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
            if n.is_f64() {
                let x: f64 = raw.parse().ok().filter(|x: &f64| x.is_finite())?;
                serde_json::Number::from_f64(x).map(Value::Number)
            } else {
                raw.parse::<i64>().ok().map(Value::from)
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

fn from_query<S: LabState>(query: &str) -> (S, Vec<String>) {
    let mut q = Query::parse(query);
    let mut fields = fields_of(&S::default());
    let mut notices = Vec::new();
    let mut hide = BTreeSet::new();
    let pairs: Vec<(String, String)> = q
        .keys()
        .map(|k| (k.to_string(), q.raw(k).unwrap_or_default().to_string()))
        .collect();
    for (key, raw) in pairs {
        if let Some(name) = key.strip_suffix("_hide").filter(|n| S::CONTROLS.contains(n)) {
            if q.flag(&key, false) {
                hide.insert(name.to_string());
            }
            continue;
        }
        let Some(like) = fields.get(&key).filter(|_| key != "hide").cloned() else {
            notices.push(format!("unknown setting '{key}': ignored"));
            continue;
        };
        match decode_value(&raw, &like) {
            Some(v) => try_set::<S>(&mut fields, &key, v, &mut notices, |_| raw.clone()),
            None => notices.push(format!("{key}={raw} is not a valid value: ignored")),
        }
    }
    notices.append(&mut q.notices);
    if !hide.is_empty() {
        fields.insert("hide".into(), serde_json::to_value(&hide).unwrap_or_default());
    }
    let state = serde_json::from_value(Value::Object(fields)).unwrap_or_default();
    finish(state, notices)
}

/// Serde for a choice by its URL key (`key()` / `from_key()`), so JSON files and links agree.
#[macro_export]
macro_rules! serde_by_key {
    ($t:ty, $what:literal) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.key())
            }
        }
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let key = String::deserialize(d)?;
                Self::from_key(&key)
                    .ok_or_else(|| serde::de::Error::custom(format!("unknown {}: {key}", $what)))
            }
        }
    };
}

/// Keeps a text field to at most `max` characters (whole characters), noting a cut.
pub fn shorten(notices: &mut Vec<String>, name: &str, v: &mut String, max: usize) {
    if let Some((cut, _)) = v.char_indices().nth(max) {
        v.truncate(cut);
        notices.push(format!("{name} is longer than {max} characters: cut"));
    }
}

/// Keeps `v` one of the values a menu offers: the nearest, noting a change.
pub fn nearest<T>(notices: &mut Vec<String>, name: &str, v: &mut T, offered: &[T])
where
    T: Copy + PartialEq + Display,
{
    if offered.contains(v) {
        return;
    }
    // Through text, so one helper serves every integer type.
    let num = |t: &T| t.to_string().parse::<f64>().unwrap_or(f64::MAX);
    let x = num(v);
    if let Some(&c) = offered
        .iter()
        .min_by(|a, b| (num(a) - x).abs().total_cmp(&(num(b) - x).abs()))
    {
        notices.push(format!("{name}={v} is not offered: using {c}"));
        *v = c;
    }
}
