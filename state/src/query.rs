//! Reading URL query values with notices: every field keeps its default (or is clamped) when the
//! URL gives something it cannot use, and says so.

use std::collections::BTreeMap;
use std::str::FromStr;

/// Keys that belong to the shell (embedding), not to a lab's state: never a lab's notice.
pub const SHELL_KEYS: [&str; 4] = ["embed", "origins", "lab", "focus"];

/// A parsed query string: the last value of each key, and what went wrong while reading it.
pub struct Query {
    values: BTreeMap<String, String>,
    pub notices: Vec<String>,
}

impl Query {
    pub fn parse(query: &str) -> Self {
        let values = form_urlencoded::parse(query.trim_start_matches('?').as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .filter(|(k, _)| !SHELL_KEYS.contains(&k.as_str()))
            .collect();
        Self {
            values,
            notices: Vec::new(),
        }
    }

    pub fn raw(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// Keys the URL set, for spotting unknown ones.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    pub fn notice(&mut self, text: String) {
        self.notices.push(text);
    }

    /// A number in [lo, hi]: unparsable or non-finite values are ignored, others clamped.
    pub fn number<T>(&mut self, key: &str, lo: T, hi: T, default: T) -> T
    where
        T: FromStr + PartialOrd + Copy + std::fmt::Display,
    {
        let Some(raw) = self.raw(key).map(str::to_owned) else {
            return default;
        };
        match raw.trim().parse::<T>() {
            Ok(v) if v.partial_cmp(&v).is_some() => {
                if v < lo || v > hi {
                    let c = if v < lo { lo } else { hi };
                    self.notice(format!("{key}={raw} is outside {lo}–{hi}: using {c}"));
                    c
                } else {
                    v
                }
            }
            _ => {
                self.notice(format!("{key}={raw} is not a number: using {default}"));
                default
            }
        }
    }

    /// One of a set of named choices.
    pub fn choice<T: Copy>(&mut self, key: &str, from_key: impl Fn(&str) -> Option<T>, default: T) -> T {
        let Some(raw) = self.raw(key).map(str::to_owned) else {
            return default;
        };
        from_key(raw.trim()).unwrap_or_else(|| {
            self.notice(format!("{key}={raw} is not a known choice: ignored"));
            default
        })
    }

    pub fn flag(&mut self, key: &str, default: bool) -> bool {
        match self.raw(key).map(str::to_owned) {
            None => default,
            Some(v) => match v.as_str() {
                "1" | "true" | "yes" => true,
                "0" | "false" | "no" => false,
                _ => {
                    self.notice(format!("{key}={v} should be true or false: ignored"));
                    default
                }
            },
        }
    }
}

/// Builds a query string from (key, value) pairs, percent-encoding as needed.
pub fn encode(pairs: impl IntoIterator<Item = (String, String)>) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        out.append_pair(&k, &v);
    }
    out.finish()
}

/// The query an embedded lab moves to on a host's `lab-set-state`: its current one with the
/// host's keys set over it (a partial state changes only what it names). The embed's locks
/// (`<name>_hide`) and its shell keys stay as they were: a message cannot unlock a control.
pub fn merge(current: &str, incoming: &str) -> String {
    let parse = |q: &str| -> Vec<(String, String)> {
        // A query glued after another keeps its '?' on its first key (`embed=1&?lr=…`).
        form_urlencoded::parse(q.trim_start_matches('?').as_bytes())
            .map(|(k, v)| (k.trim_start_matches('?').to_string(), v.into_owned()))
            .collect()
    };
    let locked = |k: &str| k.ends_with("_hide") || SHELL_KEYS.contains(&k);
    let mut out: Vec<(String, String)> = Vec::new();
    let mut set = |k: String, v: String| match out.iter_mut().find(|(key, _)| *key == k) {
        Some(slot) => slot.1 = v,
        None => out.push((k, v)),
    };
    // A key given twice counts once, with its last value (as `Query::parse` reads it).
    for (k, v) in parse(current) {
        set(k, v);
    }
    for (k, v) in parse(incoming) {
        if !locked(&k) {
            set(k, v);
        }
    }
    encode(out)
}

#[cfg(test)]
mod shell_tests {
    use super::*;

    /// The frame's shell keys, then its current query as the address bar gives it ('?' first):
    /// no key named '?embed' (it came back as the notice "unknown setting '?embed'").
    #[test]
    fn a_query_glued_after_the_shell_keeps_no_question_mark() {
        let merged = merge("embed=1&origins=https://a.example&?embed=1&lr=0.1", "lr=0.2");
        assert!(!merged.contains("%3F") && !merged.contains('?'), "{merged}");
        let q = Query::parse(&merged);
        assert_eq!(q.raw("lr"), Some("0.2"));
        assert!(q.keys().all(|k| !k.starts_with('?')));
    }

    #[test]
    fn embedding_keys_are_not_lab_settings() {
        let q = Query::parse("embed=1&origins=https%3A%2F%2Fa.example&lr=0.1");
        assert_eq!(q.keys().collect::<Vec<_>>(), vec!["lr"]);
    }

    #[test]
    fn a_host_message_merges_into_the_state_and_keeps_the_locks() {
        let merged = merge(
            "?embed=1&origins=https%3A%2F%2Fa.example&embed=1&hidden=4%2C4&lr_hide=true",
            "lr=0.3&lr_hide=false&origins=https%3A%2F%2Fevil.example&embed=0",
        );
        let q = Query::parse(&merged);
        assert_eq!(q.raw("hidden"), Some("4,4"), "{merged}");
        assert_eq!(q.raw("lr"), Some("0.3"));
        assert_eq!(q.raw("lr_hide"), Some("true"));
        assert!(merged.contains("origins=https%3A%2F%2Fa.example&"), "{merged}");
        assert!(merged.starts_with("embed=1&"), "{merged}");
    }
}
