//! The one registry of labs (`state/labs.json`): every list of labs — the navigation, `/labs`,
//! the app's routes, the guide links, the test-id prefixes, the browser tests' lists — is read
//! from it; the embed script routes a lab by its name; `state/tests/registry.rs` fails when a lab
//! has no settings table (`labs!` in `lib.rs`), no chapter in the book or a route other than its
//! name.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::lab::LabState;

include!("../lab_name.rs");

/// One lab as the registry lists it.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Lab {
    /// The lab's name in settings files (`LabState::LAB`), embeds (`data-lab`) and the book's
    /// chapter file (`book/student/<id>.html`).
    pub id: String,
    /// The path under the site's root ("" for the playground, which keeps `/`).
    pub route: String,
    /// Its label in the navigation bar.
    pub nav: String,
    /// Its name on `/labs`.
    pub title: String,
    /// Two sentences on `/labs`.
    pub summary: String,
    /// The prefix of its controls' test ids (`<prefix>-share`); its hideable names are the ids
    /// without it.
    pub prefix: String,
    /// The metrics it publishes (its `data-metric` names, which lessons measure and embedding
    /// pages receive), `{…}` standing for a part that varies (`acc-{run}`: `acc-fp32`).
    pub metrics: Vec<String>,
    /// The `data-testid`s of its figures a lesson section can name as the chart its question
    /// needs (`chart`): an embed with `focus=<chart>` shows that figure first, so on a phone it
    /// is in view under the prediction.
    #[serde(default)]
    pub charts: Vec<String>,
}

impl Lab {
    /// Whether `name` is one of the metrics the lab publishes.
    pub fn publishes(&self, name: &str) -> bool {
        self.metrics.iter().any(|pattern| matches_pattern(pattern, name))
    }
}

/// A metric's name from a label: lower case, words joined by '-' ("8 × ring" → "8-ring"), as a
/// lesson file names it and the registry's patterns match it.
pub fn metric_name(prefix: &str, label: &str) -> String {
    let mut out = String::from(prefix);
    for word in label
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        out.push('-');
        out.push_str(&word.to_lowercase());
    }
    out
}

/// Whether `name` fits `pattern`, where each `{…}` stands for one or more of `a-z`, `0-9`, `-`, `.`
/// (a percentage such as 87.5),
/// or, where it lists alternatives (`{sgd|adam}`), for exactly one of them: a lesson checker
/// then catches a misspelled part too.
fn matches_pattern(pattern: &str, name: &str) -> bool {
    match pattern.split_once('{') {
        None => pattern == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            let (inside, after) = rest.split_once('}').unwrap_or((rest, ""));
            let alternatives: Option<Vec<&str>> = inside.contains('|').then(|| inside.split('|').collect());
            // The varying part takes at least one character, then the rest must match.
            (1..=tail.len()).filter(|&n| tail.is_char_boundary(n)).any(|n| {
                let (part, remaining) = tail.split_at(n);
                let fits = match &alternatives {
                    Some(names) => names.contains(&part),
                    None => part
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.'),
                };
                fits && matches_pattern(after, remaining)
            })
        }
    }
}

impl Lab {
    /// The relative link to the lab ("./" for the playground), as the site's links are written
    /// so that they work under a sub-path.
    pub fn href(&self) -> &str {
        if self.route.is_empty() {
            "./"
        } else {
            &self.route
        }
    }

    /// The lab's chapter of the book, relative to the site's root.
    pub fn chapter(&self) -> String {
        format!("book/student/{}.html", self.id)
    }

    /// The lab's settings table, as far as the lists of labs need it (`labs!` in `lib.rs`).
    pub fn settings(&self) -> Option<SettingsTable> {
        crate::settings_table(&self.id)
    }
}

/// What the registry reads of a lab's settings table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsTable {
    /// The lab's name in its settings files (`LabState::LAB`).
    pub lab: &'static str,
    /// Every name `<name>_hide=true` may hide, in the table's order.
    pub hideable: Vec<&'static str>,
    /// The table's URL keys, one row each.
    pub keys: Vec<&'static str>,
    /// The fields of the lab's settings file (its defaults), less `hide` and `version`.
    pub fields: Vec<String>,
}

impl SettingsTable {
    /// What the registry reads of `S`'s table.
    pub(crate) fn of<S: LabState>() -> Self {
        SettingsTable {
            lab: S::LAB,
            hideable: S::controls(),
            keys: S::SETTINGS.iter().map(|row| row.key).collect(),
            fields: crate::table::fields_of(&S::default())
                .keys()
                .filter(|k| *k != "hide" && *k != "version")
                .cloned()
                .collect(),
        }
    }
}

#[derive(Deserialize)]
struct Registry {
    labs: Vec<Lab>,
}

/// Every lab, in the order the navigation lists them.
pub fn labs() -> &'static [Lab] {
    static LABS: OnceLock<Vec<Lab>> = OnceLock::new();
    LABS.get_or_init(|| {
        // Checked by the native tests, so a bad edit fails there before any page loads.
        serde_json::from_str::<Registry>(include_str!("../labs.json"))
            .expect("state/labs.json is the registry of labs")
            .labs
    })
}

/// The lab served at `route` (the last part of the page's path; "" or "index.html" for the
/// playground).
pub fn by_route(route: &str) -> Option<&'static Lab> {
    let route = if route == "index.html" { "" } else { route };
    labs().iter().find(|l| l.route == route)
}

/// The lab named `id`.
pub fn by_id(id: &str) -> Option<&'static Lab> {
    labs().iter().find(|l| l.id == id)
}

#[cfg(test)]
mod tests {
    #[test]
    fn metric_names_are_lower_case_words_joined_by_dashes() {
        assert_eq!(
            super::metric_name("seconds", "8 × binomial tree"),
            "seconds-8-binomial-tree"
        );
        assert_eq!(super::metric_name("rate", "SGD"), "rate-sgd");
        assert_eq!(super::metric_name("class", "T-shirt/top"), "class-t-shirt-top");
    }
}
