//! What a lab's page shows, as data: serde structs that round-trip through the URL (so a teacher
//! can share a link to an exact setup, and lock controls with `<name>_hide=true`) and through a
//! versioned JSON file (`lab::LabState`). Parsing never fails: bad or out-of-range values are
//! ignored or clamped, each with a notice the page shows. UI-free, so it is tested natively.

pub mod bench;
pub mod cluster;
pub mod lab;
pub mod landscape;
pub mod layers;
pub mod names;
pub mod optimizers;
pub mod palette;
pub mod parallelism;
pub mod playground;
pub mod precision;
pub mod precision_verdict;
pub mod query;
pub mod registry;
pub mod scaling;
pub mod table;
pub mod vision;
