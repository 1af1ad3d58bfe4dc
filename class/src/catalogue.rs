//! The course the server checks ids against: every lesson file of a folder (`--lessons`, the
//! site's `public/lessons` by default), each lesson's sections and each section's number of
//! choices. A lock, a result, a release or a pace naming a lesson, section or choice the course
//! does not have is refused with the reason (a lesson id "course" no longer reaches the
//! dashboard). Lessons are read at start: a lesson file added to the site needs a restart.

use std::collections::HashMap;
use std::path::Path;

use crate::error::ClassError;

/// Each lesson's sections, as their numbers of choices.
#[derive(Clone, Debug, Default)]
pub struct Catalogue {
    lessons: HashMap<String, Vec<u32>>,
}

impl Catalogue {
    /// The lessons of `dir` (every `*.json` with a `sections` list; `course.json`, the course's
    /// outline, has none and is not one).
    pub fn read(dir: &Path) -> Result<Catalogue, String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("the lessons at {}: {e}", dir.display()))?;
        let mut lessons = HashMap::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = path
                .file_stem()
                .and_then(|s| s.to_str())
                .filter(|_| path.extension().is_some_and(|e| e == "json"))
            else {
                continue;
            };
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let Ok(lesson) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue; // the site's own checker names a malformed lesson; it is no lesson here
            };
            let Some(sections) = lesson["sections"].as_array() else {
                continue;
            };
            let choices = sections
                .iter()
                .map(|s| s["predict"]["choices"].as_array().map_or(0, |c| c.len() as u32))
                .collect();
            lessons.insert(id.to_string(), choices);
        }
        if lessons.is_empty() {
            return Err(format!("no lesson files in {}", dir.display()));
        }
        Ok(Catalogue { lessons })
    }

    /// A catalogue of the given lessons (tests).
    pub fn of(lessons: &[(&str, &[u32])]) -> Catalogue {
        Catalogue {
            lessons: lessons
                .iter()
                .map(|(id, c)| (id.to_string(), c.to_vec()))
                .collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.lessons.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lessons.is_empty()
    }

    /// The number of choices of `lesson`'s section `section` (counted from 0), or why there is none.
    pub fn section(&self, lesson: &str, section: u32) -> Result<u32, ClassError> {
        let sections = self
            .lessons
            .get(lesson)
            .ok_or_else(|| ClassError::Invalid(format!("lesson: the course has no lesson {lesson}")))?;
        sections.get(section as usize).copied().ok_or_else(|| {
            ClassError::Invalid(format!(
                "section: lesson {lesson} has sections 0 to {} (counted from 0), not {section}",
                sections.len().saturating_sub(1)
            ))
        })
    }

    /// A choice of that section (or, for an outcome, −1: none).
    pub fn choice(&self, lesson: &str, section: u32, choice: i64, what: &str) -> Result<(), ClassError> {
        let n = self.section(lesson, section)?;
        if (0..i64::from(n)).contains(&choice) || (what == "outcome" && choice == -1) {
            Ok(())
        } else {
            Err(ClassError::Invalid(format!(
                "{what}: section {section} of {lesson} has choices 0 to {}, not {choice}",
                n.saturating_sub(1)
            )))
        }
    }
}
