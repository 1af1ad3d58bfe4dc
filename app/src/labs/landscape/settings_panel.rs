//! The landscape lab's settings: the network and its data, the batch sizes compared, how long
//! each trains, the slice's plane and resolution, and the backend.

use lab_state::playground::BackendChoice;
use leptos::prelude::*;

use lab_state::landscape::{Data, Landscape, Network, Plane, BATCHES, RESOLUTIONS};

use crate::share::hidden;

/// A choice of network brings its own data kind, epoch budget and target loss.
fn set_network(s: &mut Landscape, n: Network) {
    s.set_network_defaults(n);
    if n.reads_images() && !s.data.is_images() {
        s.data = Data::Mnist;
    }
    if n == Network::Toy && s.data.is_images() {
        s.data = Landscape::default().data;
    }
}

/// A choice of data brings a network that reads it.
fn set_data(s: &mut Landscape, d: Data) {
    s.data = d;
    if d.is_images() != s.network.reads_images() {
        let n = if d.is_images() { Network::Mlp } else { Network::Toy };
        set_network(s, n);
        s.data = d;
    }
}

pub fn settings_panel(state: RwSignal<Landscape>, notices: RwSignal<Vec<String>>) -> impl IntoView {
    let set = move |f: &dyn Fn(&mut Landscape)| state.update(|s| f(s));
    // A typed value is kept only if the settings table takes it (its range is written there once).
    let checked = move |f: &dyn Fn(&mut Landscape), what: &str| {
        let mut next = state.get_untracked();
        f(&mut next);
        match lab_state::table::refusal(&next) {
            None => {
                state.set(next);
                notices.set(vec![]);
            }
            Some(why) => notices.set(vec![format!("{what}: {why} (kept the last one)")]),
        }
    };
    // A whole-number field (`land-<name>`, hidden by `<name>_hide`): `put` parses the text into
    // the settings (false: not a whole number), which `checked` then puts to the table.
    type Get = fn(&Landscape) -> String;
    type Put = fn(&mut Landscape, &str) -> bool;
    let whole_number = move |label: &'static str, name: &'static str, get: Get, put: Put| {
        view! {
            <label class:hidden=hidden(name)>{label}
                <input type="number" data-testid=format!("land-{name}")
                    prop:value=move || state.with(get)
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        let mut parsed = state.get_untracked();
                        if put(&mut parsed, &v) {
                            checked(&|s| *s = parsed.clone(), name);
                        } else {
                            notices.set(vec![format!("{name}: not a whole number (kept the last one)")]);
                        }
                    }/>
            </label>
        }
    };
    let is_playground = move || state.with(|s| s.network == Network::Playground);
    // The ResNet compares itself without skips, not another batch.
    let hide_compare = hidden("compare");
    view! {
        <label class:hidden=hidden("network")>"Network"
            <select data-testid="land-network" on:change=move |ev| {
                if let Some(n) = Network::from_key(&event_target_value(&ev)) {
                    set(&|s| set_network(s, n));
                }
            }>
                {Network::ALL.into_iter().map(|n| view! {
                    <option value=n.key() selected=move || state.with(|s| s.network == n)>{n.label()}</option>
                }).collect_view()}
            </select>
        </label>
        <label class:hidden=hidden("dataset")>"Data set"
            <select data-testid="land-dataset" disabled=is_playground on:change=move |ev| {
                if let Some(d) = Data::from_key(&event_target_value(&ev)) {
                    set(&|s| set_data(s, d));
                }
            }>
                {Data::all().into_iter().map(|d| view! {
                    <option value=d.key() selected=move || state.with(|s| s.data == d)>{d.label()}</option>
                }).collect_view()}
            </select>
        </label>
        <label class:hidden=hidden("batch")>"Batch size"
            <select data-testid="land-batch" on:change=move |ev| {
                if let Ok(b) = event_target_value(&ev).parse::<usize>() { set(&|s| s.batch = b) }
            }>
                {move || {
                    let current = state.with(|s| s.batch);
                    crate::controls::offered_with(&BATCHES, current).into_iter().map(|b| view! { <option value=b.to_string() selected=b == current>{b}</option> }).collect_view()
                }}
            </select>
        </label>
        <label class:hidden=move || hide_compare() || state.with(|s| !s.compares_batches())>"Compare with batch (small vs large: flat vs sharp?)"
            <select data-testid="land-compare" on:change=move |ev| {
                let b = event_target_value(&ev).parse::<usize>().unwrap_or(0);
                set(&|s| s.compare = b);
            }>
                <option value="0" selected=move || state.with(|s| s.compare == 0)>"no comparison"</option>
                {BATCHES.map(|b| view! {
                    <option value=b.to_string() selected=move || state.with(|s| s.compare == b)>{b}</option>
                }).collect_view()}
            </select>
        </label>
        <label class:hidden=hidden("target")>"Train to a training loss of (0: all the epochs)"
            <input type="number" step="0.05" data-testid="land-target"
                prop:value=move || state.with(|s| s.target.to_string())
                on:change=move |ev| {
                    match event_target_value(&ev).parse::<f32>() {
                        Ok(t) => checked(&|s| s.target = t, "target loss"),
                        Err(_) => notices.set(vec!["target loss: not a number (kept the last one)".into()]),
                    }
                }/>
        </label>
        {whole_number("Epochs (at most)", "epochs", |s| s.epochs.to_string(), |s, v| v.parse().map(|e| s.epochs = e).is_ok())}
        <label class:hidden=hidden("plane")>"Slice plane"
            <select data-testid="land-plane" on:change=move |ev| {
                let p = if event_target_value(&ev) == "random" { Plane::Random } else { Plane::Trajectory };
                set(&|s| s.plane = p);
            }>
                <option value="trajectory" selected=move || state.with(|s| s.plane == Plane::Trajectory)>"trajectory (PCA) directions"</option>
                <option value="random" selected=move || state.with(|s| s.plane == Plane::Random)>"filter-normalized random directions"</option>
            </select>
        </label>
        <label class:hidden=hidden("res")>"Resolution"
            <select data-testid="land-res" on:change=move |ev| {
                if let Ok(r) = event_target_value(&ev).parse::<usize>() { set(&|s| s.res = r) }
            }>
                {move || {
                    let current = state.with(|s| s.res);
                    crate::controls::offered_with(&RESOLUTIONS, current).into_iter().map(|r| view! { <option value=r.to_string() selected=r == current>{format!("{r} × {r}")}</option> }).collect_view()
                }}
            </select>
        </label>
        <label class:hidden=hidden("backend")>"Backend"
            <select data-testid="land-backend" on:change=move |ev| {
                let b = match event_target_value(&ev).as_str() {
                    "webgpu" => BackendChoice::Webgpu,
                    "cpu" => BackendChoice::Cpu,
                    _ => BackendChoice::Auto,
                };
                set(&|s| s.backend = b);
            }>
                <option value="auto" selected=move || state.with(|s| s.backend == BackendChoice::Auto)>"auto (the faster, timed on this model)"</option>
                <option value="webgpu" selected=move || state.with(|s| s.backend == BackendChoice::Webgpu)>"WebGPU (CPU path if missing)"</option>
                <option value="cpu" selected=move || state.with(|s| s.backend == BackendChoice::Cpu)>"CPU path"</option>
            </select>
        </label>
        {whole_number("Seed (the weights' start and the batches' order)", "seed", |s| s.seed.to_string(), |s, v| v.parse().map(|e| s.seed = e).is_ok())}
    }
}
