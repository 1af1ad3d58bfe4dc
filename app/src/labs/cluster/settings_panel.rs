//! The cluster lab's settings: model and training, workers, allreduce, consistency and
//! compression, backend.

use leptos::prelude::*;

use engine::collectives::Link;
use lab_state::cluster::COMPRESSIONS;

use super::{link_label, Settings, ALGORITHMS};
use crate::share::hidden;

pub fn settings_panel(settings: RwSignal<Settings>, error: RwSignal<Option<String>>) -> impl IntoView {
    let set = move |f: &dyn Fn(&mut Settings)| settings.update(|s| f(s));
    let number = crate::controls::numbers(settings, error);
    let check = move |label: &'static str,
                      id: &'static str,
                      get: fn(&Settings) -> bool,
                      put: fn(&mut Settings, bool)| {
        view! {
            <label class="inline" class:hidden=crate::share::hidden_id(id)>
                <input type="checkbox" data-testid=id prop:checked=move || settings.with(get)
                    on:change=move |ev| { let on = event_target_checked(&ev); settings.update(|s| put(s, on)); }/>
                {label}
            </label>
        }
    };
    let link_select = move |label: &'static str,
                            id: &'static str,
                            get: fn(&Settings) -> usize,
                            put: fn(&mut Settings, usize)| {
        view! {
            <label class:hidden=crate::share::hidden_id(id)>{label}
                <select data-testid=id on:change=move |ev| { if let Ok(i) = event_target_value(&ev).parse::<usize>() { settings.update(|s| put(s, i)); } }>
                    {Link::PRESETS.iter().enumerate().map(|(i, name)| view! {
                        <option value=i.to_string() selected=move || settings.with(get) == i>{link_label(name)}</option>
                    }).collect_view()}
                </select>
            </label>
        }
    };

    view! {
                <h2>"Model and training"</h2>
                {crate::controls::data_select(settings, "cl-data", |s| s.data, |s, d| s.data = d)}
                {crate::controls::optimizer_select(settings, "cl-optimizer", |s| s.optimizer, |s, i| s.optimizer = i)}
                {number("Learning rate", "cl-lr", |s| s.lr.to_string(), |s, v| v.parse().ok().filter(|x: &f32| *x > 0.0 && x.is_finite()).map(|x| s.lr = x).is_some())}
                {number("Target accuracy (checked on 1,000 training images)", "cl-target", |s| s.target.to_string(), |s, v| v.parse::<f32>().ok().map(|x| s.target = x).is_some())}
                {number("Update budget per run", "cl-steps", |s| s.max_steps.to_string(), |s, v| v.parse().ok().map(|x| s.max_steps = x).is_some())}
                <h2>"Workers"</h2>
                {number("Workers (1–64)", "cl-workers", |s| s.workers.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.workers = x).is_some())}
                <label class:hidden=hidden("scaling")>"Scaling"
                    <select data-testid="cl-scaling" on:change=move |ev| { let weak = event_target_value(&ev) == "weak"; set(&|s| s.weak = weak); }>
                        <option value="strong" selected=move || settings.with(|s| !s.weak)>"strong: the global batch is split across the workers"</option>
                        <option value="weak" selected=move || settings.with(|s| s.weak)>"weak: each worker keeps its batch (the global batch grows)"</option>
                    </select>
                </label>
                {number("Batch (global when strong, per worker when weak)", "cl-batch", |s| s.batch.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.batch = x).is_some())}
                <p class="small muted" data-testid="cl-batch-note">{move || settings.with(|s| {
                    let per = s.per_worker(s.workers);
                    format!("{} scaling: each of the {} workers computes on {per} samples; one update uses {} samples", if s.weak { "weak" } else { "strong" }, s.workers, per * s.workers)
                })}</p>
                {number("Worker speed (GFLOP/s)", "cl-gflops", |s| s.gflops.to_string(), |s, v| v.parse().ok().filter(|x: &f64| *x > 0.0 && x.is_finite()).map(|x| s.gflops = x).is_some())}
                {number("Straggler: the last worker is this many times slower", "cl-straggler", |s| s.straggler.to_string(), |s, v| v.parse::<f64>().ok().map(|x| s.straggler = x).is_some())}
                <h2>"Allreduce"</h2>
                <fieldset class:hidden=hidden("algorithms") class="choices" data-testid="cl-algorithms"><legend>"Algorithms to train and compare"</legend>
                    {(0..7).map(|i| view! {
                        <label class="inline">
                            <input type="checkbox" data-testid=format!("cl-alg-{i}") prop:checked=move || settings.with(|s| s.chosen[i])
                                on:change=move |ev| { let on = event_target_checked(&ev); settings.update(|s| s.chosen[i] = on); }/>
                            {ALGORITHMS[i].1}
                        </label>
                    }).collect_view()}
                </fieldset>
                {number("Parameter-server shards", "cl-shards", |s| s.shards.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.shards = x).is_some())}
                {number("GPUs per node", "cl-gpus", |s| s.gpus_per_node.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.gpus_per_node = x).is_some())}
                {link_select("Link inside a node", "cl-intra", |s| s.intra, |s, i| s.intra = i)}
                {link_select("Link between nodes", "cl-inter", |s| s.inter, |s, i| s.inter = i)}
                {check("Overlap: allreduce each layer as soon as backward has produced it", "cl-overlap", |s| s.overlap, |s, on| s.overlap = on)}
                <h2>"Consistency and compression"</h2>
                {check("Asynchronous SGD (through a parameter server)", "cl-async", |s| s.asynchronous, |s, on| s.asynchronous = on)}
                <Show when=move || settings.with(|s| s.asynchronous)>
                    <p class="small muted" data-testid="cl-async-note">"Asynchronous workers push and pull through one parameter server, whatever algorithm is ticked (one run); the server's link is shared, so pushes and pulls queue for it."</p>
                </Show>
                {number("Staleness bound (iterations ahead of the slowest; empty = none)", "cl-bound", |s| s.bound.clone(), |s, v| { s.bound = v.trim().into(); v.trim().is_empty() || v.trim().parse::<usize>().is_ok() })}
                <label class:hidden=hidden("compression")>"Gradient compression"
                    <select data-testid="cl-compression" on:change=move |ev| { if let Ok(i) = event_target_value(&ev).parse::<usize>() { set(&|s| s.compression = i) } }>
                        {COMPRESSIONS.iter().enumerate().map(|(i, c)| view! { <option value=i.to_string() selected=move || settings.with(|s| s.compression == i)>{*c}</option> }).collect_view()}
                    </select>
                </label>
                {number("k: percent of coordinates kept", "cl-percent", |s| s.percent.to_string(), |s, v| v.parse().ok().filter(|x: &f32| *x > 0.0 && x.is_finite()).map(|x| s.percent = x).is_some())}
                <label class:hidden=hidden("bits")>"Quantization bits"
                    <select data-testid="cl-bits" on:change=move |ev| { if let Ok(b) = event_target_value(&ev).parse::<u32>() { set(&|s| s.bits = b) } }>
                        {[8u32, 4, 2, 1].map(|b| view! { <option value=b.to_string() selected=move || settings.with(|s| s.bits == b)>{format!("{b}-bit")}</option> }).collect_view()}
                    </select>
                </label>
                <Show when=move || settings.with(|s| s.compression().supports_error_feedback())>
                    {check("Error feedback (keep what compression dropped for the next step)", "cl-ef", |s| s.error_feedback, |s, on| s.error_feedback = on)}
                    {check("Momentum correction (with momentum and error feedback: the workers keep the momentum, Lin et al. 2018)", "cl-correction", |s| s.momentum_correction, |s, on| s.momentum_correction = on)}
                </Show>
                <p class="small muted" data-testid="cl-compression-note">{move || settings.with(|s| s.compression_note().unwrap_or_default())}</p>
                {number("Seed (the weights' start, the batches' order)", "cl-seed", |s| s.seed.to_string(), |s, v| v.parse::<u64>().ok().map(|x| s.seed = x).is_some())}
                {crate::controls::backend_select("cl-backend", settings)}
                {number("Worker counts for time to accuracy", "cl-study", |s| s.study.clone(), |s, v| { s.study = v.into(); true })}
    }
}
