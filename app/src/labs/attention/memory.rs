//! The attention lab's memory view: one block's activation memory against the sequence length
//! for the model as set — what the engine's step keeps, Korthikanti et al. 2022's count for it,
//! the paper's setting, and the heads split over tensor-parallel devices — counted, not trained,
//! so it follows the settings at once; and the terms at the model's own length, as a table.

use leptos::html::Canvas;
use leptos::prelude::*;

use engine::transformer::TransformerConfig;
use lab_sims::attention::memory::{curve, Block, MemoryPoint};
use lab_sims::attention::tensor_parallel::sent_per_block;
use lab_state::attention::AttentionLab;

use crate::chart_text::bytes;

/// The memory curve of the model as set, and the model.
pub type Memory = RwSignal<Option<(Vec<MemoryPoint>, TransformerConfig)>>;

/// Counts and draws the curve whenever the model's shape changes.
pub fn follow(settings: RwSignal<AttentionLab>, canvas: NodeRef<Canvas>) -> Memory {
    let memory: Memory = RwSignal::new(None);
    // Only the model's shape matters: the steps, the rate or the seed leave the curve alone.
    let shape = Memo::new(move |_| settings.with(|s| s.plan().config()));
    Effect::new(move |_| {
        let config = shape.get();
        let points = curve(&config);
        if let Some(c) = canvas.get() {
            crate::attention::draw::memory(c, &points, config.seq);
        }
        let rows = points.iter().map(|p| {
            let mut row = vec![
                p.seq.to_string(),
                p.engine.map_or(String::new(), |e| e.to_string()),
                p.formula.to_string(),
                p.paper.to_string(),
            ];
            row.extend(p.tensor.iter().map(|(_, b)| b.to_string()));
            row
        });
        let tensor: String = (points.first().map_or(&[][..], |p| p.tensor.as_slice()).iter())
            .map(|(t, _)| format!(",per_device_over_{t}"))
            .collect();
        let header = format!("seq,engine_bytes,formula_bytes,paper_setting_bytes{tensor}");
        crate::figures::set_table("attn-memory", crate::figures::csv(&header, rows));
        memory.set(Some((points, config)));
    });
    memory
}

fn terms_table(points: &[MemoryPoint], config: &TransformerConfig) -> impl IntoView {
    let block = Block::engine(config);
    let here = points.iter().find(|p| p.seq == config.seq);
    let rows = block.terms().into_iter().map(|t| {
        view! { <tr><th scope="row">{t.name}</th><td>{bytes(t.bytes)}</td><td>{if t.split { "yes" } else { "no" }}</td></tr> }
    }).collect_view();
    let value = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    let tensor = here.map_or(Vec::new(), |p| p.tensor.clone()).into_iter().map(|(t, b)| {
        let sent = sent_per_block(config, t);
        view! {
            <tr><th scope="row">{format!("per device, {} head(s) on each of {t} devices", config.heads / t)}</th><td data-metric=format!("tp-bytes-{t}") data-metric-value=b.to_string()>{bytes(b)}</td>
                <td>"sends "<span data-metric=format!("tp-sent-{t}") data-metric-value=sent.to_string()>{bytes(sent)}</span>" a block's forward pass (two allreduces of the block's output)"</td></tr>
        }
    }).collect_view();
    view! {
        <tr><th>"kept for the backward, one block"</th><th>"bytes"</th><th>"split by tensor parallelism"</th></tr>
        {rows}
        <tr><th scope="row">"Korthikanti's count, this engine's setting"</th><td data-metric="formula-bytes" data-metric-value=value(here.map(|p| p.formula))>{here.map_or("–".into(), |p| bytes(p.formula))}</td><td></td></tr>
        <tr><th scope="row">"the engine's own buffers (read from its kernels)"</th><td data-metric="kept-bytes" data-metric-value=value(here.and_then(|p| p.engine))>{here.and_then(|p| p.engine).map_or("–".into(), bytes)}</td><td></td></tr>
        <tr><th scope="row">"the paper's setting (16-bit, dropout, layer norms, MLP 4h)"</th><td data-metric="paper-bytes" data-metric-value=value(here.map(|p| p.paper))>{here.map_or("–".into(), |p| bytes(p.paper))}</td><td></td></tr>
        {tensor}
    }
}

pub fn figure(canvas: NodeRef<Canvas>, memory: Memory, settings: RwSignal<AttentionLab>) -> impl IntoView {
    view! {
        <figure class="wide">
            <canvas node_ref=canvas data-testid="attn-memory" width="640" height="360"></canvas>
            <table class="results" data-testid="attn-memory-table">
                {move || memory.with(|m| m.as_ref().map(|(points, config)| terms_table(points, config)))}
            </table>
            {super::split::split_check(settings)}
            <figcaption>"Activation memory of one block against the sequence length, for the model as set (its batch, width, heads and MLP), counted, not trained: the dots are what this lab's step keeps from its forward pass for its backward, read from its kernels (none where the probabilities would pass the 4 GiB its buffers address); the line is Korthikanti et al. (2022)'s count of the same terms (f32, no dropout, no layer norm); dashed, the paper's own layer at this width and heads (16-bit activations, dropout masks and outputs, two layer norms, an MLP 4h wide); dotted, one device's share when tensor parallelism splits the heads (and the MLP's hidden units) over t devices. The grey line marks this model's length. Read it: the softmax output grows with the square of the length and overtakes the rest once s is past (6h + 2f)/a in this engine's count (a·s²·b floats against 6sbh + 2sbf) and 34h/(5a) in the paper's (5as²b bytes against 34sbh); tensor parallelism divides it, but not the block's input or the MLP's input (sequence parallelism would), and costs two allreduces of the block's output every forward pass (as many again backward). Split this way — each device its heads' rows of W_qkv and columns of W_out, a share of the MLP's units — the forward pass reaches the one-device loss and the backward its gradient, to rounding, and training split reaches the same weights: press Train it split to see it (sims/tests/transformer_split.rs)."</figcaption>
        </figure>
    }
}
