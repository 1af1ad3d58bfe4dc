//! The error banner every lab shows under its title: what failed, in words a student can act on
//! (no WebGPU, a lost device, a model over the device's limits, a divergence and its step, a bad
//! value or file). The page keeps its last good state; the banner stays until dismissed or the
//! next attempt.

use std::cell::Cell;

use leptos::prelude::*;

thread_local! {
    /// The banner of the page on screen, for code far from the page's signals.
    static CURRENT: Cell<Option<RwSignal<Option<String>>>> = const { Cell::new(None) };
}

/// Shows a message in the current page's banner.
pub fn raise(message: String) {
    if let Some(banner) = CURRENT.with(Cell::get) {
        banner.set(Some(message));
    }
}

#[component]
pub fn ErrorBanner(error: RwSignal<Option<String>>, #[prop(into)] id: String) -> impl IntoView {
    CURRENT.with(|c| c.set(Some(error)));
    view! {
        <div class="banner" role="alert" class:hidden=move || error.with(Option::is_none)>
            <span data-testid=id>{move || error.get().unwrap_or_default()}</span>
            <button class="dismiss" aria-label="dismiss this message" on:click=move |_| error.set(None)>"×"</button>
        </div>
    }
}
