//! `lab new-lab NAME`: a new lab's folders and its registry entry, nothing else. The settings
//! (`state/src/labs/NAME/`), the simulation (`sims/src/labs/NAME/`), the page and its drawing
//! (`app/src/labs/NAME/`), the book's chapter and its line in the contents, and the browser test;
//! the crates' lists of labs are generated from `state/labs.json` (their `build.rs`), so the lab
//! builds and shows up in the navigation, `/labs`, the embeds and every test that covers all labs.
//! The example it writes (gradient descent on x²/2) compiles, is tested, and is there to replace.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

#[derive(clap::Args)]
pub struct NewLabArgs {
    /// The lab's id: its route (`/NAME`), its module and its settings files' name (lower-case
    /// letters and digits, starting with a letter)
    #[arg(value_name = "NAME")]
    name: String,
    /// The lab's title, as the navigation and its chapter show it (default: the name, capitalized)
    #[arg(long)]
    title: Option<String>,
    /// The repository's root (default: the current directory)
    #[arg(long, default_value = ".", value_name = "DIR")]
    root: PathBuf,
}

/// What the templates' placeholders become.
struct Names {
    id: String,
    title: String,
    type_name: String,
}

impl Names {
    fn fill(&self, template: &str) -> String {
        template
            .replace("__ID__", &self.id)
            .replace("__TITLE__", &self.title)
            .replace("__TYPE__", &self.type_name)
            // The id is the test-id prefix too: unique, since ids are.
            .replace("__PREFIX__", &self.id)
    }
}

/// The files a new lab is, each from its template (path relative to the root).
fn new_files(id: &str) -> Vec<(String, &'static str)> {
    vec![
        (
            format!("state/src/labs/{id}/mod.rs"),
            include_str!("templates/state.rs.tmpl"),
        ),
        (
            format!("sims/src/labs/{id}/mod.rs"),
            include_str!("templates/sims.rs.tmpl"),
        ),
        (
            format!("app/src/labs/{id}/mod.rs"),
            include_str!("templates/app.rs.tmpl"),
        ),
        (
            format!("app/src/labs/{id}/draw.rs"),
            include_str!("templates/draw.rs.tmpl"),
        ),
        (
            format!("docs/book/src/student/{id}.md"),
            include_str!("templates/chapter.md.tmpl"),
        ),
        (
            format!("e2e/{id}.test.mjs"),
            include_str!("templates/e2e.test.mjs.tmpl"),
        ),
    ]
}

const REGISTRY: &str = "state/labs.json";
const CONTENTS: &str = "docs/book/src/SUMMARY.md";

pub fn run(a: &NewLabArgs) -> Result<()> {
    let id = a.name.as_str();
    if !lab_state::registry::is_lab_name(id) {
        bail!("'{id}' is not a lab name: lower-case letters and digits, starting with a letter, at most 24 (it is a route, a Rust module and a file name)");
    }
    let title = a.title.clone().unwrap_or_else(|| capitalized(id));
    if title.trim().is_empty() || title.contains(['"', '\\', '\n', '`']) {
        bail!("the title must be plain text (no quotes, backslashes, backticks or line breaks)");
    }
    let names = Names {
        id: id.to_string(),
        title,
        type_name: format!("{}Lab", capitalized(id)),
    };
    let root = &a.root;
    // Everything is checked before anything is written: a refusal leaves the tree as it was.
    let registry = read(root, REGISTRY)?;
    let json: serde_json::Value =
        serde_json::from_str(&registry).with_context(|| format!("{REGISTRY} is not JSON"))?;
    let labs = json["labs"].as_array().context("labs.json has no labs array")?;
    for lab in labs {
        for key in ["id", "route", "prefix"] {
            if lab[key].as_str() == Some(id) {
                bail!("the registry already has a lab whose {key} is '{id}'");
            }
        }
    }
    let files = new_files(id);
    for (path, _) in &files {
        if root.join(path).exists() {
            bail!("{path} exists already: the lab '{id}' is (partly) there");
        }
    }
    let registry = with_entry(&registry, &names)?;
    let contents = with_chapter(&read(root, CONTENTS)?, &names)?;

    for (path, template) in &files {
        write(root, path, &names.fill(template))?;
    }
    write(root, REGISTRY, &registry)?;
    write(root, CONTENTS, &contents)?;
    println!("lab new-lab: wrote the lab '{id}':");
    for path in files.iter().map(|(p, _)| p.as_str()).chain([REGISTRY, CONTENTS]) {
        println!("  {path}");
    }
    println!("Then: bash scripts/run.sh and open /{id}; its lessons go in public/lessons/ (and public/lessons/course.json).");
    Ok(())
}

fn capitalized(id: &str) -> String {
    let mut chars = id.chars();
    chars.next().map_or(String::new(), |c| {
        c.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

fn read(root: &Path, path: &str) -> Result<String> {
    fs::read_to_string(root.join(path)).with_context(|| format!("{path} (is --root the repository's root?)"))
}

fn write(root: &Path, path: &str, text: &str) -> Result<()> {
    let file = root.join(path);
    if let Some(dir) = file.parent() {
        fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
    }
    fs::write(&file, text).with_context(|| path.to_string())
}

/// The registry with the new lab's entry last, written in the file's own style (one lab per
/// block, its short keys on one line), so the diff is the entry alone.
fn with_entry(registry: &str, n: &Names) -> Result<String> {
    let end = registry
        .rfind("\n  ]")
        .context("labs.json: no end of the labs array")?;
    let last = registry[..end].trim_end();
    if !last.ends_with('}') {
        bail!("labs.json: the labs array does not end with a lab");
    }
    let entry = format!(
        ",\n    {{\n      \"id\": \"{id}\", \"route\": \"{id}\", \"nav\": \"{nav}\", \"title\": \"{title}\", \"prefix\": \"{id}\",\n      \"summary\": \"{title}: gradient descent on x²/2, the example lab new-lab writes. Replace this with what a student does here and what they see.\",\n      \"metrics\": [\"final-loss\"],\n      \"charts\": [\"{id}-loss-chart\"]\n    }}",
        id = n.id,
        nav = n.title.to_lowercase(),
        title = n.title,
    );
    let out = format!("{last}{entry}{}", &registry[end..]);
    serde_json::from_str::<serde_json::Value>(&out).context("labs.json with the new entry is not JSON")?;
    Ok(out)
}

/// The book's contents with the lab's chapter after the last student chapter.
fn with_chapter(contents: &str, n: &Names) -> Result<String> {
    let mut lines: Vec<&str> = contents.lines().collect();
    let last = lines
        .iter()
        .rposition(|l| l.starts_with("- [") && l.contains("](student/"))
        .context("SUMMARY.md: no student chapter to put the new one after")?;
    let line = format!("- [{}](student/{}.md)", n.title, n.id);
    lines.insert(last + 1, &line);
    Ok(lines.join("\n") + "\n")
}
