//! Generates the app's list of labs from the registry (`state/labs.json`): every lab's page folder
//! `src/labs/<id>/` as a module, and `mount_lab`, which mounts the lab's `Page`. A new lab is its
//! folder and its registry entry; nothing here names it.

use std::path::Path;
use std::{env, fs};

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").expect("cargo sets it");
    let manifest = Path::new(&manifest);
    let registry = manifest.join("../state/labs.json");
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
        let folder = manifest.join("src/labs").join(id);
        let file = folder.join("mod.rs");
        assert!(
            file.exists(),
            "labs.json lists {id}, but its page folder {} has no mod.rs (`lab new-lab {id}` writes one)",
            folder.display()
        );
        println!("cargo:rerun-if-changed={}", folder.display());
        code += &format!("#[path = {:?}]\nmod {id};\n", file);
    }
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
