//! The "what to try → what you see → why" panel every lab shows: three or four experiments,
//! written for a student who knows gradient descent but not the term on the chart, each starting
//! from the lab's defaults. Each lab writes its own in its folder (`<lab>/lesson.rs`).

use leptos::prelude::*;

/// One experiment: what to do, what appears, and why.
pub struct Step {
    pub try_: &'static str,
    pub see: &'static str,
    pub why: &'static str,
}

pub const fn step(try_: &'static str, see: &'static str, why: &'static str) -> Step {
    Step { try_, see, why }
}

/// The panel, open by default, test id `{prefix}-lesson` (`lesson` for the playground); hidden
/// with `lesson_hide=true`.
pub fn lesson(prefix: &str, steps: &'static [Step]) -> impl IntoView {
    let id = if prefix.is_empty() {
        "lesson".to_string()
    } else {
        format!("{prefix}-lesson")
    };
    view! {
        <details class="lesson" open=true data-testid=id class:hidden=crate::share::hidden("lesson")>
            <summary>"What to try"</summary>
            <ol>
                {steps.iter().map(|s| view! {
                    <li>
                        <p><b>"Try: "</b>{s.try_}</p>
                        <p><b>"You see: "</b>{s.see}</p>
                        <p class="muted"><b>"Why: "</b>{s.why}</p>
                    </li>
                }).collect_view()}
            </ol>
        </details>
    }
}
