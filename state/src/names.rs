//! Choices written by name. In memory a choice is an index into today's list (the order the
//! page shows); in links and files it is the name (`optimizer=adam`), so reordering a list never
//! changes what a shared link means. Links and files from settings version 1 held the index
//! itself: each list keeps its version-1 order, frozen, to read them (`optimizer=5` is Adam).

use serde::de::Error as _;

use crate::error::ChoiceError;
use serde::{Deserialize, Deserializer, Serializer};

/// What a field may hold when read: a name, or a version-1 index (a number, or its digits as
/// URL text).
#[derive(Deserialize)]
#[serde(untagged)]
enum Raw {
    Index(u64),
    Text(String),
}

/// The index in `now` of a name, or of a version-1 index through `v1`.
pub fn index_of(now: &[&str], v1: &[&str], raw: &str) -> Result<usize, ChoiceError> {
    let name = match raw.trim().parse::<usize>() {
        Ok(i) => *v1.get(i).ok_or(ChoiceError::NoSuchIndex {
            index: i,
            last: v1.len().saturating_sub(1),
        })?,
        Err(_) => raw.trim(),
    };
    now.iter()
        .position(|n| *n == name)
        .ok_or_else(|| ChoiceError::Unknown {
            name: name.to_string(),
            choices: now.join(", "),
        })
}

fn read<'de, D: Deserializer<'de>>(d: D, now: &[&str], v1: &[&str]) -> Result<usize, D::Error> {
    let raw = match Raw::deserialize(d)? {
        Raw::Index(i) => i.to_string(),
        Raw::Text(t) => t,
    };
    index_of(now, v1, &raw).map_err(D::Error::custom)
}

fn write<S: Serializer>(s: S, now: &[&str], i: usize) -> Result<S::Ok, S::Error> {
    s.serialize_str(now.get(i).or(now.first()).copied().unwrap_or_default())
}

/// A serde `with` module for one list: `#[serde(with = "crate::names::optimizer")]`.
macro_rules! named_index {
    ($(#[$doc:meta])* $module:ident, $now:expr, $v1:expr) => {
        $(#[$doc])*
        pub mod $module {
            use serde::{Deserializer, Serializer};

            /// Today's names, in the order of the indices in memory.
            pub const NOW: &[&str] = &$now;
            /// The order of settings version 1 (its links and files held these indices).
            pub const V1: &[&str] = &$v1;

            pub fn serialize<S: Serializer>(i: &usize, s: S) -> Result<S::Ok, S::Error> {
                super::write(s, NOW, *i)
            }

            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
                super::read(d, NOW, V1)
            }
        }
    };
}

named_index!(
    /// `engine::optim::Optimizer::all()`, by key.
    optimizer,
    ["sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam", "adamw", "lars"],
    ["sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam", "adamw", "lars"]
);
named_index!(
    /// `cluster::ALGORITHMS`, by key.
    algorithm,
    ["ring", "tree", "server", "naive", "butterfly", "rabenseifner", "hierarchical"],
    ["ring", "tree", "server", "naive", "butterfly", "rabenseifner", "hierarchical"]
);
named_index!(
    /// `cluster::COMPRESSIONS`, by key.
    compression,
    ["none", "topk", "randomk", "quantize", "ternary"],
    ["none", "topk", "randomk", "quantize", "ternary"]
);
named_index!(
    /// `engine::collectives::Link::PRESETS`, by name.
    link,
    ["nvlink", "pcie", "infiniband", "100gbe", "10gbe", "wifi"],
    ["nvlink", "pcie", "infiniband", "100gbe", "10gbe", "wifi"]
);
named_index!(
    /// `layers::PRESETS`, by key.
    preset,
    ["mlp", "lenet", "deeper", "resnet8", "plain8"],
    ["mlp", "lenet", "deeper"]
);

/// A set of algorithms (a tick per entry of `cluster::ALGORITHMS`), written as their names
/// (`chosen=ring,tree`); version 1 wrote the ticks themselves (`[true, true, false, …]`).
pub mod algorithm_set {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    use super::algorithm::{NOW, V1};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Item {
        Tick(bool),
        Name(String),
    }

    pub fn serialize<S: Serializer>(ticks: &[bool; 7], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..7).filter(|&i| ticks[i]).map(|i| NOW[i]))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[bool; 7], D::Error> {
        let items = Vec::<Item>::deserialize(d)?;
        let mut ticks = [false; 7];
        // Seven ticks (as booleans, or as their words in a link) are version 1's form.
        let as_tick = |i: &Item| match i {
            Item::Tick(b) => Some(*b),
            Item::Name(n) if n == "true" || n == "false" => Some(n == "true"),
            Item::Name(_) => None,
        };
        if items.len() == V1.len() && items.iter().all(|i| as_tick(i).is_some()) {
            for (k, item) in items.iter().enumerate() {
                if as_tick(item) == Some(true) {
                    ticks[super::index_of(NOW, V1, V1[k]).map_err(D::Error::custom)?] = true;
                }
            }
            return Ok(ticks);
        }
        for item in items {
            let Item::Name(name) = item else {
                return Err(D::Error::custom("a list of algorithm names"));
            };
            ticks[super::index_of(NOW, V1, &name).map_err(D::Error::custom)?] = true;
        }
        Ok(ticks)
    }
}

/// A list of names separated by commas or spaces, each one of `known`, 1 to `most` of them; or
/// why not, for the setting `key`.
pub fn parse_names(
    key: &'static str,
    text: &str,
    known: &[&str],
    most: usize,
) -> Result<Vec<String>, crate::error::SetupError> {
    use crate::error::SetupError;
    let names: Vec<String> = text
        .split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if names.is_empty() || names.len() > most {
        return Err(SetupError::HowMany {
            setting: key,
            most,
            known: known.join(", "),
        });
    }
    if let Some(bad) = names.iter().find(|n| !known.contains(&n.as_str())) {
        return Err(SetupError::NotOneOf {
            setting: key,
            name: bad.clone(),
            known: known.join(", "),
        });
    }
    Ok(names)
}
