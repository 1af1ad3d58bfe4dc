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
    /// Fields that are not this lab's settings.
    #[error("not the {lab} lab's settings: {why}")]
    Fields { lab: &'static str, why: String },
    /// Values outside their ranges, each with its notice (a file that must be taken whole).
    #[error("{}", .0.join("; "))]
    OutOfRange(Vec<String>),
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

/// Why a course file, or a lesson it lists, cannot be read as a course (the teacher notes'
/// chapter, the authoring page's list of lessons).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CourseError {
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error("a course has \"units\" (or one \"lessons\" list)")]
    NoLessons,
    #[error("a unit's \"lessons\" is a list")]
    NotAList,
    #[error("{0} is not a lesson id")]
    NotAnId(String),
    #[error("no lesson file {0}.json")]
    Missing(String),
    #[error("{id}: {why}")]
    BadLesson { id: String, why: String },
    #[error("{0}: no teacher notes")]
    NoTeacherNotes(String),
}

/// Why a choice written in a link or file names none of a list's choices.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ChoiceError {
    /// A version-1 index past the list.
    #[error("{index} is not a choice (0–{last})")]
    NoSuchIndex { index: usize, last: usize },
    /// A name the list does not have.
    #[error("'{name}' is not one of {choices}")]
    Unknown { name: String, choices: String },
}

/// Why a lab's settings cannot be run as they are: the page shows it in its error banner, a
/// settings table's row in its notice.
#[derive(Debug, Error)]
pub enum SetupError {
    /// A setting outside its rule ("workers: from 1 to 64").
    #[error("{setting}: {rule}")]
    Rule {
        setting: &'static str,
        rule: &'static str,
    },
    /// What a setting takes, where its name is already beside it ("1 to 3 weight decays from 0 to
    /// 10, such as 1, 0").
    #[error("{0}")]
    Expected(&'static str),
    /// A list entry that is not the kind of number the setting takes.
    #[error("{setting}: '{text}' is not {kind}")]
    NotA {
        setting: &'static str,
        text: String,
        kind: &'static str,
    },
    /// A name that is not one of the setting's.
    #[error("{setting}: '{name}' is not one of {known}")]
    NotOneOf {
        setting: &'static str,
        name: String,
        known: String,
    },
    /// Fewer or more names than the setting takes.
    #[error("{setting}: 1 to {most} of {known}")]
    HowMany {
        setting: &'static str,
        most: usize,
        known: String,
    },
    /// A run's batch that its layout cannot cut into equal pieces.
    #[error("{run}: the batch of {batch} does not split into {pieces} equal pieces")]
    Uneven {
        run: String,
        batch: usize,
        pieces: usize,
    },
    /// Nothing chosen where one is needed.
    #[error("choose at least one {0}")]
    NoneChosen(&'static str),
    /// A global batch that strong scaling cannot split over the workers.
    #[error(
        "strong scaling: a global batch of {batch} cannot be split over {workers} workers (each \
         needs at least one sample): raise the batch or use weak scaling"
    )]
    Unsplittable { batch: usize, workers: usize },
    /// The layer list, with the parser's reason.
    #[error(transparent)]
    Layers(#[from] crate::layer_error::LayerError),
    /// A model the engine cannot compile.
    #[error(transparent)]
    Model(#[from] engine::error::ModelError),
    /// A training config the engine refuses.
    #[error(transparent)]
    Engine(#[from] engine::error::Error),
}

/// The page's banners and notices hold text: a refusal becomes it where it is shown.
impl From<SetupError> for String {
    fn from(e: SetupError) -> String {
        e.to_string()
    }
}
