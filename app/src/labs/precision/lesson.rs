//! The precision lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "press Run (five runs of 1,000 steps on MNIST, well under a minute on the CPU path).",
        "fp16 — everything in half precision — diverges within a few steps; mixed fp16, bf16 and FP8 finish within a point of fp32.",
        "naive fp16 stores Adam's second moment v = β₂v + (1 − β₂)g² in fp16 too: at the first step a gradient of 10⁻⁴ gives (1 − β₂)g² = 10⁻³ · 10⁻⁸ = 10⁻¹¹, far below half of fp16's smallest subnormal (2⁻²⁵ ≈ 3·10⁻⁸, below which a value rounds to 0), so v is stored as 0 (the verdict says for what share of the weights, from your run's first step). Where v̂ is 0 and m̂ is not, the step m̂/(√v̂ + ε) becomes m̂/ε, 10⁸ times m̂: the weights blow up. Mixed precision keeps the optimizer state and a master copy of the weights in fp32.",
    ),
    step(
        "set the optimizer to SGD, the learning rate to 0.001, the runs to fp32, fp16, mixed-fp16, and Run.",
        "now fp16 trains, but slowly: after 1,000 steps it is about 10 points behind fp32, and its row shows a large share of the updates lost; mixed fp16 stays on fp32's curve.",
        "an update η·g under half the gap between w and its fp16 neighbour rounds back to w. With fp16's 11 significant bits, two fp16 numbers whose ratio exceeds 2¹² always add to the larger one, below 2¹¹ never, and between the two it depends on the larger one's mantissa (1.990234375 + 0.00066328 moves; 1.0 + 0.0004 does not). The fp32 master copy of mixed precision keeps those updates.",
    ),
    step(
        "with the defaults, look at the histogram of mixed-fp16.",
        "the gradients as stored (× the loss scale 2¹⁸) sit high in fp16's range, close to the orange where it overflows; dashed, the same gradients before scaling lie 18 powers of two lower, their lower tail in fp16's subnormals (blue), where values keep fewer bits.",
        "multiplying the loss by S multiplies every gradient by S (the chain rule), sliding the histogram right; the weights' gradients are divided by S in fp32 before the update, so the math is unchanged. On this small MLP few gradients fall below fp16's smallest value even unscaled: add custom to the runs with loss scaling none and it trains as well — as Micikevicius et al. found for many networks, scaling matters when gradients are smaller still.",
    ),
    step(
        "look at the loss-scale chart of mixed-fp16 and fp8.",
        "mixed-fp16's one scale climbs from 2¹⁶ by doublings and drops by halves, a dot at each skipped step; fp8 has four dashed lines, one per weight-gradient tensor, a few binades apart.",
        "the dynamic scaler doubles the scale after 200 steps without overflow and halves it (skipping that update) when a gradient becomes infinite: it finds the largest scale the gradients tolerate. FP8 training scales each tensor by its own: from the largest value it took over its last 16 steps, the highest power of two that keeps it within the format (delayed scaling, Micikevicius et al. 2022).",
    ),
];
