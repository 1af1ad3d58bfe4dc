//! Why a settings file is refused, by kind: the page and `lab lesson check` say it in words
//! (`Display`), tests tell the cases apart.

use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SettingsError {
    /// The text is not JSON at all.
    #[error("not valid JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object of settings.
    #[error("not a lab's settings: expected a JSON object")]
    NotAnObject,
    /// No `"lab"` name, or no version.
    #[error("not the {lab} lab's settings: no {missing}")]
    Unnamed {
        lab: &'static str,
        missing: &'static str,
    },
    /// Another lab's settings.
    #[error("this file holds the {found} lab's settings, not the {lab} lab's")]
    OtherLab { found: String, lab: &'static str },
    /// A newer version than this lab reads.
    #[error(
        "this file is version {version} of the {lab} lab's settings, newer than this lab reads \
         (version {reads}): reload the page for the latest lab"
    )]
    Newer {
        version: u64,
        lab: &'static str,
        reads: u32,
    },
    /// An older version this lab can no longer read.
    #[error(
        "this file holds version {version} of the {lab} lab's settings, which this version of the \
         lab (settings version {reads}) cannot read: set the lab up again and re-export"
    )]
    Older {
        version: u32,
        lab: &'static str,
        reads: u32,
    },
}
