// The rule for a lab's id, shared by `lab_state::registry` (what `lab new-lab` checks) and the
// build scripts that read `state/labs.json` (through `registry_ids.rs`).

/// Whether `id` can name a lab: lower-case letters and digits, starting with a letter, at most
/// 24 of them (it is a route, a Rust module and a file name).
pub fn is_lab_name(id: &str) -> bool {
    id.starts_with(|c: char| c.is_ascii_lowercase())
        && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && id.len() <= 24
}
