//! The scaling lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "press Run sweep.",
        "the steps to reach the target fall as the batch grows, then flatten: past a point a bigger batch saves no steps.",
        "a batch averages away gradient noise; once the noise is small, larger batches only repeat what the gradient already says.",
    ),
    step(
        "find the mark B_simple (the critical batch) on the steps chart.",
        "the curve bends roughly there: below it doubling the batch nearly halves the steps, above it saves little.",
        "B_simple = tr(Σ)/|g|² compares the gradient's noise with its size (McCandlish et al. 2018): batches well below it are noise-limited.",
    ),
    step(
        "set the scaling rule to none, then to linear, and run again.",
        "with one learning rate for all batches the large ones gain little; the linear rule gains more, and may make the largest diverge (marked in the table).",
        "a batch k times larger takes k times fewer, less noisy steps; the linear rule (Goyal et al. 2017) keeps the distance travelled per sample.",
    ),
];
