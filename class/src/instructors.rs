//! Who may open classes on a campus server: the instructors of a file given at start
//! (`--instructors`), one per line, `NAME DIGEST` — the SHA-256 of the instructor's secret, never
//! the secret itself (`lab-class instructor NAME` makes both). An instructor's secret opens
//! classes, lists them, and acts for them from any device: the dashboard reattaches with it.

use std::collections::HashMap;
use std::path::Path;

use crate::secret::digest;

#[derive(Clone, Debug, Default)]
pub struct Instructors {
    /// Each instructor's name by their secret's digest.
    by_digest: HashMap<String, String>,
}

impl Instructors {
    /// The instructors of `path`, or what is wrong with the file (with its line).
    pub fn read(path: &Path) -> Result<Instructors, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("the instructors' file {}: {e}", path.display()))?;
        let mut by_digest = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |why: &str| format!("{} line {}: {why}", path.display(), n + 1);
            let mut parts = line.split_whitespace();
            let (Some(name), Some(d), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(at("NAME DIGEST, as `lab-class instructor NAME` prints it"));
            };
            if !valid_name(name) {
                return Err(at("a name of letters, digits and . _ @ -, at most 64"));
            }
            if d.len() != 64
                || !d
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
            {
                return Err(at("a digest of 64 lowercase hexadecimal digits"));
            }
            by_digest.insert(d.to_string(), name.to_string());
        }
        if by_digest.is_empty() {
            return Err(format!("{} names no instructor", path.display()));
        }
        Ok(Instructors { by_digest })
    }

    /// Instructors of the given (name, secret) pairs (tests).
    pub fn of(pairs: &[(&str, &str)]) -> Instructors {
        Instructors {
            by_digest: pairs.iter().map(|(n, s)| (digest(s), n.to_string())).collect(),
        }
    }

    /// The instructor whose secret this is.
    pub fn who(&self, secret: &str) -> Option<&str> {
        self.by_digest.get(&digest(secret)).map(String::as_str)
    }
}

fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._@-".contains(c))
}

/// A new instructor: a fresh secret, and the line of the instructors' file that admits it.
pub fn new_instructor(name: &str, secret: &str) -> Result<String, String> {
    if !valid_name(name) {
        return Err(format!(
            "{name}: a name of letters, digits and . _ @ -, at most 64"
        ));
    }
    Ok(format!("{name} {}", digest(secret)))
}
