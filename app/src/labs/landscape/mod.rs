//! The loss-landscape lab (`/landscape`): train a network — a small one on 2-D data, an MLP or a
//! CNN on MNIST / Fashion-MNIST, or the playground's own — keeping checkpoints, then see its
//! landscape: the loss along the straight line from the initial to the trained weights, and a
//! 2-D slice through the trained weights (in the plane of the training trajectory, or along two
//! filter-normalized random directions) as a contour map and as a shaded surface. With a second
//! batch size both are trained and mapped side by side on one colour scale: flat vs sharp.
//! Settings live in the URL. The math is the engine's (`lab_sims::landscape`); every loss is
//! evaluated by the trainer's forward kernels on the chosen backend.
//! `page` lays it out, `runs` trains and maps.

pub mod slice_map;
pub mod surface_chart;
mod lesson;
mod page;
mod panels;
mod runs;
mod settings_panel;

use leptos::html::Canvas;
use leptos::prelude::*;

use crate::landscape::slice_map::draw_map;
use crate::landscape::surface_chart::{draw_surface, log_range, Slice};

/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use page::LandscapePage as Page;

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
    /// How convex the slice is (`lab_sims::curvature`).
    convexity_text: String,
    nonconvexity: f32,
    /// The top Hessian eigenvalue, and how it was found.
    hessian_text: String,
    lambda_max: f32,
    /// How the slice's plane was chosen, and for the trajectory plane the share (%) of the path's
    /// variance it captures.
    plane_text: String,
    plane_share: Option<f32>,
    /// What names the run's metrics (`lab_state::landscape::Run`).
    key: String,
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
    let (blue, orange) = (crate::draw::BLUE, crate::draw::ORANGE);
    let keys = [
        crate::draw::legend::Key::line("train", blue),
        crate::draw::legend::Key::line("test", orange),
    ];
    let plot = crate::draw::legend::below(&root, &keys);
    let Ok(mut chart) = ChartBuilder::on(&plot)
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
    for (values, color) in [(&m.line_train, blue), (&m.line_test, orange)] {
        let points = m.thetas.iter().copied().zip(values.iter().map(|v| v.min(top)));
        let _ = chart.draw_series(LineSeries::new(points, color.stroke_width(2)));
    }
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
            draw_map(&canvas, &s, range);
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
