//! One way for every lab's settings to travel: the URL (only what differs from the defaults, so
//! links stay short), and a JSON file tagged with the lab's name and a version. A lab's settings
//! are a serde struct with `#[serde(default)]` and a `hide` set (the controls an instructor hid,
//! `<name>_hide=true` in the URL), described by one table (`crate::table`); `LabState` gives it
//! both codecs.
//!
//! Reading never panics and never fails outright: what cannot be used keeps its default, what is
//! out of range is clamped by the lab's `check`, and each gives a notice the page shows. Only a
//! JSON file of another lab, of an unknown version or not JSON at all is refused, with a reason.

use std::fmt::Display;

use serde_json::{Map, Value};

pub use crate::error::SettingsError;
pub use crate::range::{clamp, shorten};
use crate::table::{self, fields_of, try_set, Table};

/// Where a lab that trains on request runs: the CPU path (the default, the same on every
/// machine) or WebGPU (the CPU path where the browser has none). A setting like any other, so a
/// link or a lesson can pin it and a test can vary it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    #[default]
    Cpu,
    Webgpu,
}

/// The settings of a lab whose runs the scaffold trains (`app/src/recorded.rs`): their backend.
pub trait RunsOn {
    fn backend(&self) -> Backend;
    fn set_backend(&mut self, backend: Backend);
}

/// `RunsOn` for a settings struct whose backend is its `backend` field.
macro_rules! runs_on_field {
    ($lab:ty) => {
        impl $crate::lab::RunsOn for $lab {
            fn backend(&self) -> $crate::lab::Backend {
                self.backend
            }
            fn set_backend(&mut self, backend: $crate::lab::Backend) {
                self.backend = backend;
            }
        }
    };
}
pub(crate) use runs_on_field;

/// The largest seed a link may set (the engine's generators take 32 bits).
pub const MAX_SEED: u64 = u32::MAX as u64;

pub trait LabState: Table + PartialEq {
    /// The lab's route name ("optimizers"), written into its JSON files.
    const LAB: &'static str;
    /// Bumped when a field changes meaning; `upgrade` reads older files or refuses them.
    const VERSION: u32;

    /// Clamps out-of-range values into range, with a notice for each (the table's rules).
    fn check(&mut self, notices: &mut Vec<String>) {
        table::check(self, notices);
    }

    /// Turns an older version's JSON into this version's, or says why it cannot.
    fn upgrade(version: u32, _settings: Value) -> Result<Value, SettingsError> {
        Err(unreadable::<Self>(version))
    }

    fn to_query(&self) -> String {
        table::to_query(self)
    }

    fn from_query(query: &str) -> (Self, Vec<String>) {
        table::from_query(query)
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
    fn from_json(text: &str) -> Result<(Self, Vec<String>), SettingsError> {
        let value: Value = serde_json::from_str(text).map_err(|e| SettingsError::NotJson(e.to_string()))?;
        let Value::Object(mut map) = value else {
            return Err(SettingsError::NotAnObject);
        };
        let lab = Self::LAB;
        match map.remove("lab") {
            Some(Value::String(found)) if found == lab => {}
            Some(Value::String(found)) => return Err(SettingsError::OtherLab { found, lab }),
            _ => {
                return Err(SettingsError::Unnamed {
                    lab,
                    missing: "\"lab\" name",
                })
            }
        }
        let version = map
            .remove("version")
            .and_then(|v| v.as_u64())
            .ok_or(SettingsError::Unnamed {
                lab,
                missing: "version",
            })?;
        let mut settings = Value::Object(map);
        if version > Self::VERSION as u64 {
            let reads = Self::VERSION;
            return Err(SettingsError::Newer { version, lab, reads });
        }
        if version < Self::VERSION as u64 {
            settings = Self::upgrade(version as u32, settings)?;
        }
        let mut notices = Vec::new();
        let mut state: Self = merge_fields(settings, &mut notices);
        state.check(&mut notices);
        Ok((state, notices))
    }
}

/// `upgrade` for labs whose version 2 wrote choices by name where version 1 wrote indices: the
/// fields' `crate::names` adapters read version 1's indices as they are.
pub fn upgrade_named<S: LabState>(version: u32, settings: Value) -> Result<Value, SettingsError> {
    match version {
        1 => Ok(settings),
        v => Err(unreadable::<S>(v)),
    }
}

/// Why a file of an older settings version cannot be read.
pub fn unreadable<S: LabState>(version: u32) -> SettingsError {
    SettingsError::Older {
        version,
        lab: S::LAB,
        reads: S::VERSION,
    }
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

/// Builds the state field by field from a JSON object, so one bad field keeps its default
/// instead of losing the whole file.
fn merge_fields<S: LabState>(settings: Value, notices: &mut Vec<String>) -> S {
    let mut current = fields_of(&S::default());
    if let Value::Object(map) = settings {
        let mut unknown = Vec::new();
        for (key, v) in map {
            if !current.contains_key(&key) {
                unknown.push(key);
                continue;
            }
            let shown = v.to_string();
            try_set::<S>(&mut current, &key, v, notices, &shown);
        }
        let names: Vec<&str> = unknown.iter().map(String::as_str).collect();
        notices.extend(table::unknown_notice(&names));
    }
    serde_json::from_value(Value::Object(current)).unwrap_or_default()
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
    // Beyond the offered values the nearest is the end on that side (with x = 1e30 every
    // difference rounds to 1e30, which would pick the first).
    let nearest = if offered.iter().all(|o| num(o) <= x) {
        offered.iter().max_by(|a, b| num(a).total_cmp(&num(b)))
    } else if offered.iter().all(|o| num(o) >= x) {
        offered.iter().min_by(|a, b| num(a).total_cmp(&num(b)))
    } else {
        offered
            .iter()
            .min_by(|a, b| (num(a) - x).abs().total_cmp(&(num(b) - x).abs()))
    };
    if let Some(&c) = nearest {
        notices.push(format!("{name}={v} is not offered: using {c}"));
        *v = c;
    }
}

/// An image set's name: `mnist` or `fashion`; anything else becomes mnist, with a notice.
pub fn check_image_set(data: &mut String, notices: &mut Vec<String>) {
    if data != "mnist" && data != "fashion" {
        notices.push(format!(
            "data={}: mnist or fashion; using mnist",
            crate::table::quote(data)
        ));
        *data = "mnist".into();
    }
}

/// A batch no larger than the training images it is drawn from.
pub fn batch_within_images(batch: &mut usize, images: usize, notices: &mut Vec<String>) {
    if *batch > images {
        notices.push(format!(
            "batch={batch} is larger than the {images} images: using {images}"
        ));
        *batch = images;
    }
}
