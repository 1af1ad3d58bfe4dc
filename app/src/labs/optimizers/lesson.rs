//! The optimizers lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "drag Momentum's μ slider from 0 to 0.99.",
        "its path goes from creeping along the valley, to a fast curve, to a spiral that rings around the minimum.",
        "momentum adds the last step's direction to this one: too little keeps gradient descent's slowness, too much overshoots.",
    ),
    step(
        "press \"Use Goh's optimal η, μ\".",
        "momentum's measured rate falls to about 0.53 (0.52 predicted); gradient descent's best is 0.82.",
        "on a quadratic, momentum converges at (√κ − 1)/(√κ + 1) per step, gradient descent at (κ − 1)/(κ + 1).",
    ),
    step(
        "raise the condition number κ to 100 (the default steps now diverge), then press \"Use Goh's optimal η, μ\" again.",
        "on the log-scale loss chart gradient descent's line is nearly flat (rate 0.98); momentum's stays steep (0.82).",
        "the flatter the valley's floor compared with its walls, the slower gradient descent; momentum slows only with √κ.",
    ),
    step(
        "switch the surface to Rosenbrock.",
        "Adam drops into the curved valley at once and follows it; SGD creeps.",
        "Adam divides each coordinate's step by the size of its recent gradients, so steep and flat directions move alike.",
    ),
];
