// Shared by the build scripts that generate a crate's list of labs (`state/build.rs`,
// `app/build.rs`, through `include!`): the registry's lab ids.

include!("lab_name.rs");

/// The ids of the labs in `registry` (`state/labs.json`), in its order, each a module name; the
/// build script reruns when the file changes.
fn registry_ids(registry: &std::path::Path) -> Vec<String> {
    println!("cargo:rerun-if-changed={}", registry.display());
    let text = std::fs::read_to_string(registry).expect("state/labs.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("labs.json is JSON");
    let labs = json["labs"].as_array().expect("labs.json has a labs array");
    labs.iter()
        .map(|lab| {
            let id = lab["id"].as_str().expect("every lab has an id");
            assert!(
                is_lab_name(id),
                "labs.json: the id {id:?} is not a lab name (lower-case letters and digits, at most 24): it is a route and a module"
            );
            id.to_string()
        })
        .collect()
}

/// `#[path = "<folder>/<id>/mod.rs"] <vis> mod <id>;` for each lab, asserting that its folder has
/// one (`what` names the layer in the message).
fn lab_modules(ids: &[String], folder: &std::path::Path, vis: &str, what: &str) -> String {
    let mut code = String::new();
    for id in ids {
        let dir = folder.join(id);
        let file = dir.join("mod.rs");
        assert!(
            file.exists(),
            "labs.json lists {id}, but its {what} folder {} has no mod.rs (`lab new-lab {id}` writes one)",
            dir.display()
        );
        println!("cargo:rerun-if-changed={}", dir.display());
        code += &format!("#[path = {file:?}]\n{vis}mod {id};\n");
    }
    code
}
