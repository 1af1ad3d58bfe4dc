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
    fs::write(out.join("labs.rs"), lab_modules_and_dispatch(manifest)).expect("OUT_DIR is writable");
    fs::write(out.join("test_modules.rs"), test_modules(manifest)).expect("OUT_DIR is writable");
}

include!("registry_ids.rs");

/// Every lab of the registry as a module, then `labs! { <id>, … }`.
fn lab_modules_and_dispatch(manifest: &Path) -> String {
    let ids = registry_ids(&manifest.join("labs.json"));
    let mut code = lab_modules(&ids, &manifest.join("src/labs"), "pub ", "settings");
    code += &format!("labs! {{ {} }}\n", ids.join(", "));
    code
}

/// The test binary's modules: every file of `tests/`, or only those `LAB_STATE_TESTS` names
/// (comma-separated stems), which `scripts/check-new-lab.sh` sets so that a scaffolded lab's copy
/// compiles the registry's checks without the lessons' science it does not run.
fn test_modules(manifest: &Path) -> String {
    let dir = manifest.join("tests");
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-env-changed=LAB_STATE_TESTS");
    let only = env::var("LAB_STATE_TESTS").ok();
    let wanted = |stem: &str| {
        only.as_deref()
            .is_none_or(|list| list.split(',').any(|s| s.trim() == stem))
    };
    let mut stems: Vec<String> = fs::read_dir(&dir)
        .expect("the tests folder")
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".rs")?;
            (stem != "state" && wanted(stem)).then(|| stem.to_string())
        })
        .collect();
    stems.sort();
    stems
        .iter()
        .map(|stem| format!("#[path = {:?}]\nmod {stem};\n", dir.join(format!("{stem}.rs"))))
        .collect()
}
