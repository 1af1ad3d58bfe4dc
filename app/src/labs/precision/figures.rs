//! The precision lab's views: the runs' loss curves first, the table of how each ended against
//! fp32 with the verdict, the gradients' exponents against a format's range, the loss scale.

use leptos::prelude::*;

use lab_sims::precision_run::{PrecisionRecord, PrecisionRun};

use super::Canvases;

/// A run's test id suffix (`mixed-fp16` as it is).
fn key(r: &PrecisionRun) -> String {
    r.label.clone()
}

fn kib(bytes: u64) -> String {
    format!("{:.0} KiB", bytes as f64 / 1024.0)
}

fn row(r: &PrecisionRun, fp32: Option<f32>, fp32_bytes: Option<u64>) -> impl IntoView {
    let p = r.precision;
    let formats = format!(
        "{} / {} / {} / {} / {}",
        p.weights.name(),
        p.activations.name(),
        p.gradients.name(),
        p.optimizer_state.name(),
        p.master.name()
    );
    let accuracy = match (r.diverged_at, r.test_accuracy) {
        (Some(s), _) => format!("diverged at step {s}"),
        (None, Some(a)) => format!("{:.1} %", a * 100.0),
        _ => "–".into(),
    };
    let delta = match (r.test_accuracy, fp32, r.diverged_at) {
        (Some(a), Some(f), None) => format!("{:+.1}", (a - f) * 100.0),
        _ => "–".into(),
    };
    let last = r.last_check();
    let lost = last
        .and_then(|c| c.lost_updates)
        .map_or("–".into(), |v| format!("{:.1} %", v * 100.0));
    let under = last.map_or("–".into(), |c| {
        format!("{:.2} %", c.gradient_shares.underflow * 100.0)
    });
    let under_value = last.map_or(String::new(), |c| {
        (c.gradient_shares.underflow * 100.0).to_string()
    });
    // The squared-gradient state flushed at the first step: what sinks naive fp16 with Adam.
    let flushed = r.first_squares_flushed().map(|v| v * 100.0);
    let per_tensor = lab_state::precision::gradient_scale_range(r);
    let scale = if let Some((lo, hi)) = per_tensor {
        format!("per tensor: weight gradients 2^{lo} to 2^{hi}")
    } else if r.scale_events.is_empty() {
        format!("{}", r.final_scale)
    } else {
        format!("2^{} ({} skipped)", r.final_scale.log2(), r.skipped_steps)
    };
    let share = match fp32_bytes {
        Some(b) if b > 0 => format!("{:.0} %", 100.0 * r.bytes.total() as f64 / b as f64),
        _ => String::new(),
    };
    let b = r.bytes;
    let breakdown = format!(
        "weights copy {}, master {}, gradients {}, optimizer state {}, activations {}",
        kib(b.weights),
        kib(b.master),
        kib(b.gradients),
        kib(b.optimizer_state),
        kib(b.activations)
    );
    let k = key(r);
    view! {
        <tr>
            <td>{r.label.clone()}</td>
            <td class="small">{formats}</td>
            <td data-metric=format!("acc-{k}") data-metric-value=r.test_accuracy.filter(|_| r.diverged_at.is_none()).map_or(String::new(), |a| a.to_string())
                data-diverged=r.diverged_at.map_or(String::new(), |s| s.to_string())>{accuracy}<span hidden data-metric=format!("diverged-{k}") data-metric-value=r.diverged_at.map_or("0".to_string(), |s| s.to_string())></span></td>
            <td data-metric=format!("delta-{k}")>{delta}</td>
            <td data-metric=format!("scale-{k}") data-metric-value=r.final_scale.to_string()>{scale}{per_tensor.map(|(lo, hi)| view! { <span hidden data-metric=format!("spread-{k}") data-metric-value=(hi - lo).to_string()></span> })}</td>
            <td data-metric=format!("under-{k}") data-metric-value=under_value>{under}
                {flushed.map(|v| view! { <br/><span class="muted small" title="the share of Adam's second moment v (or RMSProp's, AdaGrad's squares) stored as 0 after step 1" data-metric=format!("flushed-{k}") data-metric-value=v.to_string()>{format!("squares → 0 at step 1: {v:.0} %")}</span> })}
            </td>
            <td data-metric=format!("lost-{k}") data-metric-value=last.and_then(|c| c.lost_updates).map_or(String::new(), |v| v.to_string())>{lost}</td>
            <td title=breakdown>{kib(r.bytes.total())}<br/><span class="muted">{share}</span></td>
        </tr>
    }
}

pub fn figures(canvases: Canvases, record: RwSignal<Option<PrecisionRecord>>) -> impl IntoView {
    let labels = move || {
        record.with(|r| {
            r.as_ref()
                .map(|r| r.runs.iter().map(|x| x.label.clone()).collect::<Vec<_>>())
                .unwrap_or_default()
        })
    };
    // The run the histogram shows (the chosen one, or the one picked for it).
    let shown = move || {
        let chosen = canvases.inspect.get();
        record.with(|r| {
            r.as_ref()
                .and_then(|r| super::inspected(r, &chosen))
                .map(|x| x.label.clone())
        })
    };
    view! {
        <section class="views">
            <figure class="wide">
                <canvas node_ref=canvases.curves data-testid="prec-curves" data-empty="Press Run: each precision's training loss on the same batches." width="640" height="400"></canvas>
                <figcaption>"Training loss of each run (smoothed, log scale) and, below, its accuracy on 2,000 training images at its checks, all on the same batches from the same initial weights, so the curves differ only by their precision. Read it: a run on top of fp32 lost nothing to its formats; a curve that stops with a cross diverged there."</figcaption>
            </figure>
            <figure class="wide">
                <ul class="verdict" data-testid="prec-verdict" aria-live="polite">
                    {move || record.with(|r| r.as_ref().filter(|r| !r.runs.is_empty()).map(|r| lab_state::precision::verdict(r).into_iter().map(|line| view! { <li>{line}</li> }).collect_view()))}
                </ul>
                <table class="results" data-testid="prec-table">
                    <tr><th>"run"</th><th>"formats: weights / activations / gradients / state / master"</th><th>"test acc."</th><th>"vs fp32 (points)"</th><th>"loss scale"</th><th>"gradients → 0"</th><th>"updates lost"</th><th>"memory (vs fp32)"</th></tr>
                    {move || record.with(|r| r.as_ref().map(|r| {
                        let fp32 = r.fp32().and_then(|x| x.test_accuracy);
                        let fp32_bytes = r.fp32().map(|x| x.bytes.total());
                        r.runs.iter().map(|x| row(x, fp32, fp32_bytes)).collect_view()
                    }))}
                </table>
                <figcaption>"How each run ended on 2,000 test images. Gradients → 0 (flushed to zero) and updates lost are measured at the run's last check: the share of weight gradients that its gradient format rounds to zero (after the loss scale), and the share of weights with a gradient whose stored value did not change — the update was under half a gap of the master weights' format. Memory: weights, master copy, gradients, optimizer state and one batch's activations, at each format's bytes."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.histogram data-testid="prec-histogram" data-empty="Press Run: a run's gradients by power of two, against its format's range." width="420" height="320"></canvas>
                <p class="small figure-note" data-testid="prec-shares">{move || {
                    let chosen = canvases.inspect.get();
                    record.with(|r| r.as_ref().and_then(|r| super::inspected(r, &chosen)).and_then(|run| {
                        let c = run.checks.iter().rev().find(|c| !c.skipped)?;
                        let s = c.gradient_shares;
                        Some(format!(
                            "{} at step {}, loss scale {}: of its nonzero weight gradients, {:.2} % flush to zero in {}, {:.2} % are subnormal, {:.2} % overflow.",
                            run.label, c.step, c.scale, s.underflow * 100.0, run.gradient_format().name(), s.subnormal * 100.0, s.overflow * 100.0
                        ))
                    }))
                }}</p>
                <label class:hidden=crate::share::hidden("inspect")>"Run shown"
                    <select data-testid="prec-inspect" on:change=move |ev| canvases.inspect.set(event_target_value(&ev))>
                        {move || labels().into_iter().map(|l| view! { <option value=l.clone() selected=shown() == Some(l.clone())>{l.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <figcaption>"The weight gradients of one run at its last check, by power of two, one line per layer, as stored in its gradient format (× the loss scale; dashed: before scaling). Shaded: grey where the format flushes values to zero, blue its subnormals (fewer bits), orange past its largest value. Read it: loss scaling slides the lines right, out of the grey; too much and they run into the orange and the step overflows."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.scale data-testid="prec-scale" data-empty="Press Run: the loss scales over time." width="420" height="320"></canvas>
                <figcaption>"The loss scale of each run that scales dynamically: it starts at 2^16, halves (a dot: the step was skipped) when a gradient overflows — to ±∞, or, in E4M3, which saturates instead of overflowing, to ±448, which the scaler counts as an overflow (as FP8 recipes count saturation) — and doubles after 200 steps without one (PyTorch's GradScaler; PyTorch waits 2000). Read it: the scale settles just under where the largest gradients overflow. Dashed, for a run with delayed scaling (the fp8 preset): each weight gradient's own scale at the checks, set from the largest value that tensor took over its last 16 steps (Micikevicius et al. 2022); drawn from the second check, since the first step runs at 2^0, before any history. Read them: one global scale must suit the tensor with the largest gradients; each tensor's own sits as high as its values allow."</figcaption>
            </figure>
            {crate::lessons::lesson("prec", crate::precision::lesson::STEPS)}
        </section>
    }
}
