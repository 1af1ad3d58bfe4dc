//! The sweep's charts: steps and examples to the target against batch size, the loss heatmap
//! over batch × learning rate, generalization, each run's curves, the noise scale, and the table
//! of runs.

use leptos::prelude::*;

use lab_sims::scaling::SweepRecord;

use super::Canvases;

pub fn figures(canvases: Canvases, record: RwSignal<Option<SweepRecord>>) -> impl IntoView {
    view! {
        <section class="views">
            <figure>
                <canvas node_ref=canvases.steps data-testid="scale-steps" data-empty="Press Run sweep: steps to the target against batch size." width="420" height="300"></canvas>
                <p class="small" data-testid="scale-critical">{move || record.with(|r| r.as_ref().and_then(|r| lab_state::scaling::critical_batch(&r.runs)).map(|b| view! {
                    "Critical batch B_simple ≈ " <b data-metric="b-simple">{format!("{b:.0}")}</b>
                    " (the gradient noise scale measured by the smallest batch's run)"
                }))}</p>
                <figcaption>"Steps to the target against batch size (log-log), for each batch the best of the sweep's learning rates. On the dashed line doubling the batch halves the steps (perfect scaling, Shallue et al. 2018); runs bend away from it past the critical batch, marked by the gradient noise scale B_simple when measured."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.examples data-testid="scale-examples" data-empty="Press Run sweep: examples to the target against batch size." width="420" height="300"></canvas>
                <figcaption>"Examples (steps × batch) to the target: flat while scaling is perfect, rising when bigger batches waste samples."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.heatmap data-testid="scale-heatmap" data-empty="Several learning-rate factors and Run sweep: final loss over batch × learning rate." width="420" height="300"></canvas>
                <figcaption>"Final training loss over batch size × learning rate (blue low, orange high, grey diverged), with the linear and square-root rules drawn from the base pair. Read it: the blue band is where training works; a rule that stays inside it as the batch grows is one you can trust."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.generalization data-testid="scale-generalization" data-empty="Press Run sweep: train and test accuracy per batch size." width="420" height="300"></canvas>
                <figcaption>"Train and test accuracy at the end of each run, and the generalization gap between them. Read it: a gap that grows with the batch is the large-batch generalization gap."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.curves data-testid="scale-curves" data-empty="Press Run sweep: each run's loss and learning rate as it trains." width="420" height="340"></canvas>
                {crate::controls::log_toggle("scale-log", canvases.log_loss)}
                <figcaption>"Each run's loss (smoothed) and, below, its learning rate per step: warmup is the ramp at the start. Read it: a curve that rises or ends early diverged; on the log scale, parallel straight lines learn at the same rate."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.noise data-testid="scale-noise" data-empty="Press Run sweep: the gradient noise scale as training goes." width="420" height="300"></canvas>
                <figcaption>"The gradient noise scale B_simple = tr Σ / |G|² (McCandlish et al. 2018), estimated from the gradients of a batch and of 8 batches together, as training goes. Read it: B_simple is the batch at which the gradient's noise equals its signal: batches well below it scale almost perfectly, batches above it mostly average away noise that was already small."</figcaption>
            </figure>
            <figure>
                <table class="results" data-testid="scale-table">
                    <tr><th>"batch"</th><th>"η"</th><th>"steps to target"</th><th>"examples"</th><th>"train acc."</th><th>"test acc."</th></tr>
                    {move || record.get().map(|r| r.runs.iter().map(|x| view! {
                        <tr>
                            <td data-metric=format!("steps-{}", x.batch) data-metric-value=x.steps_to_target.map_or(String::new(), |s| s.to_string())>{x.batch}</td>
                            <td>{format!("{:.4}", x.learning_rate)}</td>
                            <td data-metric=format!("outcome-{}", x.batch) data-metric-value=x.outcome()>{match (x.diverged, x.stalled_at, x.steps_to_target) {
                                (true, _, _) => "diverged".to_string(),
                                (_, Some(at), _) => format!("stalled at {at} (loss {:.2})", x.final_loss),
                                (_, _, Some(s)) => s.to_string(),
                                _ => format!("> {}", x.steps),
                            }}</td>
                            <td>{x.examples_to_target.map_or("–".into(), |e| e.to_string())}</td>
                            <td>{format!("{:.1} %", x.train_accuracy * 100.0)}</td>
                            <td>{x.test_accuracy.map_or("–".into(), |a| format!("{:.1} %", a * 100.0))}</td>
                        </tr>
                    }).collect_view())}
                </table>
            </figure>
            {crate::lessons::lesson("scale", crate::scaling::lesson::STEPS)}
        </section>
    }
}
