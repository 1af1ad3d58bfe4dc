//! The landscape page: settings and the run bar on the left, one panel of charts per batch size.

use leptos::prelude::*;

use lab_state::landscape::{
    keskar_setting, sharpness_verdict, Data, Landscape, Network, Plane, BATCHES, RESOLUTIONS,
};

use super::runs::run_all;
use super::{Mapped, PanelCanvases};
use crate::job::{run_bar, Job};
use crate::share::hidden;

#[component]
pub fn LandscapePage() -> impl IntoView {
    let (state, notices) = crate::share::url_state::<Landscape>();
    let error = RwSignal::new(None::<String>);
    let webgpu = RwSignal::new(true);
    let job = Job::new("press Train and map", error, "what was done so far is shown");
    let running = job.running;
    let mapped = RwSignal::new(Vec::<Mapped>::new());
    let panels = [PanelCanvases::new(), PanelCanvases::new()];

    let go = {
        let job = job.clone();
        move |_| {
            let s = state.get_untracked();
            let (status, progress) = (job.status, job.progress);
            job.start(move |cancel| async move {
                mapped.set(Vec::new());
                run_all(
                    &s,
                    webgpu.get_untracked(),
                    status,
                    progress,
                    &cancel,
                    mapped,
                    panels,
                )
                .await
            });
        }
    };
    let set = move |f: &dyn Fn(&mut Landscape)| state.update(|s| f(s));
    let is_playground = move || state.with(|s| s.network == Network::Playground);

    view! {
        {crate::layout::lab_header("loss landscape", "Where did training go? The loss around the trained weights, and the path that led there.")}
        <crate::banner::ErrorBanner error=error id="land-error"/>
        <main class="lab">
            <section class="controls" aria-label="settings">
                <crate::share::StateBar state=state notices=notices/>
                <label class:hidden=hidden("network")>"Network"
                    <select data-testid="land-network" on:change=move |ev| {
                        if let Some(n) = Network::from_key(&event_target_value(&ev)) {
                            set(&|s| {
                                s.network = n;
                                s.epochs = Landscape::default_epochs(n);
                                s.target = Landscape::default_target(n);
                                if n.reads_images() && !s.data.is_images() { s.data = Data::Mnist; }
                                if n == Network::Toy && s.data.is_images() { s.data = Landscape::default().data; }
                            });
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
                            set(&|s| {
                                s.data = d;
                                if d.is_images() && !s.network.reads_images() { s.network = Network::Mlp; s.epochs = Landscape::default_epochs(s.network); s.target = Landscape::default_target(s.network); }
                                if !d.is_images() && s.network.reads_images() { s.network = Network::Toy; s.epochs = Landscape::default_epochs(s.network); s.target = Landscape::default_target(s.network); }
                            });
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
                            let mut options: Vec<usize> = BATCHES.to_vec();
                            if !options.contains(&current) { options.push(current); options.sort(); }
                            options.into_iter().map(|b| view! { <option value=b.to_string() selected=b == current>{b}</option> }).collect_view()
                        }}
                    </select>
                </label>
                <label class:hidden=hidden("compare")>"Compare with batch (small vs large: flat vs sharp?)"
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
                    <input type="number" min="0" max="10" step="0.05" data-testid="land-target"
                        prop:value=move || state.with(|s| s.target.to_string())
                        on:change=move |ev| {
                            match event_target_value(&ev).parse::<f32>() {
                                Ok(t) if (0.0..=10.0).contains(&t) => { set(&|s| s.target = t); notices.set(vec![]); }
                                _ => notices.set(vec!["target loss: a number from 0 to 10 (kept the last one)".into()]),
                            }
                        }/>
                </label>
                <label class:hidden=hidden("epochs")>"Epochs (at most)"
                    <input type="number" min="1" max="200" data-testid="land-epochs"
                        prop:value=move || state.with(|s| s.epochs.to_string())
                        on:change=move |ev| {
                            match event_target_value(&ev).parse::<usize>() {
                                Ok(e) if (1..=200).contains(&e) => { set(&|s| s.epochs = e); notices.set(vec![]); }
                                _ => notices.set(vec!["epochs: a whole number from 1 to 200 (kept the last one)".into()]),
                            }
                        }/>
                </label>
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
                            let mut options = RESOLUTIONS.to_vec();
                            if !options.contains(&current) { options.push(current); options.sort(); }
                            options.into_iter().map(|r| view! { <option value=r.to_string() selected=r == current>{format!("{r} × {r}")}</option> }).collect_view()
                        }}
                    </select>
                </label>
                <label class:hidden=hidden("backend")>"Backend"
                    <select data-testid="land-backend" on:change=move |ev| webgpu.set(event_target_value(&ev) == "webgpu")>
                        <option value="webgpu" selected=true>"WebGPU (CPU path if missing)"</option>
                        <option value="cpu">"CPU path"</option>
                    </select>
                </label>
                {run_bar(&job, "land", view! {
                    <button class:hidden=hidden("run") class="primary" data-lab-start="true" data-testid="land-run" disabled=move || running.get() on:click=go>"Train and map"</button>
                })}
                <ul class="muted small" data-testid="land-summary">
                    {move || mapped.get().into_iter().map(|m| view! { <li>{m.summary}</li> }).collect_view()}
                </ul>
                <button data-testid="land-keskar" on:click=move |_| state.update(|s| {
                    let hide = std::mem::take(&mut s.hide);
                    *s = keskar_setting();
                    s.hide = hide;
                })>"Keskar et al.'s setting: MNIST MLP, batch 16 vs 256"</button>
                <p data-testid="land-verdict">{move || mapped.with(|m| match m.as_slice() {
                    [a, b] => sharpness_verdict(a.measured, b.measured, state.with(|s| s.target)),
                    _ => String::new(),
                })}</p>
            </section>
            <section class="views land-panels">
                {panels.into_iter().enumerate().map(|(i, c)| view! {
                    <div class="land-panel" style:display=move || if i == 0 || state.with(|s| s.batches().len() > 1) { "block" } else { "none" }>
                        <h3>{move || {
                            let b = state.with(|s| s.batches());
                            b.get(i).map(|b| format!("batch {b}")).unwrap_or_default()
                        }}</h3>
                        <figure>
                            <canvas node_ref=c.contours data-testid=format!("land-slice-{i}") width="360" height="360"></canvas>
                            <figcaption>"Log-loss on a slice through the trained weights (the dot), in bands from blue (low) to orange (high). In the trajectory plane the line is the training path from the initial weights."</figcaption>
                        </figure>
                        <figure>
                            <canvas node_ref=c.surface data-testid=format!("land-surface-{i}") width="360" height="300"></canvas>
                            <figcaption>"The same slice as a surface: height and colour are the log-loss."</figcaption>
                        </figure>
                        <figure>
                            <canvas node_ref=c.line data-testid=format!("land-line-{i}") width="360" height="260"></canvas>
                            <figcaption>"The loss along the straight line from the initial (θ = 0) to the trained weights (θ = 1), and beyond."</figcaption>
                        </figure>
                    </div>
                }).collect_view()}
            </section>
        </main>
    }
}
