//! The loss-landscape lab (`/landscape`): train a small network on a 2-D data set, keeping
//! checkpoints, then see its landscape: the loss along the straight line from the initial to the
//! trained weights, and a 2-D slice through the trained weights in the plane of the training
//! trajectory (its first two PCA directions) with the trajectory drawn on it, or along two
//! filter-normalized random directions. Long computations show progress and can be cancelled.
//! The math is the engine's (`engine::landscape`).

use std::cell::Cell;
use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;

use engine::data::toy::{ToyConfig, ToyKind};
use engine::landscape::{filter_normalized_direction, interpolate, sharpness, slice, trajectory_plane};
use engine::ops::activation::Activation;
use engine::train::{DataConfig, ModelConfig, TrainConfig, Trainer};

use crate::draw::{self, context, value_color};
use crate::frame::next_frame;

const STEPS: usize = 600;
const CHECKPOINT_EVERY: usize = 20;

#[derive(Clone, Copy, PartialEq)]
enum Plane {
    Trajectory,
    Random,
}

fn config(kind: ToyKind, batch: usize) -> TrainConfig {
    TrainConfig {
        data: DataConfig::Toy(ToyConfig {
            kind,
            points: 400,
            noise: 0.1,
            seed: 1,
            test_fraction: 0.3,
            classes: 2,
        }),
        model: ModelConfig::Mlp {
            hidden: vec![8, 8],
            activation: Activation::Tanh,
        },
        learning_rate: 0.03,
        batch,
        ..Default::default()
    }
}

/// The slice as a heatmap of log-loss (blue low, orange high) with the path on top.
fn draw_slice(canvas: &web_sys::HtmlCanvasElement, grid: &[f32], res: usize, span: f32, path: &[[f32; 2]]) {
    let Some(ctx) = context(canvas) else { return };
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w, h);
    if grid.is_empty() {
        return;
    }
    let logs: Vec<f32> = grid.iter().map(|l| l.max(1e-6).ln()).collect();
    let (lo, hi) = logs
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    let cell = (w / res as f64, h / res as f64);
    for (i, v) in logs.iter().enumerate() {
        let (row, col) = (i / res, i % res);
        let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.0 };
        ctx.set_fill_style_str(&draw::css(value_color(t * 2.0 - 1.0)));
        // Row 0 is β = −span: draw it at the bottom.
        ctx.fill_rect(
            col as f64 * cell.0,
            h - (row + 1) as f64 * cell.1,
            cell.0 + 0.5,
            cell.1 + 0.5,
        );
    }
    let to_px = |p: [f32; 2]| {
        (
            ((p[0] / span + 1.0) / 2.0) as f64 * w,
            ((1.0 - p[1] / span) / 2.0) as f64 * h,
        )
    };
    ctx.set_stroke_style_str("#1d2330");
    ctx.set_line_width(2.0);
    ctx.begin_path();
    for (k, p) in path.iter().enumerate() {
        let (x, y) = to_px(*p);
        if k == 0 {
            ctx.move_to(x, y);
        } else {
            ctx.line_to(x, y);
        }
    }
    ctx.stroke();
    let (cx, cy) = to_px([0.0, 0.0]);
    ctx.set_fill_style_str("#1d2330");
    ctx.begin_path();
    let _ = ctx.arc(cx, cy, 4.0, 0.0, std::f64::consts::TAU);
    ctx.fill();
}

fn draw_line(canvas: web_sys::HtmlCanvasElement, thetas: &[f32], train: &[f32], test: &[f32]) {
    use plotters::prelude::*;
    let Some(backend) = plotters_canvas::CanvasBackend::with_canvas_object(canvas) else {
        return;
    };
    let root = backend.into_drawing_area();
    let _ = root.fill(&WHITE);
    let top = train
        .iter()
        .chain(test)
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.1f32, f32::max)
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
        (train, RGBColor(0, 114, 178), "train"),
        (test, RGBColor(213, 94, 0), "test"),
    ] {
        let style = ShapeStyle::from(&color).stroke_width(2);
        if let Ok(s) = chart.draw_series(LineSeries::new(
            thetas.iter().copied().zip(values.iter().copied()),
            style,
        )) {
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

#[component]
pub fn LandscapePage() -> impl IntoView {
    let kind = RwSignal::new(ToyKind::Moons);
    let batch = RwSignal::new(16usize);
    let res = RwSignal::new(21usize);
    let plane = RwSignal::new(Plane::Trajectory);
    let status = RwSignal::new("press Train and map".to_string());
    let progress = RwSignal::new(0.0f64);
    let running = RwSignal::new(false);
    let summary = RwSignal::new(None::<String>);
    let slice_canvas = NodeRef::<Canvas>::new();
    let line_canvas = NodeRef::<Canvas>::new();
    let cancel = Rc::new(Cell::new(false));

    let go = {
        let cancel = cancel.clone();
        move || {
            if running.get_untracked() {
                return;
            }
            running.set(true);
            cancel.set(false);
            let cancel = cancel.clone();
            leptos::task::spawn_local(async move {
                let result = run(
                    kind.get_untracked(),
                    batch.get_untracked(),
                    res.get_untracked(),
                    plane.get_untracked(),
                    status,
                    progress,
                    &cancel,
                    slice_canvas,
                    line_canvas,
                )
                .await;
                match result {
                    Ok(s) => {
                        summary.set(Some(s));
                        status.set(if cancel.get() {
                            "cancelled: the rows done so far are shown".into()
                        } else {
                            "done".into()
                        });
                    }
                    Err(e) => status.set(format!("failed: {e}")),
                }
                running.set(false);
            });
        }
    };
    let stop = {
        let cancel = cancel.clone();
        move |_| cancel.set(true)
    };

    view! {
        <header class="top">
            <h1>"Training Lab · loss landscape"</h1>
            <p class="tagline">"Where did training go? The loss around the trained weights, and the path that led there."</p>
            <a href="./">"playground"</a>
        </header>
        <main class="lab">
            <section class="controls" aria-label="settings">
                <label>"Data set"
                    <select data-testid="land-dataset" on:change=move |ev| if let Some(k) = ToyKind::from_key(&event_target_value(&ev)) { kind.set(k) }>
                        {ToyKind::ALL.into_iter().map(|k| view! { <option value=k.key() selected=k == ToyKind::Moons>{k.label()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Batch size (small vs large: flat vs sharp?)"
                    <select data-testid="land-batch" on:change=move |ev| batch.set(event_target_value(&ev).parse().unwrap_or(16))>
                        {[4usize, 16, 64, 256].map(|b| view! { <option value=b.to_string() selected=b == 16>{b}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Slice plane"
                    <select data-testid="land-plane" on:change=move |ev| plane.set(if event_target_value(&ev) == "random" { Plane::Random } else { Plane::Trajectory })>
                        <option value="trajectory">"trajectory (PCA) directions"</option>
                        <option value="random">"filter-normalized random directions"</option>
                    </select>
                </label>
                <label>"Resolution"
                    <select data-testid="land-res" on:change=move |ev| res.set(event_target_value(&ev).parse().unwrap_or(21))>
                        {[11usize, 21, 41].map(|r| view! { <option value=r.to_string() selected=r == 21>{format!("{r} × {r}")}</option> }).collect_view()}
                    </select>
                </label>
                <div class="buttons">
                    <button class="primary" data-testid="land-run" disabled=move || running.get() on:click=move |_| go()>"Train and map"</button>
                    <button data-testid="land-cancel" disabled=move || !running.get() on:click=stop>"Cancel"</button>
                </div>
                <progress data-testid="land-progress" max="1" prop:value=move || progress.get()></progress>
                <p data-testid="land-status">{move || status.get()}</p>
                <p class="muted small" data-testid="land-summary">{move || summary.get().unwrap_or_default()}</p>
            </section>
            <section class="views">
                <figure>
                    <canvas node_ref=slice_canvas data-testid="land-slice" width="400" height="400"></canvas>
                    <figcaption>"Log-loss on a slice through the trained weights (the dot), blue low, orange high. In the trajectory plane the line is the training path from the initial weights."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=line_canvas data-testid="land-line" width="420" height="300"></canvas>
                    <figcaption>"The loss along the straight line from the initial (θ = 0) to the trained weights (θ = 1), and beyond."</figcaption>
                </figure>
            </section>
        </main>
    }
}

#[allow(clippy::too_many_arguments)]
async fn run(
    kind: ToyKind,
    batch: usize,
    res: usize,
    plane: Plane,
    status: RwSignal<String>,
    progress: RwSignal<f64>,
    cancel: &Cell<bool>,
    slice_canvas: NodeRef<Canvas>,
    line_canvas: NodeRef<Canvas>,
) -> Result<String, String> {
    let config = config(kind, batch);
    let (data, test) = config.data.load(|_| Err("no files".into()))?;
    let test = test.ok_or("no test data")?;
    // Small networks evaluate fastest on the CPU path (see the playground's "auto").
    let mut trainer = Trainer::with_data(config, data.clone(), None, data.len().max(test.len())).await?;
    let w0 = trainer.params().await?;
    let mut checkpoints = vec![w0.clone()];
    status.set("training…".into());
    while (trainer.step() as usize) < STEPS && !cancel.get() {
        trainer.train(CHECKPOINT_EVERY).await.map_err(|e| e.to_string())?;
        checkpoints.push(trainer.params().await?);
        progress.set(0.3 * trainer.step() as f64 / STEPS as f64);
        next_frame().await;
    }
    let w1 = trainer.params().await?;
    let (train_loss, train_acc) = trainer.evaluate(&data).await?;
    let (test_loss, test_acc) = trainer.evaluate(&test).await?;

    status.set("interpolating…".into());
    let thetas: Vec<f32> = (0..=40).map(|i| -0.5 + i as f32 * 0.05).collect();
    let lines = interpolate(&mut trainer, &w0, &w1, &thetas, &[&data, &test]).await?;
    if let Some(c) = line_canvas.get_untracked() {
        draw_line(c, &thetas, &lines[0], &lines[1]);
    }
    progress.set(0.35);
    next_frame().await;

    let (d1, d2, path, span, explained) = match plane {
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
    status.set(format!("mapping a {res} × {res} slice…"));
    // Quick for these small networks on the CPU path (a 41 × 41 slice takes a fraction of a
    // second); the callback records progress and stops at Cancel.
    let grid = slice(&mut trainer, &w1, &d1, &d2, span, res, &data, |rows| {
        progress.set(0.35 + 0.6 * rows as f64 / res as f64);
        !cancel.get()
    })
    .await?;
    if let Some(c) = slice_canvas.get_untracked() {
        draw_slice(&c, &grid, res, span, &path);
    }
    next_frame().await;
    let sharp = sharpness(&mut trainer, &data, 0.1, 4, 7).await?;
    progress.set(1.0);
    let plane_text = match explained {
        Some(e) => format!(
            "PCA plane explains {:.0} % + {:.0} % of the path's variance",
            e[0] * 100.0,
            e[1] * 100.0
        ),
        None => "random filter-normalized plane (±1 filter norm)".into(),
    };
    Ok(format!(
        "batch {batch}: train loss {train_loss:.3} ({:.0} %), test loss {test_loss:.3} ({:.0} %); sharpness (mean loss rise at 0.1 filter norms) {sharp:.4}; {plane_text}",
        train_acc * 100.0,
        test_acc * 100.0
    ))
}
