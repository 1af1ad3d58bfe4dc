//! Form controls the labs share.

use leptos::prelude::*;

/// A labelled text input bound to one field of a page's settings: `put` parses and checks the
/// text into a copy of the settings; a value it refuses leaves the settings as they were and says
/// so in `error`.
pub fn number_input<S: Clone + Send + Sync + 'static>(
    settings: RwSignal<S>,
    error: RwSignal<Option<String>>,
    label: &'static str,
    id: &'static str,
    get: fn(&S) -> String,
    put: fn(&mut S, &str) -> bool,
) -> impl IntoView {
    view! {
        <label class:hidden=crate::share::hidden_id(id)>{label}
            <input data-testid=id prop:value=move || settings.with(get) on:change=move |ev| {
                let v = event_target_value(&ev);
                let mut next = settings.get_untracked();
                if put(&mut next, &v) { settings.set(next); error.set(None); } else { error.set(Some(format!("{label}: '{v}' is not valid (kept the last value)"))); }
            }/>
        </label>
    }
}

/// How a number field reads its text from the settings, and writes it (false: refused).
type Get<S> = fn(&S) -> String;
type Put<S> = fn(&mut S, &str) -> bool;

/// `number_input` bound to a page's settings and error banner, for a page's many number fields.
pub fn numbers<S: Clone + Send + Sync + 'static>(
    settings: RwSignal<S>,
    error: RwSignal<Option<String>>,
) -> impl Fn(&'static str, &'static str, Get<S>, Put<S>) -> AnyView + Copy {
    move |label, id, get, put| number_input(settings, error, label, id, get, put).into_any()
}
