//! The playground page: data, features and network settings on the left, the decision boundary
//! and the loss curves on the right. Every control and readout carries a `data-testid` (listed
//! in the README); any control can be hidden from the URL with `<name>_hide=true`.

use leptos::ev::MouseEvent;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use lab_state::playground::Playground;

use super::data_panel::data_panel;
use super::lab::{GpuStatus, Lab, Readouts};
use super::network_panel::{network_panel, training_panel};
use super::run_panel::{downloads, run_panel};

#[component]
pub fn App() -> impl IntoView {
    let (lab, inbox) = Lab::new();
    super::tables::provide(&lab);
    leptos::task::spawn_local(super::session::own(lab.clone(), inbox));
    let state = lab.state;
    crate::share::provide_hiding(
        "lab",
        Memo::new(move |_| state.with(|s| s.hide.iter().cloned().collect())),
    );
    let r = lab.readouts;
    let notices = lab.notices;
    // A settings file goes through the same path as the controls: checked, then a fresh model.
    let (file_notices, loaded) = (
        RwSignal::new(Vec::<String>::new()),
        RwSignal::new(None::<Playground>),
    );
    {
        let lab = lab.clone();
        Effect::new(move |_| {
            if let Some(s) = loaded.get() {
                lab.update(move |st| *st = s);
            }
        });
    }
    let on_click = {
        let lab = lab.clone();
        // A lesson that hid "add a point" keeps its data: clicks on the plot add nothing.
        let locked = crate::share::hidden("add-point");
        move |ev: MouseEvent| {
            if locked() {
                return;
            }
            let Some(canvas) = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlCanvasElement>().ok())
            else {
                return;
            };
            let rect = canvas.get_bounding_client_rect();
            let x = ((ev.client_x() as f64 - rect.left()) / rect.width()) as f32 * 2.0 - 1.0;
            let y = 1.0 - ((ev.client_y() as f64 - rect.top()) / rect.height()) as f32 * 2.0;
            lab.add_point(x, y);
        }
    };
    view! {
        <header class="top">
            <h1>"Training Lab"</h1>
            <p class="tagline">"Train a neural network in your browser and watch it learn."</p>
            <nav class="labs" aria-label="other labs">
                <a href="labs" data-testid="nav-labs">"all labs"</a>
                {lab_state::registry::labs().iter().filter(|lab| lab.id != "playground").map(|lab| {
                    let id = lab.id.as_str();
                    if id == "landscape" {
                        // This network's landscape: the link carries the playground's model.
                        view! {
                            <a href=move || landscape_link(&state.get()) data-testid="nav-landscape"
                                title="train this network and map its loss landscape">"loss landscape of this network"</a>
                        }.into_any()
                    } else {
                        view! { <a href=lab.href() data-testid=format!("nav-{id}")>{lab.nav.as_str()}</a> }.into_any()
                    }
                }).collect_view()}
            </nav>
            {crate::layout::guide_link()}
            <span class="backend" data-testid="backend" title="where the training runs now">
                // Where the model trains now, not merely whether WebGPU exists: "auto" often
                // picks the CPU for small networks.
                {move || match (r.gpu.get(), r.backend.get()) {
                    (GpuStatus::Detecting, _) => "Looking for WebGPU…".to_string(),
                    (GpuStatus::Unavailable(_), _) => "CPU".to_string(),
                    (GpuStatus::Ready(_), b) if b == "CPU" => "CPU · WebGPU available".to_string(),
                    (GpuStatus::Ready(_), b) if b == Readouts::BUILDING => "WebGPU found".to_string(),
                    (GpuStatus::Ready(_), b) => b,
                }}
            </span>
        </header>
        {move || match r.gpu.get() {
            GpuStatus::Unavailable(why) => Some(view! {
                <div class="notice" data-testid="backend-notice" role="status">
                    <strong>"WebGPU is not available in this browser, so the lab trains on the CPU instead. "</strong>
                    "The math is the same, only slower. Reason: " {why}
                </div>
            }),
            _ => None,
        }}
        {move || (!notices.get().is_empty()).then(|| view! {
            <div class="notice" data-testid="url-notice" role="status">
                <strong>"Some settings in the link could not be used: "</strong>
                {notices.get().join("; ")}
            </div>
        })}
        <crate::banner::ErrorBanner error=r.error id="error"/>
        <main class="lab playground">
            {run_panel(&lab)}
            {data_panel(&lab, file_notices, loaded)}
            <section class="controls net" aria-label="network and training">
                {network_panel(&lab)}
                {training_panel(&lab)}
                {downloads(&lab)}
            </section>
            <section class="views">
                <figure class="main">
                    <canvas node_ref=lab.heatmap data-testid="heatmap" width="420" height="420" on:click=on_click
                        aria-label="decision boundary of the network over the data; click to add a point"></canvas>
                    <figcaption>{move || if state.with(|s| s.dataset.is_regression()) {
                        "The network's output: orange above zero, blue below, stronger with the size. Dots are the data, coloured by target."
                    } else {
                        "Decision boundary: the colour is the class the network predicts, paler where it is unsure. Filled dots are training data, hollow ones test data."
                    }}</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=lab.chart data-testid="loss-chart" width="420" height="300"
                        aria-label="training and test loss per step"></canvas>
                    <label class="inline small">
                        <input type="checkbox" data-testid="loss-log" prop:checked={ let log = lab.log_loss; move || log.get() }
                            on:change={ let lab = lab.clone(); move |ev| { lab.log_loss.set(event_target_checked(&ev)); lab.redraw(); } } />
                        "log scale"
                    </label>
                    <figcaption>"Training loss per step (light), its moving average (blue) and the test loss (orange). On the log scale a steady rate of learning is a straight line, and the late, slow progress is visible."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=lab.network data-testid="network" width="560" height="380"
                        on:mousemove={ let lab = lab.clone(); move |ev: MouseEvent| lab.hover(Some(&ev)) }
                        on:mouseleave={ let lab = lab.clone(); move |_| lab.hover(None) }
                        aria-label="the network: every neuron as the heatmap of what it computes, links coloured by the weight's sign"></canvas>
                    <figcaption>"The network: each square is what one neuron computes over the plot (orange above zero, blue below); links are weights, orange positive, blue negative, thicker when larger. Hover a neuron to enlarge it."</figcaption>
                </figure>
                {crate::lessons::lesson("", crate::playground::lesson::STEPS)}
            </section>
        </main>
    }
}

/// The landscape lab, set to train and map the playground's current network.
fn landscape_link(state: &Playground) -> String {
    let mapped = lab_state::landscape::Landscape {
        network: lab_state::landscape::Network::Playground,
        playground: state.clone(),
        batch: state.batch,
        ..Default::default()
    };
    format!("landscape?{}", lab_state::lab::LabState::to_query(&mapped))
}
