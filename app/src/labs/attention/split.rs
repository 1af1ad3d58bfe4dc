//! The split check under the memory view: the model as set, trained a few steps with its heads
//! (and the MLP's hidden units) over t tensor-parallel devices and on the engine's own step,
//! side by side on the CPU path (`lab_sims::attention::split_check`), so the student sees the
//! split change where the arithmetic runs but not the update.

use std::rc::Rc;

use leptos::prelude::*;

use lab_sims::attention::split_check::{check, device_choices, SplitCheck, CHECK_STEPS};
use lab_state::attention::AttentionLab;

use crate::chart_text::bytes;
use crate::frame;
use crate::share::hidden;

fn outcome(c: &SplitCheck) -> impl IntoView {
    let (first, last) = (c.losses[0], c.losses[c.losses.len() - 1]);
    view! {
        <p data-testid="attn-split-result" role="status">
            {format!("{CHECK_STEPS} steps from the lab's start on its first batches, heads over {} devices: the loss went {:.4} → {:.4} (one device: {:.4} → {:.4}); the losses differ by at most ", c.devices, first.1, last.1, first.0, last.0)}
            <span data-metric="tp-loss-gap" data-metric-value=c.loss_gap().to_string()>{format!("{:.1e}", c.loss_gap())}</span>
            " and the weights after the last step by at most "
            <span data-metric="tp-weight-gap" data-metric-value=c.weight_gap.to_string()>{format!("{:.1e}", c.weight_gap)}</span>
            {format!(" (relative): rounding, as float sums in another order give. Each device sent {} a step (forward and backward, two ring allreduces each, every block); no weight gradient crossed.", bytes(c.sent_per_step))}
        </p>
    }
}

pub fn split_check(settings: RwSignal<AttentionLab>) -> impl IntoView {
    let choices = Memo::new(move |_| settings.with(|s| device_choices(&s.plan())));
    let devices = RwSignal::new(2usize);
    // The engine's error, kept as it is and said in words where the page shows it.
    let result = RwSignal::new_local(None::<Result<SplitCheck, Rc<engine::error::Error>>>);
    let progress = RwSignal::new(None::<usize>);
    // A changed model makes the last check stale.
    Effect::new(move |_| {
        choices.track();
        result.set(None);
    });
    let go = move |_| {
        let plan = settings.get_untracked().plan();
        let wanted = devices.get_untracked();
        let t = choices.with_untracked(|c| c.iter().copied().find(|t| *t == wanted).or(c.first().copied()));
        let Some(t) = t else { return };
        progress.set(Some(0));
        leptos::task::spawn_local(async move {
            frame::next_frame().await;
            let found = check(&plan, t, |step| {
                progress.set(Some(step));
                async {
                    frame::next_frame().await;
                    true
                }
            })
            .await;
            result.set(found.map_err(Rc::new).transpose());
            progress.set(None);
        });
    };
    view! {
        <div class="split-check" data-testid="attn-split-check" class:hidden=hidden("split-check")>
            <p class="small">{move || match choices.with(Vec::is_empty) {
                true => "Train it split: the heads and the MLP's hidden units must divide over 2 or more devices (try 2 or 4 heads and an even hidden width).".to_string(),
                false => format!("Train it split: {CHECK_STEPS} steps with every block's heads and hidden units over t devices (each device its heads' rows of W_qkv and columns of W_out, its units of the MLP), beside the same steps on one device, on the CPU path."),
            }}</p>
            <label>"Devices t "
                <select data-testid="attn-split-devices" disabled=move || choices.with(Vec::is_empty) on:change=move |ev| devices.set(event_target_value(&ev).parse().unwrap_or(2))>
                    {move || choices.get().into_iter().map(|t| view! { <option value=t.to_string() selected=move || devices.get() == t>{t.to_string()}</option> }).collect_view()}
                </select>
            </label>
            " "
            <button data-testid="attn-split-run" disabled=move || progress.get().is_some() || choices.with(Vec::is_empty) on:click=go>"Train it split"</button>
            <span class="small" data-testid="attn-split-progress">{move || progress.get().map(|s| format!(" step {s} of {CHECK_STEPS}…"))}</span>
            {move || match result.get() {
                Some(Ok(c)) => outcome(&c).into_any(),
                Some(Err(e)) => view! { <p role="alert" data-testid="attn-split-result">{format!("The split check failed: {e}")}</p> }.into_any(),
                None => ().into_any(),
            }}
        </div>
    }
}
