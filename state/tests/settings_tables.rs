//! Each lab's settings table is the whole truth about its settings: one row per field of its
//! settings file, keys and hideable names unique, every hideable name listed in the lab's chapter of the book (the
//! e2e hiding test reads that list and hides each one), and free text checked when a link or
//! file loads, not first when Run is pressed.

use std::collections::BTreeSet;

use lab_state::cluster::ClusterLab;
use lab_state::lab::LabState;
use lab_state::optimizers::OptimizersLab;
use lab_state::playground::Playground;
use lab_state::registry;
use lab_state::scaling::ScalingLab;
use lab_state::vision::VisionLab;

/// A lab's hideable names as its chapter of the book lists them for instructors:
/// `**Hideable names**: `a`, `b`, …`.
fn book_names(lab: &str) -> Vec<String> {
    let path = format!("docs/book/src/student/{lab}.md");
    let text = std::fs::read_to_string(format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("**Hideable names**"))
        .unwrap_or_else(|| panic!("{path} has no line '**Hideable names**: …'"));
    line.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// Every lab of the registry: one row per field of its settings file, keys and hideable names
/// unique, and its chapter listing exactly the names its table can hide.
#[test]
fn every_table_covers_its_settings_and_the_book_lists_every_hideable_name() {
    for lab in registry::labs() {
        let table = lab.settings().unwrap();
        for (what, names) in [("key", &table.keys), ("name", &table.hideable)] {
            let unique: BTreeSet<&str> = names.iter().copied().collect();
            assert_eq!(
                unique.len(),
                names.len(),
                "{}: a {what} twice in {names:?}",
                lab.id
            );
        }
        assert_eq!(
            table.keys.len(),
            table.fields.len(),
            "{}: one row per field of the settings file ({:?} against {:?})",
            lab.id,
            table.fields,
            table.keys
        );
        let expected = table
            .hideable
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        assert_eq!(
            book_names(&lab.id),
            table.hideable,
            "the book lists {}'s hideable names as the table does; expected\n**Hideable names**: {expected}",
            lab.id
        );
    }
}

/// Hostile free text is refused when the link loads, with a notice, and the default kept: what
/// the page then shows is what Run uses.
#[test]
fn free_text_is_checked_when_a_link_loads() {
    for q in [
        "batches=abc",
        "batches=0,5",
        "batches=",
        "lr_factors=-1",
        "lr_factors=1e99x",
    ] {
        let (s, notices) = ScalingLab::from_query(q);
        assert_eq!(notices.len(), 1, "{q}: {notices:?}");
        assert!(s.sweep().is_ok(), "{q}: the kept default runs");
    }
    for q in ["bound=x", "bound=-1", "study=0,99", "study=a"] {
        let (s, notices) = ClusterLab::from_query(&format!("asynchronous=true&{q}"));
        assert_eq!(notices.len(), 1, "{q}: {notices:?}");
        assert!(
            s.validate().is_ok() && s.study().is_ok(),
            "{q}: the kept default runs"
        );
    }
    for q in ["layers=conv", "layers=dense+0", "layers=%3Cscript%3E"] {
        let (s, notices) = VisionLab::from_query(q);
        assert_eq!(notices.len(), 1, "{q}: {notices:?}");
        assert!(s.config().is_ok(), "{q}: the kept default runs");
    }
    // A file is checked the same way.
    let (s, notices) = ScalingLab::from_json(r#"{"lab":"scaling","version":2,"batches":"x"}"#).unwrap();
    assert_eq!((s.batches, notices.len()), (ScalingLab::default().batches, 1));
}

/// Numbers beyond a setting's range say so (not "not a number"), menus snap to the end on that
/// side, and a notice never quotes a whole long value.
#[test]
fn out_of_range_numbers_and_long_values_are_noticed_briefly() {
    let (s, notices) = Playground::from_query("seed=-1&warmup=1e12");
    assert_eq!((s.seed, s.warmup), (0, 100_000));
    assert!(
        notices
            .iter()
            .all(|n| n.contains("outside") && !n.contains("not a number")),
        "{notices:?}"
    );
    let (s, notices) = OptimizersLab::from_query("kappa=1e30");
    assert_eq!(s.kappa, 1000.0, "{notices:?}");
    let (s, notices) = ClusterLab::from_query("workers=-3&shards=1e12");
    assert_eq!((s.workers, s.shards), (1, 64));
    assert!(notices.iter().all(|n| !n.contains("not a valid")), "{notices:?}");
    let (s, notices) = ScalingLab::from_query("lr_factors=1e30");
    assert_eq!(
        (s.lr_factors, notices.len()),
        (ScalingLab::default().lr_factors, 1)
    );
    let long = "x".repeat(100_000);
    for q in [
        format!("lr={long}"),
        format!("{long}=1"),
        format!("layers={long}"),
    ] {
        let (_, notices) = VisionLab::from_query(&q);
        assert!(!notices.is_empty());
        assert!(
            notices.iter().all(|n| n.len() < 400),
            "{:?}",
            notices
                .iter()
                .map(|n| n.chars().take(120).collect::<String>())
                .collect::<Vec<_>>()
        );
    }
    let (_, notices) = Playground::from_query(&format!("hidden={long}&dataset={long}"));
    assert!(notices.iter().all(|n| n.len() < 400), "{notices:?}");
    let text = format!(r#"{{"lab":"scaling","version":2,"batches":"{long}","{long}":1}}"#);
    let (_, notices) = ScalingLab::from_json(&text).unwrap();
    assert!(notices.iter().all(|n| n.len() < 400), "{notices:?}");
}

/// A control's range is its table row's (`table::refusal`), so a number typed into the page and
/// the same number in a link are judged alike (the vision lab's epochs and the cluster's update
/// budget once had narrower ranges on the page than in their tables).
#[test]
fn controls_take_their_ranges_from_the_table() {
    use lab_state::table::refusal;
    let vision = |epochs| VisionLab {
        epochs,
        ..VisionLab::default()
    };
    assert_eq!(refusal(&vision(100)), None);
    assert_eq!(refusal(&vision(1)), None);
    let why = refusal(&vision(101)).expect("101 epochs are beyond the table's range");
    assert_eq!(
        why, "epochs=101 is outside 1–100",
        "the reason, not what a link would use instead"
    );
    assert!(refusal(&vision(0)).is_some());
    let cluster = |max_steps| ClusterLab {
        max_steps,
        ..ClusterLab::default()
    };
    assert_eq!(refusal(&cluster(100_000)), None);
    assert!(refusal(&cluster(100_001)).is_some());
    assert_eq!(refusal(&ClusterLab::default()), None);
    assert_eq!(refusal(&VisionLab::default()), None);
}

/// The pages' number fields restate no range: `controls::number_input` asks the table, and no
/// field's parser filters by a range or bound of its own (`(1..=200).contains(x)`, `*x <= 65`).
#[test]
fn no_number_field_restates_its_range() {
    fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (i, line) in text.lines().enumerate() {
                    let ranged = line.contains("..=") && line.contains(".contains(");
                    // A bound in a parser's filter (`*x <= 1e6`); `*x > 0.0` with `is_finite`
                    // keeps a rate a number, which the tables' clamps do not check.
                    let bounded = ["*x <= ", "*x >= ", "*x < ", "*x > "].iter().any(|op| {
                        line.match_indices(op)
                            .any(|(at, _)| !line[at + op.len()..].starts_with("0.0 && x.is_finite()"))
                    });
                    if (ranged || bounded) && (line.contains("event_target_value") || line.contains("number"))
                    {
                        found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../app/src"),
        &mut found,
    );
    assert!(
        found.is_empty(),
        "ranges restated outside the settings tables:\n{}",
        found.join("\n")
    );
}
