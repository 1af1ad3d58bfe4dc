//! `lab lesson check`'s rules (`lab_state::lesson_check`): every lesson of the course passes, and
//! each fault an instructor can make is named — a misspelled metric, a setting the lab does not
//! know, choices that overlap or leave a gap, a choice without its why, a claim that is no
//! choice, an unknown field or lab.

use lab_state::lesson_check::check;
use serde_json::{json, Value};

fn read(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)).unwrap()
}

/// The course's lessons, every unit's in order.
fn course() -> Vec<String> {
    lab_state::lesson_check::course_lessons(&read("public/lessons/course.json")).unwrap()
}

#[test]
fn every_lesson_of_the_course_passes() {
    for id in course() {
        let id = id.as_str();
        let problems = check(&read(&format!("public/lessons/{id}.json")));
        assert!(problems.is_empty(), "{id}: {problems:#?}");
    }
}

/// A small, correct lesson of the optimizer lab, to break one way at a time.
fn lesson() -> Value {
    json!({
        "title": "Momentum",
        "lab": "optimizers",
        "sections": [{
            "heading": "Faster?",
            "question": "How many times fewer steps?",
            "state": "kappa=100&racers=sgd,momentum",
            "measure": { "expr": "log({rate-momentum}) / log({rate-sgd})", "label": "speed-up" },
            "predict": { "choices": [
                { "text": "under 2×", "max": 2, "why": "the settings are not the best" },
                { "text": "2× to 30×", "min": 2, "max": 30 },
                { "text": "over 30×", "min": 30, "why": "noise moves the rates" }
            ] },
            "claim": 1,
            "why": "√κ, not κ."
        }]
    })
}

fn problems(edit: impl FnOnce(&mut Value)) -> String {
    let mut l = lesson();
    edit(&mut l);
    check(&l.to_string()).join("\n")
}

#[test]
fn a_correct_lesson_has_no_problem() {
    assert_eq!(problems(|_| {}), "");
}

#[test]
fn a_misspelled_metric_is_named_with_what_the_lab_publishes() {
    let p = problems(|l| l["sections"][0]["measure"]["expr"] = json!("log({rate-momentm}) / log({rate-sgd})"));
    assert!(p.contains("section 1 (\"Faster?\"): the optimizers lab publishes no metric \"rate-momentm\" (it publishes"), "{p}");
}

#[test]
fn a_chart_the_lab_does_not_draw_is_named_with_its_charts() {
    let p = problems(|l| l["sections"][0]["chart"] = json!("opt-loss-chart"));
    assert_eq!(p, "", "a chart of the optimizers lab");
    let p = problems(|l| l["sections"][0]["chart"] = json!("loss-chart"));
    assert!(p.contains("section 1 (\"Faster?\"): the optimizers lab has no chart \"loss-chart\" (it has opt-contour, opt-loss-chart)"), "{p}");
}

#[test]
fn a_setting_the_lab_does_not_know_is_its_notice() {
    let p = problems(|l| l["sections"][0]["state"] = json!("kappa=100&lerning_rate=3"));
    assert!(p.contains("its state: "), "{p}");
    assert!(p.contains("lerning_rate"), "{p}");
    let p = problems(|l| l["sections"][0]["state"] = json!("kappa=abc"));
    assert!(p.contains("its state: ") && p.contains("kappa"), "{p}");
}

#[test]
fn overlapping_choices_and_gaps_are_named() {
    let p = problems(|l| l["sections"][0]["predict"]["choices"][1]["min"] = json!(1.5));
    assert!(p.contains("choices 0 and 1 overlap (from 1.5 to 2)"), "{p}");
    let p = problems(|l| l["sections"][0]["predict"]["choices"][2]["min"] = json!(40));
    assert!(p.contains("no choice holds a measure from 30 to 40"), "{p}");
    let p = problems(|l| l["sections"][0]["predict"]["choices"][0]["min"] = json!(0));
    assert!(p.contains("no choice holds a measure below 0"), "{p}");
    // A choice marked otherwise takes whatever the ranges leave.
    let p = problems(|l| {
        l["sections"][0]["predict"]["choices"][0]["min"] = json!(0);
        l["sections"][0]["predict"]["choices"][2] = json!({ "text": "something else", "otherwise": true, "why": "a run that stopped early" });
    });
    assert_eq!(p, "");
}

#[test]
fn every_outcome_but_the_claim_has_its_why() {
    let p = problems(|l| l["sections"][0]["predict"]["choices"][2].as_object_mut().unwrap().remove("why").map(|_| ()).unwrap());
    assert!(p.contains("choice 2 (\"over 30×\") has no why"), "{p}");
    let p = problems(|l| l["sections"][0]["why"] = json!(""));
    assert!(p.contains("no why: the reveal explains the claim"), "{p}");
}

#[test]
fn a_claim_an_unknown_field_and_an_unknown_lab_are_refused() {
    let p = problems(|l| l["sections"][0]["claim"] = json!(3));
    assert!(p.contains("its claim 3 is not one of its 3 choices"), "{p}");
    let p = problems(|l| l["sections"][0]["meausre"] = json!({}));
    assert!(p.contains("unknown field `meausre`"), "{p}");
    let p = problems(|l| l["lab"] = json!("optimiser"));
    assert!(p.contains("no lab \"optimiser\" (one of playground, optimizers"), "{p}");
    assert_eq!(check("{ nonsense").len(), 1);
}

/// Where in a lesson an object of one kind is.
type At = fn(&mut Value) -> &mut Value;

/// The JSON Schema an editor validates with (`public/lessons/lesson.schema.json`) names the
/// fields the checker reads, no more: each property it lists is one `check` accepts, and each key
/// the course's lessons use is one it lists.
#[test]
fn the_schema_and_the_checker_name_the_same_fields() {
    let schema: Value = serde_json::from_str(&read("public/lessons/lesson.schema.json")).unwrap();
    let props = |v: &Value| v["properties"].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    let defs = &schema["$defs"];
    let kinds: [(&str, Vec<String>, At); 4] = [
        ("lesson", props(&schema), |l| l),
        ("section", props(&defs["section"]), |l| &mut l["sections"][0]),
        ("measure", props(&defs["measure"]), |l| &mut l["sections"][0]["measure"]),
        ("choice", props(&defs["choice"]), |l| &mut l["sections"][0]["predict"]["choices"][0]),
    ];
    for (kind, fields, at) in kinds {
        for field in &fields {
            let p = problems(|l| {
                let o = at(l).as_object_mut().unwrap();
                o.entry(field.clone()).or_insert(json!(null));
            });
            assert!(!p.contains("unknown field"), "{kind}.{field}: the schema lists it, the checker refuses it: {p}");
        }
        for id in course() {
            let mut lesson: Value = serde_json::from_str(&read(&format!("public/lessons/{id}.json"))).unwrap();
            for key in at(&mut lesson).as_object().unwrap().keys() {
                assert!(fields.contains(key), "{id}: {kind}.{key} is not in the schema");
            }
        }
    }
}

#[test]
fn a_lesson_time_is_a_positive_number() {
    assert_eq!(problems(|l| l["minutes"] = json!(4)), "");
    assert!(problems(|l| l["minutes"] = json!(0)).contains("minutes: a positive number"));
}

/// A course file lists its lessons by unit, in order, or (written the older way) in one list; a
/// file with neither, or an entry that is not a name, is refused with the reason.
#[test]
fn a_course_lists_its_lessons_by_unit() {
    use lab_state::lesson_check::course_lessons;
    let units = json!({ "units": [{ "title": "A", "lessons": ["a", "b"] }, { "title": "B", "lessons": ["c"] }] });
    assert_eq!(course_lessons(&units.to_string()).unwrap(), ["a", "b", "c"]);
    assert_eq!(course_lessons(r#"{"lessons": ["x"]}"#).unwrap(), ["x"]);
    assert!(course_lessons(r#"{"title": "no lessons"}"#).unwrap_err().to_string().contains("units"));
    assert!(course_lessons(r#"{"units": [{"lessons": [42]}]}"#).unwrap_err().to_string().contains("42"));
}

/// The course teaches from every lab: each has at least two lessons in it.
#[test]
fn every_lab_has_at_least_two_lessons_in_the_course() {
    let labs_of: Vec<String> = course()
        .iter()
        .map(|id| {
            let lesson: Value = serde_json::from_str(&read(&format!("public/lessons/{id}.json"))).unwrap();
            lesson["lab"].as_str().unwrap().to_string()
        })
        .collect();
    for lab in lab_state::registry::labs() {
        let n = labs_of.iter().filter(|l| **l == lab.id).count();
        assert!(n >= 2, "the {} lab has {n} lesson(s) in the course", lab.id);
    }
}

/// Every lesson of the course has teacher notes, and the book's chapter of them is what the
/// lesson files say (`UPDATE_BOOK=1` writes it again after a lesson changed).
#[test]
fn every_lesson_has_teacher_notes_and_the_book_has_them_all() {
    for id in course() {
        let notes = lab_state::lesson_check::teacher_notes(&read(&format!("public/lessons/{id}.json")));
        let notes = notes.unwrap_or_else(|| panic!("{id}: no teacher notes"));
        assert!(!notes.misconceptions.is_empty() && !notes.discussion.is_empty(), "{id}");
    }
    let chapter = lab_state::teacher_notes::chapter(&read("public/lessons/course.json"), |id| {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../public/lessons/{id}.json")),
        )
        .ok()
    })
    .unwrap();
    let book = "docs/book/src/instructor/teacher-notes.md";
    if std::env::var_os("UPDATE_BOOK").is_some() {
        std::fs::write(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(book), &chapter).unwrap();
    }
    assert!(
        read(book) == chapter,
        "{book} differs from the lesson files' notes: UPDATE_BOOK=1 cargo test -p lab_state --test state every_lesson_has_teacher_notes"
    );
}

/// Placeholder text is refused where a student or an instructor would read it: a reveal's why, a
/// choice's why, a teacher note.
#[test]
fn placeholder_text_is_refused() {
    let why = problems(|l| l["sections"][0]["why"] = json!("..."));
    assert!(why.contains("no why"), "{why}");
    let choice = problems(|l| l["sections"][0]["predict"]["choices"][0]["why"] = json!("TODO"));
    assert!(choice.contains("has no why"), "{choice}");
    let notes = problems(|l| {
        l["teacher"] = json!({ "goal": "…", "misconceptions": [], "discussion": ["What changes?"] })
    });
    assert!(notes.contains("teacher: a goal") && notes.contains("teacher: misconceptions"), "{notes}");
    assert_eq!(
        problems(|l| l["teacher"] = json!({ "goal": "Momentum's √κ.", "misconceptions": ["It only adds speed."], "discussion": ["Why √κ?"] })),
        ""
    );
}
