//! One panel of charts per run (a batch size, or the ResNet with and without skips): the slice's contours (with the training path), the same
//! slice as a surface, and the loss along the line from the initial to the trained weights.

use leptos::prelude::*;

use lab_state::landscape::Landscape;

use super::PanelCanvases;

pub fn panels_view(state: RwSignal<Landscape>, panels: [PanelCanvases; 2]) -> impl IntoView {
    view! {
        {panels.into_iter().enumerate().map(|(i, c)| view! {
            <div class="land-panel" style:display=move || if i == 0 || state.with(|s| s.runs().len() > 1) { "block" } else { "none" }>
                <h3>{move || state.with(|s| s.runs().get(i).map(|r| r.label.clone()).unwrap_or_default())}</h3>
                <figure>
                    <canvas node_ref=c.contours data-testid=format!("land-slice-{i}") data-empty="Press Train and map: the loss around the trained weights appears here, as a map with the training path." width="360" height="360"></canvas>
                    <figcaption>"Reading it: the loss on a plane through the trained weights (the dot) along two directions α and β, in bands from blue (low) to orange (high) with contour lines; the colour bar gives the loss. The ring marks the lowest point of the slice; in the trajectory plane the line is the training path. Wide bands around the dot: a flat minimum."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=c.surface data-testid=format!("land-surface-{i}") data-empty="Press Train and map: the same slice as a 3-D surface." width="360" height="300"></canvas>
                    <figcaption>"The same slice as a surface: height and colour are the log-loss. Read it: a bowl is a minimum; a ridge or a second dip means the surface is not convex along this plane."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=c.line data-testid=format!("land-line-{i}") data-empty="Press Train and map: the loss along the line from the first to the trained weights." width="360" height="260"></canvas>
                    <figcaption>"The loss along the straight line from the initial (θ = 0) to the trained weights (θ = 1), and beyond. Read it: a smooth fall with no bump means nothing stood in training's way along the straight line (Goodfellow et al. 2015)."</figcaption>
                </figure>
            </div>
        }).collect_view()}
    }
}
