//! The cluster page: settings and the run bar on the left; the animation, the timeline, the
//! curves, the runs and their table on the right.

use leptos::prelude::*;

use lab_sims::cluster_run::ClusterRecord;
use lab_sims::scaling::STALL_CHECKS;

use super::animation::animation_figure;
use super::exports::exports;
use super::runs::{plan, run_all};
use super::settings_panel::settings_panel;
use super::{charts, curve, draw_curves, draw_timeline, Canvases, Settings};
use crate::recorded::{RecordedPage, Signals};
use crate::share::hidden;

#[component]
pub fn ClusterPage() -> impl IntoView {
    let page = RecordedPage::<Settings, ClusterRecord>::new(
        "press Train to run the chosen algorithms, or Time to accuracy for the worker-count study",
        "the runs done so far are shown",
    );
    let Signals { settings, error, record, running, .. } = page.signals();
    let canvases = Canvases::new();
    // Analytic views follow the settings at once.
    Effect::new(move |_| {
        let s = settings.get();
        let (Some(_), Some(_)) = (canvases.speedup.get(), canvases.timeline.get()) else {
            return;
        };
        match curve(&s) {
            Ok(points) => draw_curves(&canvases, &s, &points),
            Err(e) => error.set(Some(e.to_string())),
        }
        draw_timeline(&canvases, &s);
    });
    // The log toggle redraws the last runs.
    page.redraw_on(
        move || canvases.log_loss.track(),
        |r| !r.runs.is_empty(),
        move |r| super::draw_runs(&canvases, &settings.get_untracked(), r),
    );
    let go = {
        let page = page.clone();
        move |study: bool| {
            let s = settings.get_untracked();
            match s.validate().and_then(|_| plan(&s, study)) {
                Ok(plan) => {
                    page.start(move |run| async move { run_all(&s, plan, study, run, canvases).await })
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        }
    };
    let go_train = {
        let go = go.clone();
        move |_| go(false)
    };
    let go_study = move |_| go(true);
    page.frame(
        ("data-parallel cluster", "Many workers, one model: how gradients are combined, and what it costs.", "cl"),
        view! {
            <button class:hidden=hidden("train") class="primary" data-lab-start="true" data-testid="cl-train" disabled=move || running.get() on:click=go_train>"Train"</button>
            <button class:hidden=hidden("run-study") data-testid="cl-run-study" disabled=move || running.get() on:click=go_study>"Time to accuracy"</button>
        },
        view! {
            {settings_panel(settings, error)}
            {exports(settings, record, error, page.job.status, canvases)}
        },
        view! {
        <section class="views">
            {animation_figure(settings, canvases)}
            <figure>
                <canvas node_ref=canvases.timeline data-testid="cl-timeline" width="440" height="300"></canvas>
                {super::overlap_readout(settings)}
                <figcaption>"One iteration per worker: compute above, communication below. Synchronous: everyone waits for the slowest worker and the allreduce; with overlap each layer's bucket is sent while backward goes on. An asynchronous run shows its first updates instead: compute, then push and pull, and grey waits where the staleness bound holds a fast worker back."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.speedup data-testid="cl-speedup" width="420" height="300"></canvas>
                <figcaption>"Speed-up of synchronous training (samples per second over one worker training the batch alone) against worker count, from the same schedules and cost model as the runs. Read it: on the grey line every worker added counts in full; a curve that flattens is waiting on communication, whose cost is a latency α per message plus β per byte (plus γ per byte reduced)."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.efficiency data-testid="cl-efficiency" width="420" height="300"></canvas>
                <figcaption>"Efficiency: speed-up divided by workers; 1 is perfect. Read it: 0.5 means half of every worker's time is spent waiting, not computing."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.bytes data-testid="cl-bytes" width="420" height="300"></canvas>
                <figcaption>"Bytes on the wire per iteration, all links together (with the chosen compression). Read it: a ring sends about 2× the gradient whatever the worker count; a parameter server's link to the server carries it once per worker."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.loss data-testid="cl-loss" data-empty="Press Train: each run's training loss against modelled time." width="420" height="300"></canvas>
                {crate::controls::log_toggle("cl-log", canvases.log_loss)}
                <figcaption>"Training loss of each run against modelled time; a compressed or asynchronous run is shown beside its uncompressed synchronous twin. Read it: the curve further left reaches a loss sooner; one that ends higher learned less per update (stale or compressed gradients)."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.tta data-testid="cl-tta" width="420" height="300"></canvas>
                <figcaption>"Time to accuracy: modelled seconds until the target, against worker count (Time to accuracy button). The honest measure of scaling (Hoefler 2018). Read it: lower is better; a line that turns up means more workers cost more in communication or in extra updates than they save."</figcaption>
            </figure>
            <figure>
                <table class="results" data-testid="cl-table">
                    <tr><th>"run"</th><th>"updates"</th><th>"to target"</th><th>"bytes / update"</th><th>"saved"</th><th>"staleness (mean / max)"</th><th>"test acc."</th></tr>
                    {move || record.get().map(|r| r.runs.iter().map(|x| view! {
                        <tr>
                            <td data-metric=lab_state::registry::metric_name("seconds", &x.label) data-metric-value=x.reached.map_or(String::new(), |c| c.time.to_string())>{x.label.clone()}</td>
                            <td>{x.losses.len()}</td>
                            <td data-metric=lab_state::registry::metric_name("outcome", &x.label) data-metric-value=x.outcome()>{match (x.diverged_at, x.reached, x.stalled_at) {
                                (Some(s), _, _) => format!("diverged at update {s}"),
                                (None, Some(c), _) => format!("{} updates, {}", c.step, charts::seconds(c.time)),
                                (None, None, Some(s)) => format!("stalled at update {s}: no progress for {STALL_CHECKS} checks"),
                                (None, None, None) => "not reached".into(),
                            }}</td>
                            <td>{crate::chart_text::bytes(x.bytes_per_step)}</td>
                            <td>{if x.dense_bytes_per_step > 0.0 { format!("{:.0} %", 100.0 * (1.0 - x.bytes_per_step / x.dense_bytes_per_step)) } else { "–".into() }}</td>
                            <td>{format!("{:.1} / {}", x.staleness_mean, x.staleness_max)}</td>
                            <td>{x.test_accuracy.map_or("–".into(), |a| format!("{:.1} %", a * 100.0))}</td>
                        </tr>
                    }).collect_view())}
                </table>
                <figcaption>"Staleness counts updates: how many gradients, from all workers, the server applied between a worker's pull and its push. The staleness bound counts iterations: how far a worker may run ahead of the slowest. So even bound 0 allows p − 1 updates in between, and bound b up to (p − 1)(2b + 1) — (p − 1)(b + 1) when the late worker is the slowest (docs/theory.md §6.3)."</figcaption>
            </figure>
            {crate::lessons::lesson("cl", crate::cluster::lesson::STEPS)}
        </section>
        },
    )
}
