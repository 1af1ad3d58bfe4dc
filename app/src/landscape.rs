//! The loss-landscape lab (`/landscape`): train a network — a small one on 2-D data, an MLP or a
//! CNN on MNIST / Fashion-MNIST, or the playground's own — keeping checkpoints, then see its
//! landscape: the loss along the straight line from the initial to the trained weights, and a
//! 2-D slice through the trained weights (in the plane of the training trajectory, or along two
//! filter-normalized random directions) as a contour map and as a shaded surface. With a second
//! batch size both are trained and mapped side by side on one colour scale: flat vs sharp.
//! Settings live in the URL. The math is the engine's (`engine::landscape`); every loss is
//! evaluated by the trainer's forward kernels on the chosen backend.

use std::cell::Cell;
use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;

use engine::gpu::GpuContext;
use engine::landscape::{
    filter_normalized_direction, interpolate, sharpness, slice, train_to_loss, trajectory_plane,
    SHARPNESS_DIRECTIONS, SHARPNESS_RADIUS,
};
use engine::train::Trainer;
use lab_state::landscape::{
    keskar_setting, sharpness_verdict, Data, Landscape, Network, Plane, BATCHES, IMAGE_EVAL, RESOLUTIONS,
};

use crate::draw::surface::{draw_contours, draw_surface, log_range, Slice};
use crate::fetch;
use crate::frame::next_frame;

/// One trained network's landscape.
#[derive(Clone, Default)]
struct Mapped {
    grid: Vec<f32>,
    res: usize,
    span: f32,
    path: Vec<[f32; 2]>,
    thetas: Vec<f32>,
    line_train: Vec<f32>,
    line_test: Vec<f32>,
    summary: String,
    /// (batch, sharpness, training loss), for the comparison's verdict.
    measured: (usize, f32, f32),
}

fn draw_line(canvas: web_sys::HtmlCanvasElement, m: &Mapped) {
    use plotters::prelude::*;
    let Some(backend) = plotters_canvas::CanvasBackend::with_canvas_object(canvas) else {
        return;
    };
    let root = backend.into_drawing_area();
    let _ = root.fill(&WHITE);
    let top = m
        .line_train
        .iter()
        .chain(&m.line_test)
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.1f32, f32::max)
        .min(20.0)
        * 1.05;
    let Ok(mut chart) = ChartBuilder::on(&root)
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(-0.5f32..1.5f32, 0f32..top)
    else {
        return;
    };
    let _ = chart
        .configure_mesh()
        .x_desc("θ (0: initial weights, 1: trained)")
        .y_desc("loss")
        .label_style(("sans-serif", 12))
        .draw();
    for (values, color, label) in [
        (&m.line_train, RGBColor(0, 114, 178), "train"),
        (&m.line_test, RGBColor(213, 94, 0), "test"),
    ] {
        let style = ShapeStyle::from(&color).stroke_width(2);
        let points = m.thetas.iter().copied().zip(values.iter().map(|v| v.min(top)));
        if let Ok(s) = chart.draw_series(LineSeries::new(points, style)) {
            s.label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], style));
        }
    }
    let _ = chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .label_font(("sans-serif", 12))
        .draw();
    let _ = root.present();
}

/// Canvases of one panel (one batch size).
#[derive(Clone, Copy)]
struct PanelCanvases {
    contours: NodeRef<Canvas>,
    surface: NodeRef<Canvas>,
    line: NodeRef<Canvas>,
}

impl PanelCanvases {
    fn new() -> Self {
        Self {
            contours: NodeRef::new(),
            surface: NodeRef::new(),
            line: NodeRef::new(),
        }
    }
}

/// Draws every mapped panel on one shared colour scale.
fn redraw(panels: &[PanelCanvases; 2], mapped: &[Mapped]) {
    let range = log_range(mapped.iter().map(|m| &m.grid[..]));
    for (m, c) in mapped.iter().zip(panels) {
        let s = Slice {
            grid: &m.grid,
            res: m.res,
            span: m.span,
            path: &m.path,
        };
        let at = |i: usize| -m.span + 2.0 * m.span * i as f32 / (m.res.max(2) - 1) as f32;
        let grid = (0..m.grid.len()).map(|i| {
            [
                at(i % m.res).to_string(),
                at(i / m.res).to_string(),
                m.grid[i].to_string(),
            ]
        });
        let grid = crate::figures::csv("alpha,beta,loss", grid);
        let line = m.thetas.iter().enumerate().map(|(k, t)| {
            let get = |v: &[f32]| v.get(k).map_or(String::new(), f32::to_string);
            [t.to_string(), get(&m.line_train), get(&m.line_test)]
        });
        let line = crate::figures::csv("theta,train_loss,test_loss", line);
        if let Some(canvas) = c.contours.get_untracked() {
            crate::figures::table_of(&canvas, grid.clone());
            draw_contours(&canvas, &s, range);
        }
        if let Some(canvas) = c.surface.get_untracked() {
            crate::figures::table_of(&canvas, grid);
            draw_surface(canvas, &s, range);
        }
        if let Some(canvas) = c.line.get_untracked() {
            crate::figures::table_of(&canvas, line);
            draw_line(canvas, m);
        }
    }
}

#[component]
pub fn LandscapePage() -> impl IntoView {
    let (state, notices) = crate::share::url_state::<Landscape>();
    let error = RwSignal::new(None::<String>);
    let webgpu = RwSignal::new(true);
    let status = RwSignal::new("press Train and map".to_string());
    let progress = RwSignal::new(0.0f64);
    let running = RwSignal::new(false);
    let mapped = RwSignal::new(Vec::<Mapped>::new());
    let panels = [PanelCanvases::new(), PanelCanvases::new()];
    let cancel = Rc::new(Cell::new(false));

    // The URL always reproduces the settings.

    let go = {
        let cancel = cancel.clone();
        move || {
            if running.get_untracked() {
                return;
            }
            running.set(true);
            error.set(None);
            cancel.set(false);
            mapped.set(Vec::new());
            let cancel = cancel.clone();
            leptos::task::spawn_local(async move {
                let s = state.get_untracked();
                let result = run_all(
                    &s,
                    webgpu.get_untracked(),
                    status,
                    progress,
                    &cancel,
                    mapped,
                    panels,
                )
                .await;
                crate::task::report_end(
                    status,
                    error,
                    result,
                    cancel.get(),
                    "what was done so far is shown",
                );
                running.set(false);
            });
        }
    };
    let stop = {
        let cancel = cancel.clone();
        move |_| cancel.set(true)
    };
    let set = move |f: &dyn Fn(&mut Landscape)| state.update(|s| f(s));
    let is_playground = move || state.with(|s| s.network == Network::Playground);

    view! {
        <header class="top">
            <h1>"Training Lab · loss landscape"</h1>
            <p class="tagline">"Where did training go? The loss around the trained weights, and the path that led there."</p>
            <a href="./">"playground"</a>
        </header>
        <crate::banner::ErrorBanner error=error id="land-error"/>
        <main class="lab">
            <section class="controls" aria-label="settings">
                <crate::share::StateBar state=state notices=notices/>
                <label>"Network"
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
                <label>"Data set"
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
                <label>"Batch size"
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
                <label>"Compare with batch (small vs large: flat vs sharp?)"
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
                <label>"Train to a training loss of (0: all the epochs)"
                    <input type="number" min="0" max="10" step="0.05" data-testid="land-target"
                        prop:value=move || state.with(|s| s.target.to_string())
                        on:change=move |ev| {
                            match event_target_value(&ev).parse::<f32>() {
                                Ok(t) if (0.0..=10.0).contains(&t) => { set(&|s| s.target = t); notices.set(vec![]); }
                                _ => notices.set(vec!["target loss: a number from 0 to 10 (kept the last one)".into()]),
                            }
                        }/>
                </label>
                <label>"Epochs (at most)"
                    <input type="number" min="1" max="200" data-testid="land-epochs"
                        prop:value=move || state.with(|s| s.epochs.to_string())
                        on:change=move |ev| {
                            match event_target_value(&ev).parse::<usize>() {
                                Ok(e) if (1..=200).contains(&e) => { set(&|s| s.epochs = e); notices.set(vec![]); }
                                _ => notices.set(vec!["epochs: a whole number from 1 to 200 (kept the last one)".into()]),
                            }
                        }/>
                </label>
                <label>"Slice plane"
                    <select data-testid="land-plane" on:change=move |ev| {
                        let p = if event_target_value(&ev) == "random" { Plane::Random } else { Plane::Trajectory };
                        set(&|s| s.plane = p);
                    }>
                        <option value="trajectory" selected=move || state.with(|s| s.plane == Plane::Trajectory)>"trajectory (PCA) directions"</option>
                        <option value="random" selected=move || state.with(|s| s.plane == Plane::Random)>"filter-normalized random directions"</option>
                    </select>
                </label>
                <label>"Resolution"
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
                <label>"Backend"
                    <select data-testid="land-backend" on:change=move |ev| webgpu.set(event_target_value(&ev) == "webgpu")>
                        <option value="webgpu" selected=true>"WebGPU (CPU path if missing)"</option>
                        <option value="cpu">"CPU path"</option>
                    </select>
                </label>
                <div class="buttons">
                    <button class="primary" data-lab-start="true" data-testid="land-run" disabled=move || running.get() on:click=move |_| go()>"Train and map"</button>
                    <button data-testid="land-cancel" disabled=move || !running.get() on:click=stop>"Cancel"</button>
                </div>
                <progress data-testid="land-progress" max="1" prop:value=move || progress.get()></progress>
                <p data-lab-status="true" data-testid="land-status">{move || status.get()}</p>
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

#[allow(clippy::too_many_arguments)]
async fn run_all(
    s: &Landscape,
    webgpu: bool,
    status: RwSignal<String>,
    progress: RwSignal<f64>,
    cancel: &Cell<bool>,
    mapped: RwSignal<Vec<Mapped>>,
    panels: [PanelCanvases; 2],
) -> Result<(), String> {
    let gpu = crate::task::gpu_if(webgpu, status).await;
    let batches = s.batches();
    for (i, &batch) in batches.iter().enumerate() {
        if cancel.get() {
            break;
        }
        let share = (i as f64 / batches.len() as f64, 1.0 / batches.len() as f64);
        let report = |p: f64| progress.set(share.0 + share.1 * p);
        let m = run_one(s, batch, gpu.clone(), status, &report, cancel).await?;
        mapped.update(|all| all.push(m));
        mapped.with_untracked(|all| redraw(&panels, all));
        next_frame().await;
    }
    Ok(())
}

async fn run_one(
    s: &Landscape,
    batch: usize,
    gpu: Option<Rc<GpuContext>>,
    status: RwSignal<String>,
    report: &dyn Fn(f64),
    cancel: &Cell<bool>,
) -> Result<Mapped, String> {
    let config = s.to_config(batch);
    status.set("loading data…".into());
    let (data, test) = fetch::data(&config).await?;
    let eval_rows = if matches!(config.data, engine::train::DataConfig::Images(_)) {
        IMAGE_EVAL
    } else {
        data.len().min(test.len())
    };
    let (eval_train, eval_test) = (data.head(eval_rows), test.head(eval_rows));
    let mut trainer = Trainer::with_evaluation(config, data.clone(), gpu, 1, eval_rows).await?;
    let budget = (s.epochs * data.len() / batch).max(1);
    let w0 = trainer.params().await?;
    status.set(format!(
        "batch {batch}: training to loss {} (at most {budget} steps) on {}…",
        s.target,
        trainer.backend_name()
    ));
    let run = train_to_loss(&mut trainer, &eval_train, s.target, budget, |steps| {
        report(0.4 * steps as f64 / budget as f64);
        async move {
            next_frame().await;
            !cancel.get()
        }
    })
    .await?;
    let (steps, checkpoints) = (run.steps, run.checkpoints);
    let w1 = checkpoints.last().cloned().unwrap_or_else(|| w0.clone());

    status.set(format!("batch {batch}: interpolating…"));
    let thetas: Vec<f32> = (0..=40).map(|i| -0.5 + i as f32 * 0.05).collect();
    let lines = interpolate(&mut trainer, &w0, &w1, &thetas, &[&eval_train, &eval_test]).await?;
    report(0.45);
    next_frame().await;

    let (d1, d2, path, span, explained) = match s.plane {
        Plane::Trajectory => {
            let p = trajectory_plane(&checkpoints, &w1);
            let span = p
                .coords
                .iter()
                .flat_map(|c| [c[0].abs(), c[1].abs()])
                .fold(0.0f32, f32::max)
                * 1.2;
            (p.d1, p.d2, p.coords, span.max(1e-3), Some(p.explained))
        }
        Plane::Random => (
            filter_normalized_direction(&trainer.compiled, &w1, 1),
            filter_normalized_direction(&trainer.compiled, &w1, 2),
            Vec::new(),
            1.0,
            None,
        ),
    };
    let res = s.res;
    status.set(format!(
        "batch {batch}: mapping a {res} × {res} slice on {eval_rows} samples…"
    ));
    let grid = slice(&mut trainer, &w1, &d1, &d2, span, res, &eval_train, |rows| {
        report(0.45 + 0.5 * rows as f64 / res as f64);
        !cancel.get()
    })
    .await?;
    let sharp = sharpness(
        &mut trainer,
        &eval_train,
        SHARPNESS_RADIUS,
        SHARPNESS_DIRECTIONS,
        7,
    )
    .await?;
    report(1.0);
    let train_loss = lines[0][30]; // θ = 1
    let test_loss = lines[1][30];
    let plane_text = match explained {
        Some(e) => format!(
            "the PCA plane explains {:.0} % + {:.0} % of the path's variance",
            e[0] * 100.0,
            e[1] * 100.0
        ),
        None => "random filter-normalized plane (±1 filter norm)".into(),
    };
    Ok(Mapped {
        grid,
        res,
        span,
        path,
        thetas,
        line_train: lines[0].clone(),
        line_test: lines[1].clone(),
        summary: format!(
            "batch {batch}, {steps} steps ({}): train loss {train_loss:.3}, test loss {test_loss:.3}; sharpness (mean loss rise at 0.1 filter norms, {SHARPNESS_DIRECTIONS} directions) {sharp:.4}; {plane_text}",
            if s.target > 0.0 && train_loss <= s.target + 1e-3 {
                format!("trained to loss ≤ {}", s.target)
            } else if s.target > 0.0 {
                format!("stopped at the budget of {} epochs before loss {}", s.epochs, s.target)
            } else {
                format!("{} epochs", s.epochs)
            }
        ),
        measured: (batch, sharp, train_loss),
    })
}
