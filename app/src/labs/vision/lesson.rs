//! The vision lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "press Train.",
        "the loss falls within the first hundred steps, and the test accuracy is well above 90 % when the run ends.",
        "convolutions share one small filter across the image, so few weights learn strokes found anywhere.",
    ),
    step(
        "while it trains, watch the first layer's filters and the feature maps (redrawn about once a second).",
        "the filters still look much like their random start, but the row under them — what training changed — is smooth strokes and edges from the first steps (smoothness near 0.6 against about 0.1); the maps light up where the digit has those strokes.",
        "a filter weight's gradient is the image correlated with the layer's error, and neighbouring pixels are alike, so neighbouring weights move together; a 5 × 5 window can only learn edges and stroke pieces.",
    ),
    step(
        "draw a digit on the pad, then a messy one.",
        "the probabilities move to the class you drew; a messy digit splits them between look-alike classes.",
        "the network outputs a probability per class (softmax); confusion follows what the digits share.",
    ),
];
