//! The playground's downloads: each chart's numbers as CSV (built at the click, since the charts
//! redraw every frame while training) and the heatmap as PNG.

use leptos::prelude::*;
use std::rc::Rc;

use super::lab::Lab;
use crate::browser;
use crate::draw;

/// Registers the CSV of the loss chart, the heatmap and the network diagram.
pub fn provide(lab: &Rc<Lab>) {
    let weak = Rc::downgrade(lab);
    crate::figures::provide("loss-chart", move || {
        let lab = weak.upgrade()?;
        let h = lab.history.borrow();
        Some(draw::loss_chart::table(h.train.points(), h.test.points()))
    });
    let weak = Rc::downgrade(lab);
    crate::figures::provide("heatmap", move || heatmap_table(&*weak.upgrade()?));
    let weak = Rc::downgrade(lab);
    crate::figures::provide("network", move || {
        let lab = weak.upgrade()?;
        let diagram = lab.diagram.borrow();
        let links = diagram.as_ref()?.weights.iter().enumerate().flat_map(|(c, to)| {
            to.iter().enumerate().flat_map(move |(t, from)| {
                from.iter().enumerate().map(move |(f, w)| {
                    [c, f, t]
                        .map(|v| v.to_string())
                        .into_iter()
                        .chain([w.to_string()])
                })
            })
        });
        Some(crate::figures::csv("layer,from_neuron,to_neuron,weight", links))
    });
}

/// One row per grid point: where it is, and the model's output for each class.
fn heatmap_table(lab: &Lab) -> Option<String> {
    let probs = lab.probs.borrow();
    let p = probs.as_deref()?;
    let k = if lab.state.with_untracked(|s| s.dataset.is_regression()) {
        1
    } else {
        lab.data.borrow().0.classes.max(1)
    };
    let rows = lab.grid.chunks(2).enumerate().map(|(i, xy)| {
        let outs = p
            .get(i * k..(i + 1) * k)
            .unwrap_or(&[])
            .iter()
            .map(f32::to_string);
        xy.iter().map(f32::to_string).chain(outs).collect::<Vec<_>>()
    });
    let header = std::iter::once("x,y".to_string())
        .chain((0..k).map(|c| format!("output_{c}")))
        .collect::<Vec<_>>()
        .join(",");
    Some(crate::figures::csv(&header, rows))
}

/// Downloads the loss curves as CSV: step, training loss, test loss (where measured).
pub fn export_losses(lab: &Lab) {
    let h = lab.history.borrow();
    browser::download(
        "playground-loss.csv",
        "text/csv",
        &draw::loss_chart::table(h.train.points(), h.test.points()),
    );
}

pub fn export_heatmap(lab: &Lab) {
    if let Some(canvas) = lab.heatmap.get_untracked() {
        browser::download_canvas("playground-heatmap.png", &canvas);
    }
}
