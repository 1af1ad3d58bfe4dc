//! The registry of labs (`state/labs.json`) is the whole list: every lab has a settings table
//! under its own name, a route the embed script can find from its name, and a chapter of the book
//! (listed in its contents, ending with the lab's hideable names); no browser test keeps a list.

use std::collections::BTreeSet;

use lab_state::registry::{by_id, by_route, labs};

fn read(path: &str) -> String {
    let file = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn every_lab_is_unique_and_has_its_settings_table() {
    let all = labs();
    assert!(all.len() >= 9, "the registry lists every lab");
    for key in [
        |l: &lab_state::registry::Lab| l.id.clone(),
        |l: &lab_state::registry::Lab| l.route.clone(),
        |l: &lab_state::registry::Lab| l.prefix.clone(),
        |l: &lab_state::registry::Lab| l.nav.clone(),
    ] {
        let names: BTreeSet<String> = all.iter().map(key).collect();
        assert_eq!(names.len(), all.len(), "a name twice in the registry");
    }
    for lab in all {
        let table = lab
            .settings()
            .unwrap_or_else(|| panic!("{}: no settings table", lab.id));
        assert_eq!(table.lab, lab.id, "the settings files call the lab by its id");
        assert!(!table.hideable.is_empty(), "{}: hideable names", lab.id);
        assert!(!lab.summary.is_empty() && !lab.title.is_empty());
        assert_eq!(by_id(&lab.id), Some(lab));
        assert_eq!(by_route(&lab.route), Some(lab));
    }
    assert_eq!(by_route("index.html").map(|l| l.id.as_str()), Some("playground"));
    assert_eq!(by_route("labs"), None);
}

/// The embed script keeps no list: it routes a lab to its name (the playground to the site's
/// root), so every lab's route must be its id.
#[test]
fn every_route_is_the_labs_id_as_the_embed_script_assumes() {
    for lab in labs() {
        let expected = if lab.id == "playground" {
            ""
        } else {
            lab.id.as_str()
        };
        assert_eq!(
            lab.route, expected,
            "{}: embed.js would load the wrong page",
            lab.id
        );
    }
    let embed = read("public/embed.js");
    assert!(
        embed.contains("const route = (lab) => (lab === 'playground' ? '' : lab);"),
        "embed.js routes a lab by its name"
    );
    assert!(
        !embed.contains("const routes = {"),
        "embed.js keeps no list of labs"
    );
}

#[test]
fn the_book_has_a_chapter_for_every_lab() {
    let summary = read("docs/book/src/SUMMARY.md");
    for lab in labs() {
        let chapter = format!("(student/{}.md)", lab.id);
        assert!(summary.contains(&chapter), "the book's contents list {chapter}");
        let text = read(&format!("docs/book/src/student/{}.md", lab.id));
        assert!(
            text.contains("**Hideable names**"),
            "{}'s chapter lists its hideable names",
            lab.id
        );
    }
}

#[test]
fn no_browser_test_keeps_its_own_list_of_labs() {
    // The e2e files take their lists from the registry (`e2e/harness.mjs` exports LABS); a list of
    // routes written out by hand is how labs went missing before.
    let dir = format!("{}/../e2e", env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let t = line.trim_start();
            let listed = labs()
                .iter()
                .filter(|l| !l.route.is_empty() && t.contains(&format!("'{}'", l.route)))
                .count();
            assert!(
                listed < 4,
                "{}: a hand-kept list of labs; use LABS from harness.mjs:\n{line}",
                path.display()
            );
        }
    }
}

// That every metric a lesson reads is one its lab publishes is `lab lesson check`'s rule, run on
// every lesson by `lesson_check::every_lesson_of_the_course_passes`.

/// The optimizer lab's metric parts are its racers' names, each as the page writes it.
#[test]
fn the_optimizer_metrics_name_every_racer() {
    let lab = by_id("optimizers").unwrap();
    for (name, ..) in lab_state::optimizers::RACERS {
        for prefix in ["final", "rate"] {
            let metric = lab_state::registry::metric_name(prefix, name);
            assert!(lab.publishes(&metric), "{metric}");
        }
    }
    assert!(!lab.publishes("rate-momentm"), "a misspelled racer is no metric");
}

/// Every Rust source of the lab's page folder (`app/src/labs/<lab>/`), joined.
fn page_sources(lab: &str) -> String {
    fn sources(dir: &std::path::Path, out: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../app/src/labs")
        .join(lab);
    let mut text = String::new();
    sources(&dir, &mut text);
    text
}

/// A lesson's `chart` is brought first by its test id: each one the registry lists is a test id
/// the lab's page writes, literally or as `format!("<name>-{i}")` (the landscape's two panels).
#[test]
fn each_lab_draws_the_charts_the_registry_lists() {
    for lab in labs() {
        let text = page_sources(&lab.id);
        for chart in &lab.charts {
            let numbered = chart
                .rsplit_once('-')
                .filter(|(_, n)| n.parse::<u32>().is_ok())
                .map(|(head, _)| format!("data-testid=format!(\"{head}-{{"));
            assert!(
                text.contains(&format!("data-testid=\"{chart}\""))
                    || numbered.is_some_and(|n| text.contains(&n)),
                "{}: the registry lists the chart {chart}, which app/src/labs/{} does not draw",
                lab.id,
                lab.id
            );
        }
    }
}

#[test]
fn each_lab_publishes_the_metrics_the_registry_lists() {
    for lab in labs() {
        let text = page_sources(&lab.id);
        // What the folder writes: a literal name, or the fixed start of a formatted one.
        let mut written = Vec::new();
        for part in text.split("data-metric=").skip(1) {
            let part = part.trim_start();
            let start = ["format!(\"", "lab_state::registry::metric_name(\"", "\""]
                .iter()
                .find_map(|p| part.strip_prefix(p).map(|rest| (*p == "\"", rest)));
            let Some((literal, rest)) = start else { continue };
            let end = rest.find(['"', '{']).unwrap_or(rest.len());
            written.push((literal && rest[end..].starts_with('"'), rest[..end].to_string()));
        }
        for (whole, name) in &written {
            let listed = if *whole {
                lab.publishes(name)
            } else {
                lab.metrics.iter().any(|p| p.starts_with(name.as_str()))
            };
            assert!(
                listed,
                "{}: app/src/labs/{} publishes {name}…, which the registry does not list",
                lab.id, lab.id
            );
        }
        for pattern in &lab.metrics {
            let head = pattern.split('{').next().unwrap();
            let found = written.iter().any(|(whole, name)| {
                if *whole {
                    name == pattern
                } else {
                    head.starts_with(name.as_str()) || name.starts_with(head.trim_end_matches('-'))
                }
            });
            assert!(
                found,
                "{}: the registry lists {pattern}, which app/src/labs/{} does not publish",
                lab.id, lab.id
            );
        }
    }
}
