//! The landscape lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "press Train and map.",
        "two columns: the batch of 4 and the batch of 256, each trained to the same training loss, and the loss around where each ended.",
        "the maps are slices of the loss through the trained weights along two directions scaled to each filter's size (Li et al. 2018), so the two runs compare fairly.",
    ),
    step(
        "read the sharpness of each run (the mean rise of the loss a small step away) and the verdict under it.",
        "which minimum is sharper, and by how much. On a network this small it goes either way with the seed, and the verdict says so.",
        "a tiny network has few, broad minima; the effect Keskar et al. (2017) describe needs a model with room for narrow ones.",
    ),
    step(
        "press \"Keskar et al.'s setting\" (an MNIST MLP, batch 16 against 256), then Train and map.",
        "batch 256's minimum is the sharper, by about ×1.7: its bands crowd closer round the dot.",
        "small batches add noise to every step, which shakes training out of narrow minima.",
    ),
    step(
        "follow the path drawn over each map.",
        "the way training went: a long slide down, then small steps near the end.",
        "the map's plane is the one in which the path's steps vary most (its first two principal components); set the plane to random directions to see the bowl around the end instead.",
    ),
    step(
        "press \"Li et al.'s skips\", then Train and map (about a minute on the CPU path).",
        "the same 26-layer network with and without its skip connections: without them the slice curves down in more places (its non-convexity is higher) and training gets less far in the same steps.",
        "a skip lets each block learn a change to its input rather than a whole new function, so the loss stays smooth as layers pile up (He et al. 2016; Li et al. 2018).",
    ),
];
