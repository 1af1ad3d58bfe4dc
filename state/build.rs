//! Makes every file in `tests/` a module of the crate's one test binary (`tests/state.rs`
//! includes the list this writes): a lab's native test is a new file there, and no hand-kept
//! list of modules must name it.

use std::path::Path;
use std::{env, fs};

fn main() {
    let dir = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("tests");
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
    let modules: String = stems
        .iter()
        .map(|stem| format!("#[path = {:?}]\nmod {stem};\n", dir.join(format!("{stem}.rs"))))
        .collect();
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets it")).join("test_modules.rs");
    fs::write(out, modules).expect("OUT_DIR is writable");
}
