//! Generates the two lists the crate would otherwise keep by hand:
//! - every lab of the registry (`labs.json`) as a module, from its folder `src/labs/<id>/`, and the
//!   dispatch over their settings types (`labs!` in `lib.rs`): a new lab is its folder and its
//!   registry entry;
//! - every file in `tests/` as a module of the crate's one test binary (`tests/state.rs`): a lab's
//!   native test is a new file there.

use std::path::Path;
use std::{env, fs};

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").expect("cargo sets it");
    let manifest = Path::new(&manifest);
    let out = env::var("OUT_DIR").expect("cargo sets it");
    let out = Path::new(&out);
    fs::write(out.join("labs.rs"), lab_modules(manifest)).expect("OUT_DIR is writable");
    fs::write(out.join("test_modules.rs"), test_modules(manifest)).expect("OUT_DIR is writable");
}

/// `#[path = …] pub mod <id>;` for every lab of the registry, then `labs! { <id>, … }`.
fn lab_modules(manifest: &Path) -> String {
    let registry = manifest.join("labs.json");
    println!("cargo:rerun-if-changed={}", registry.display());
    let text = fs::read_to_string(&registry).expect("state/labs.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("labs.json is JSON");
    let ids: Vec<&str> = json["labs"]
        .as_array()
        .expect("labs.json has a labs array")
        .iter()
        .map(|lab| lab["id"].as_str().expect("every lab has an id"))
        .collect();
    let mut code = String::new();
    for id in &ids {
        assert!(
            !id.is_empty() && id.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "labs.json: the id {id:?} is not a module name (lower-case letters and _)"
        );
        let folder = manifest.join("src/labs").join(id);
        let file = folder.join("mod.rs");
        assert!(
            file.exists(),
            "labs.json lists {id}, but its settings folder {} has no mod.rs (`lab new-lab {id}` writes one)",
            folder.display()
        );
        println!("cargo:rerun-if-changed={}", folder.display());
        code += &format!("#[path = {:?}]\npub mod {id};\n", file);
    }
    code += &format!("labs! {{ {} }}\n", ids.join(", "));
    code
}

fn test_modules(manifest: &Path) -> String {
    let dir = manifest.join("tests");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut stems: Vec<String> = fs::read_dir(&dir)
        .expect("the tests folder")
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".rs")?;
            (stem != "state").then(|| stem.to_string())
        })
        .collect();
    stems.sort();
    stems
        .iter()
        .map(|stem| format!("#[path = {:?}]\nmod {stem};\n", dir.join(format!("{stem}.rs"))))
        .collect()
}
