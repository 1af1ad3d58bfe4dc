//! Form controls the labs share.

use lab_state::lab::{Backend, RunsOn};
use lab_state::table::{self, Table};
use leptos::prelude::*;

/// A labelled text input bound to one field of a page's settings: `put` parses the text into a
/// copy of the settings, which the settings table then checks (`table::refusal`), so a control's
/// range is written once, in its table; a value either refuses leaves the settings as they were
/// and says why in `error`.
pub fn number_input<S: Table + Send + Sync>(
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
                // The range is the settings table's: a value it refuses is refused here with its
                // reason, and the last good value kept.
                let refused = if put(&mut next, &v) { table::refusal(&next) } else { Some("not a number".into()) };
                match refused {
                    None => { settings.set(next); error.set(None); }
                    Some(why) => error.set(Some(format!("{label}: '{v}' is not valid ({why}; kept the last value)"))),
                }
            }/>
        </label>
    }
}

/// How a number field reads its text from the settings, and writes it (false: refused).
type Get<S> = fn(&S) -> String;
type Put<S> = fn(&mut S, &str) -> bool;

/// `number_input` bound to a page's settings and error banner, for a page's many number fields.
pub fn numbers<S: Table + Send + Sync>(
    settings: RwSignal<S>,
    error: RwSignal<Option<String>>,
) -> impl Fn(&'static str, &'static str, Get<S>, Put<S>) -> AnyView + Copy {
    move |label, id, get, put| number_input(settings, error, label, id, get, put).into_any()
}

/// The optimizer `<select>` the labs share (in `Optimizer::all()` order), bound to one field;
/// `put` may change more than the field (the vision lab resets the learning rate).
pub fn optimizer_select<S: Clone + Send + Sync + 'static>(
    settings: RwSignal<S>,
    id: &'static str,
    get: fn(&S) -> usize,
    put: fn(&mut S, usize),
) -> impl IntoView {
    use engine::optim::Optimizer;
    view! {
        <label class:hidden=crate::share::hidden_id(id)>"Optimizer"
            <select data-testid=id on:change=move |ev| {
                if let Ok(i) = event_target_value(&ev).parse::<usize>() { settings.update(|s| put(s, i)) }
            }>
                {Optimizer::all().into_iter().enumerate().map(|(i, o)| view! {
                    <option value=i.to_string() selected=move || settings.with(|s| get(s) == i)>{o.label()}</option>
                }).collect_view()}
            </select>
        </label>
    }
}

/// The "Network and data" `<select>` of the labs that train the small MLPs (MNIST and
/// Fashion-MNIST on 784-32-10, the 2-D sets on 2-8-8-2), bound to one field; `put` may change
/// more than the field (the scaling lab picks the network with it).
pub fn data_select<S: Clone + Send + Sync + 'static>(
    settings: RwSignal<S>,
    id: &'static str,
    get: fn(&S) -> lab_state::landscape::Data,
    put: fn(&mut S, lab_state::landscape::Data),
) -> impl IntoView {
    use lab_state::landscape::Data;
    view! {
        <label class:hidden=crate::share::hidden_id(id)>"Network and data"
            <select data-testid=id on:change=move |ev| {
                if let Some(d) = Data::from_key(&event_target_value(&ev)) { settings.update(|s| put(s, d)) }
            }>
                {Data::all().into_iter().map(|d| view! {
                    <option value=d.key() selected=move || settings.with(|s| get(s) == d)>
                        {format!("{} ({})", d.label(), if d.is_images() { "MLP 784-32-10, 2,000 images" } else { "MLP 2-8-8-2" })}
                    </option>
                }).collect_view()}
            </select>
        </label>
    }
}

/// The values a menu offers, with `current` among them (in order) when a link or a file set one
/// it does not offer: a menu always shows what the model uses.
pub fn offered_with<T: Copy + PartialOrd>(offered: &[T], current: T) -> Vec<T> {
    let mut options = offered.to_vec();
    if !options.contains(&current) {
        options.push(current);
        options.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    }
    options
}

/// The "log scale" checkbox under a loss chart; `log` is read when the chart is drawn, and the
/// page redraws the chart when it changes.
pub fn log_toggle(id: &'static str, log: RwSignal<bool>) -> impl IntoView {
    view! {
        <label class="inline small">
            <input type="checkbox" data-testid=id prop:checked=move || leptos::prelude::Get::get(&log)
                on:change=move |ev| log.set(event_target_checked(&ev)) />
            "log scale (a steady rate of learning is a straight line)"
        </label>
    }
}

/// The backend `<select>` of the labs that train on request, bound to their `backend` setting:
/// the CPU path, or WebGPU (the CPU path when the browser has none); hidden with
/// `backend_hide=true`.
pub fn backend_select<S: RunsOn + Send + Sync + 'static>(
    id: &'static str,
    settings: RwSignal<S>,
) -> impl IntoView {
    let on = move |b: Backend| settings.with(|s| s.backend() == b);
    view! {
        <label class:hidden=crate::share::hidden("backend")>"Backend"
            <select data-testid=id on:change=move |ev| {
                let b = if event_target_value(&ev) == "webgpu" { Backend::Webgpu } else { Backend::Cpu };
                settings.update(|s| s.set_backend(b));
            }>
                <option value="cpu" selected=move || on(Backend::Cpu)>"CPU path"</option>
                <option value="webgpu" selected=move || on(Backend::Webgpu)>"WebGPU (CPU path if missing)"</option>
            </select>
        </label>
    }
}

/// The image set `<select>` (MNIST or Fashion-MNIST, by the name the data files carry), bound to
/// one text field.
pub fn image_set_select<S: Clone + Send + Sync + 'static>(
    settings: RwSignal<S>,
    id: &'static str,
    get: fn(&S) -> &str,
    put: fn(&mut S, String),
) -> impl IntoView {
    view! {
        <label class:hidden=crate::share::hidden_id(id)>"Data"
            <select data-testid=id on:change=move |ev| { let d = event_target_value(&ev); settings.update(|s| put(s, d.clone())); }>
                <option value="mnist" selected=move || settings.with(|s| get(s) == "mnist")>"MNIST digits"</option>
                <option value="fashion" selected=move || settings.with(|s| get(s) == "fashion")>"Fashion-MNIST"</option>
            </select>
        </label>
    }
}

/// The network presets' `<select>` (`Link::PRESETS`, by name), bound to one index field.
pub fn link_select<S: Send + Sync + 'static>(
    settings: RwSignal<S>,
    id: &'static str,
    label: &'static str,
    get: fn(&S) -> usize,
    put: fn(&mut S, usize),
) -> impl IntoView {
    use engine::collectives::Link;
    view! {
        <label class:hidden=crate::share::hidden_id(id)>{label}
            <select data-testid=id on:change=move |ev| {
                if let Some(i) = Link::PRESETS.iter().position(|l| *l == event_target_value(&ev)) { settings.update(|s| put(s, i)) }
            }>
                {Link::PRESETS.iter().enumerate().map(|(i, l)| view! {
                    <option value=*l selected=move || settings.with(get) == i>{*l}</option>
                }).collect_view()}
            </select>
        </label>
    }
}
