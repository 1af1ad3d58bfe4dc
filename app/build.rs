//! Generates the app's list of labs from the registry (`state/labs.json`): every lab's page folder
//! `src/labs/<id>/` as a module, and `mount_lab`, which mounts the lab's `Page`. A new lab is its
//! folder and its registry entry; nothing here names it.

use std::path::Path;
use std::{env, fs};

include!("../state/registry_ids.rs");

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").expect("cargo sets it");
    let manifest = Path::new(&manifest);
    let ids = registry_ids(&manifest.join("../state/labs.json"));
    let mut code = lab_modules(&ids, &manifest.join("src/labs"), "", "page");
    code +=
        "\n/// Mounts the page of the lab called `id` (a registry id); false for an id it does not know.\n";
    code += "fn mount_lab(id: &str) -> bool {\n    match id {\n";
    for id in &ids {
        code += &format!("        {id:?} => leptos::mount::mount_to_body({id}::Page),\n");
    }
    code += "        _ => return false,\n    }\n    true\n}\n";
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets it")).join("labs.rs");
    fs::write(out, code).expect("OUT_DIR is writable");
}
