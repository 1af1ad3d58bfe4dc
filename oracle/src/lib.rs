//! Nothing here: the crate is its tests (`tests/burn_reference.rs`), an independent reference for the engine.
