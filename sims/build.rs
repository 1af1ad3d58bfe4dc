//! Every folder of `src/labs/` is a lab's simulation, a module of the crate under the folder's
//! name (`lab new-lab` writes one): a new lab's simulation needs no line in `lib.rs`.

use std::path::Path;
use std::{env, fs};

fn main() {
    let dir = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("src/labs");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut labs: Vec<String> = fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| {
                    let e = e.ok()?;
                    let name = e.file_name().into_string().ok()?;
                    e.path().join("mod.rs").exists().then_some(name)
                })
                .collect()
        })
        .unwrap_or_default();
    labs.sort();
    let code: String = labs
        .iter()
        .map(|id| format!("#[path = {:?}]\npub mod {id};\n", dir.join(id).join("mod.rs")))
        .collect();
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets it")).join("labs.rs");
    fs::write(out, code).expect("OUT_DIR is writable");
}
