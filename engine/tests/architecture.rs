//! The layering the workspace promises (docs/book/src/contributor/architecture.md), checked so
//! that it stays: the engine's modules import one another in one direction only (no cycle), the
//! engine knows none of the simulations, and each crate depends only on the layers below it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The engine's top-level modules and, for each, the others it names as `crate::<module>`
/// (unit-test files, `tests.rs`, left out: a test may reach anywhere).
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = root().join("engine/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let top = |p: &Path| -> String {
        let first = p.strip_prefix(&src).unwrap().components().next().unwrap();
        first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|p| top(p)).filter(|m| m != "lib").collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> =
        modules.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for file in files.iter().filter(|p| !p.ends_with("tests.rs")) {
        let from = top(file);
        if from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (i, _) in text.match_indices("crate::") {
            let name: String = text[i + 7..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name != from && modules.contains(&name) {
                graph.get_mut(&from).unwrap().insert(name);
            }
        }
    }
    graph
}

/// Whether `to` is reachable from `from`.
fn reaches(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(m) = stack.pop() {
        for next in &graph[&m] {
            if next == to {
                return true;
            }
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    false
}

#[test]
fn the_engines_modules_form_no_cycle() {
    let graph = module_graph();
    assert!(graph.len() > 15, "the engine's modules were found: {graph:?}");
    let cycles: Vec<String> = graph
        .iter()
        .flat_map(|(a, deps)| deps.iter().map(move |b| (a, b)))
        .filter(|(a, b)| reaches(&graph, b, a))
        .map(|(a, b)| format!("{a} → {b}"))
        .collect();
    assert!(
        cycles.is_empty(),
        "imports that close a cycle among the engine's modules (move the shared type to the lower module): {cycles:?}"
    );
}

/// The workspace crates (by package name) each crate's Cargo.toml depends on, dev-dependencies
/// included.
fn workspace_deps(dir: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap();
    text.lines()
        .filter(|l| l.contains("path = \"../"))
        .map(|l| l.split('=').next().unwrap().trim().to_string())
        .collect()
}

#[test]
fn each_crate_depends_only_on_the_layers_below() {
    let allowed: [(&str, &[&str]); 8] = [
        ("engine", &[]),
        ("plot_text", &[]),
        ("sims", &["engine"]),
        ("state", &["engine", "lab_sims"]),
        // `lab lesson check` reads lessons with the settings tables and the registry of labs.
        ("cli", &["engine", "lab_sims", "lab_state"]),
        ("oracle", &["engine"]),
        // The class server stands apart: pages talk to it over HTTP.
        ("class", &[]),
        ("app", &["engine", "lab_sims", "lab_state", "plot_text"]),
    ];
    for (dir, may) in allowed {
        let deps = workspace_deps(dir);
        let may: BTreeSet<String> = may.iter().map(|s| s.to_string()).collect();
        assert!(
            deps.is_subset(&may),
            "{dir} depends on {deps:?}; its layer allows {may:?}"
        );
    }
    let text = std::fs::read_to_string(root().join("engine/Cargo.toml")).unwrap();
    for heavy in ["burn", "clap", "anyhow"] {
        assert!(
            !text.lines().any(|l| l.starts_with(&format!("{heavy} "))),
            "the engine builds without {heavy}"
        );
    }
}
