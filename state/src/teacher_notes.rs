//! The book's chapter of teacher notes (`docs/book/src/instructor/teacher-notes.md`), written from
//! the lesson files in the course's order: each lesson's goal, time, the misconceptions it meets
//! and questions for discussion. A test keeps the committed chapter equal to what this writes, so
//! the book and the lessons cannot drift apart.

use crate::error::CourseError;
use crate::lesson_check::{course_lessons, teacher_notes};

/// The chapter, from the course file's text and a reader of each lesson's file by id.
pub fn chapter(course: &str, read: impl Fn(&str) -> Option<String>) -> Result<String, CourseError> {
    let mut out = String::from(
        "# Teacher notes\n\n\
         For each lesson of the course, in its order: what it is for, about how long it takes in\n\
         class (reading and runs, on a laptop's CPU path), the wrong ideas it meets (the predictions\n\
         students who hold them make, which the lesson's reveal answers), and questions to discuss\n\
         after the reveal. The same notes are in each lesson file (`teacher`) and on the course page:\n\
         **Show teacher notes** at its top. This chapter is written from the lesson files\n\
         (`lab_state::teacher_notes`; `state/tests/lesson_check.rs` keeps it equal to them).\n",
    );
    for id in course_lessons(course)? {
        let text = read(&id).ok_or_else(|| CourseError::Missing(id.clone()))?;
        let lesson: serde_json::Value = serde_json::from_str(&text).map_err(|e| CourseError::BadLesson {
            id: id.clone(),
            why: e.to_string(),
        })?;
        let notes = teacher_notes(&text).ok_or_else(|| CourseError::NoTeacherNotes(id.clone()))?;
        let title = lesson["title"].as_str().unwrap_or(&id);
        out.push_str(&format!("\n## {title}\n\n"));
        let minutes = lesson["minutes"]
            .as_f64()
            .map_or(String::new(), |m| format!(", about {m} min"));
        out.push_str(&format!("`{id}`{minutes}. **Goal**: {}\n\n", notes.goal));
        out.push_str("**Misconceptions it meets**:\n\n");
        for m in &notes.misconceptions {
            out.push_str(&format!("- {m}\n"));
        }
        out.push_str("\n**For discussion**:\n\n");
        for q in &notes.discussion {
            out.push_str(&format!("- {q}\n"));
        }
    }
    Ok(out)
}
