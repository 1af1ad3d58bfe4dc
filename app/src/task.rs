//! Long computations on a page (a landscape, a sweep): how they report their end.

use leptos::prelude::*;

/// Sets the status line when a long computation ends: "done", the cancel notice saying what is
/// kept, or the error.
pub fn report_end(status: RwSignal<String>, result: Result<(), String>, cancelled: bool, kept: &str) {
    status.set(match result {
        Ok(()) if cancelled => format!("cancelled: {kept}"),
        Ok(()) => "done".into(),
        Err(e) => format!("failed: {e}"),
    });
}
