//! The layering the workspace promises (docs/book/src/contributor/architecture.md), checked so
//! that it stays: every crate's modules import one another in one direction only (no cycle), the
//! engine knows none of the simulations, and each crate depends only on the layers below it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files_by_ext(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_by_ext(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    files_by_ext(dir, "rs", out);
}

/// A crate's modules, one a file (`ops::matmul`; a lab's folder `src/labs/<id>/`, which the
/// crates' generated lists mount as `<id>`, by its id), and for each the others it names
/// (`crate::…`, `super::…`), leaving out the module's own ancestors and descendants (a parent
/// declares its children, a child may read its parent) and unit tests (`tests.rs`, `mod tests`),
/// which may reach anywhere.
fn module_graph(src: &str) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let src = root().join(src);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let module_of = |p: &Path| -> Vec<String> {
        let mut parts: Vec<String> = p
            .strip_prefix(&src)
            .unwrap()
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
            parts.pop();
        }
        if parts.first().is_some_and(|p| p == "labs") && parts.len() > 1 {
            parts.remove(0);
        }
        parts
    };
    let modules: BTreeMap<Vec<String>, &PathBuf> = files
        .iter()
        .filter(|p| !p.ends_with("tests.rs"))
        .map(|p| (module_of(p), p))
        .collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        let text = text.split("#[cfg(test)]\nmod tests {").next().unwrap();
        let mut named = BTreeSet::new();
        for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
            let mut parts = word.split("::").filter(|p| !p.is_empty()).peekable();
            let mut path: Vec<String> = match parts.peek() {
                Some(&"crate") => {
                    parts.next();
                    Vec::new()
                }
                // `super` is the module above this one (a file's folder, a folder's parent).
                Some(&"super") => {
                    let mut base = module.clone();
                    while parts.peek() == Some(&"super") {
                        parts.next();
                        base.pop();
                    }
                    base
                }
                _ => continue,
            };
            path.extend(parts.map(str::to_string));
            // The longest module the path starts with.
            let target = (1..=path.len())
                .rev()
                .map(|k| path[..k].to_vec())
                .find(|p| modules.contains_key(p));
            if let Some(target) = target {
                if !(target.starts_with(module) || module.starts_with(&target)) {
                    named.insert(target);
                }
            }
        }
        graph.insert(module.clone(), named);
    }
    graph
}

type Graph = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

/// Whether `to` is reachable from `from`.
fn reaches(graph: &Graph, from: &[String], to: &[String]) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_vec()];
    while let Some(m) = stack.pop() {
        for next in graph.get(&m).into_iter().flatten() {
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
fn no_crates_modules_form_a_cycle() {
    for src in [
        "engine/src",
        "sims/src",
        "state/src",
        "class/src",
        "cli/src",
        "app/src",
        "plot_text/src",
    ] {
        let graph = module_graph(src);
        assert!(graph.len() > 3, "{src}: modules were found: {graph:?}");
        let cycles: Vec<String> = graph
            .iter()
            .flat_map(|(a, deps)| deps.iter().map(move |b| (a, b)))
            .filter(|(a, b)| reaches(&graph, b, a))
            .map(|(a, b)| format!("{} → {}", a.join("::"), b.join("::")))
            .collect();
        assert!(
            cycles.is_empty(),
            "{src}: imports that close a cycle among the modules (move what both need to a module below them): {cycles:?}"
        );
    }
}

/// The check above sees a cycle through three modules of a made-up crate, and none where the
/// imports go one way.
#[test]
fn the_cycle_check_sees_a_cycle() {
    let dir = std::env::temp_dir().join(format!("arch-cycle-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    let files = [
        ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\n"),
        ("a/mod.rs", "mod inner;\n"),
        ("a/inner.rs", "use crate::b::B;\n"),
        ("b.rs", "use super::c::C;\n"),
        ("c.rs", "pub fn f() { crate::a::inner::g() }\n"),
        ("d.rs", "use crate::a::inner::g;\n"),
    ];
    for (name, text) in files {
        std::fs::write(src.join(name), text).unwrap();
    }
    let graph = module_graph(src.to_str().unwrap());
    let key = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
    assert!(reaches(&graph, &key("a::inner"), &key("a::inner")), "{graph:?}");
    assert!(!reaches(&graph, &key("d"), &key("d")), "{graph:?}");
    std::fs::remove_dir_all(dir).unwrap();
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
    let allowed: [(&str, &[&str]); 9] = [
        ("engine", &[]),
        ("plot_text", &[]),
        ("sims", &["engine"]),
        ("state", &["engine", "lab_sims"]),
        // `lab lesson check` reads lessons with the settings tables and the registry of labs.
        ("cli", &["engine", "lab_sims", "lab_state"]),
        ("oracle", &["engine"]),
        // The class server stands apart: pages talk to it over HTTP.
        ("class", &[]),
        // The class-training protocol builds on nothing; its tests train on the engine.
        ("wire", &["engine"]),
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

const GRAPH_START: &str = "<!-- crate graph: written by engine/tests/architecture.rs from `cargo metadata`; UPDATE_DOCS=1 rewrites it -->";
const GRAPH_END: &str = "<!-- end of the crate graph -->";

/// The workspace's crates bottom layer first (each after every crate it builds on), as a table:
/// its folder, the workspace crates it builds on, and those only its tests use.
fn crate_graph_table() -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let root = root().canonicalize().unwrap();
    let mut crates: BTreeMap<String, (String, BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let manifest = Path::new(p["manifest_path"].as_str().unwrap());
        let folder = manifest.parent().unwrap().strip_prefix(&root).unwrap();
        let (mut normal, mut dev) = (BTreeSet::new(), BTreeSet::new());
        for d in p["dependencies"].as_array().unwrap() {
            if d.get("path").is_some_and(|v| !v.is_null()) {
                let name = d["name"].as_str().unwrap().to_string();
                if d["kind"].as_str() == Some("dev") {
                    dev.insert(name);
                } else {
                    normal.insert(name);
                }
            }
        }
        let dev = dev.difference(&normal).cloned().collect();
        crates.insert(
            p["name"].as_str().unwrap().to_string(),
            (folder.display().to_string(), normal, dev),
        );
    }
    // Layer by layer: a crate's layer is one above the highest it builds on; by name within one.
    let mut layer: BTreeMap<String, usize> = BTreeMap::new();
    while layer.len() < crates.len() {
        let before = layer.len();
        for (name, (_, deps, dev)) in &crates {
            let below: Option<Vec<usize>> = deps.iter().chain(dev).map(|d| layer.get(d).copied()).collect();
            if let (false, Some(below)) = (layer.contains_key(name), below) {
                layer.insert(name.clone(), below.iter().max().map_or(0, |m| m + 1));
            }
        }
        assert!(layer.len() > before, "no cycle among the crates");
    }
    let mut order: Vec<String> = crates.keys().cloned().collect();
    order.sort_by_key(|name| (layer[name], name.clone()));
    let list = |s: &BTreeSet<String>| {
        if s.is_empty() {
            "—".to_string()
        } else {
            s.iter().map(|d| format!("`{d}`")).collect::<Vec<_>>().join(", ")
        }
    };
    let mut table =
        String::from("| crate | folder | builds on | and, for its tests only |\n| --- | --- | --- | --- |\n");
    for name in order {
        let (folder, deps, dev) = &crates[&name];
        table += &format!("| `{name}` | `{folder}/` | {} | {} |\n", list(deps), list(dev));
    }
    table
}

/// The architecture chapter's crate graph is the one Cargo has, not a drawing that drifts.
#[test]
fn the_architecture_chapter_shows_the_crate_graph_cargo_has() {
    let path = root().join("docs/book/src/contributor/architecture.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (Some(a), Some(b)) = (text.find(GRAPH_START), text.find(GRAPH_END)) else {
        panic!(
            "{}: no generated crate graph ({GRAPH_START} … {GRAPH_END})",
            path.display()
        );
    };
    let block = format!("{GRAPH_START}\n\n{}\n", crate_graph_table());
    if text[a..b] != block {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, format!("{}{block}{}", &text[..a], &text[b..])).unwrap();
        } else {
            panic!(
                "the crate graph in {} is not cargo's; rerun with UPDATE_DOCS=1 to rewrite it:\n{block}",
                path.display()
            );
        }
    }
}

/// The files under `dirs` whose name ends in `.ext` and that are over 400 lines, with their length.
fn over_400_lines(dirs: &[&str], ext: &str) -> Vec<String> {
    let mut files = Vec::new();
    for dir in dirs {
        files_by_ext(&root().join(dir), ext, &mut files);
    }
    files
        .into_iter()
        .filter_map(|file| {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            (lines > 400).then(|| format!("{} ({lines} lines)", file.strip_prefix(root()).unwrap().display()))
        })
        .collect()
}

/// Small files with one concern: none of the workspace's Rust files is over 400 lines.
#[test]
fn every_rust_file_is_at_most_400_lines() {
    let crates = [
        "engine",
        "sims",
        "state",
        "plot_text",
        "cli",
        "oracle",
        "class",
        "app",
    ];
    let long = over_400_lines(&crates, "rs");
    assert!(long.is_empty(), "split these by concern: {long:?}");
}

/// The contributor's chapters of the book read in one sitting: none over 400 lines (a journal
/// that grows is continued in a chapter of its own).
#[test]
fn every_contributor_chapter_is_at_most_400_lines() {
    let long = over_400_lines(&["docs/book/src/contributor"], "md");
    assert!(long.is_empty(), "split these by topic: {long:?}");
}

/// The layout chapter's map names only what is there: each line of its listings starts with the
/// files or folders it describes (relative to the folder its section is about), and each exists.
#[test]
fn the_layout_chapter_names_only_paths_that_exist() {
    let text = std::fs::read_to_string(root().join("docs/book/src/contributor/layout.md")).unwrap();
    let mut base = String::new();
    let mut in_block = false;
    let mut missing = Vec::new();
    let mut checked = 0;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            // A section about a folder names paths inside it; the others, from the root.
            base = if heading.contains("engine/src") {
                "engine/src".into()
            } else {
                String::new()
            };
            continue;
        }
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block || line.starts_with(' ') || line.contains('<') {
            continue;
        }
        let names = line.split("  ").next().unwrap_or("");
        for name in names
            .split(", ")
            .map(|n| n.trim().trim_end_matches(','))
            .filter(|n| !n.is_empty())
        {
            checked += 1;
            if !root().join(&base).join(name).exists() {
                missing.push(format!("{base}/{name}"));
            }
        }
    }
    assert!(checked > 30, "the listings were read ({checked} paths)");
    assert!(
        missing.is_empty(),
        "the layout chapter names paths that are not there: {missing:?}"
    );
}
