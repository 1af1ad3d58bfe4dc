//! The cluster lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "press play under the ring and watch the chunks move.",
        "each worker sends one chunk a step; after 2(p − 1) steps every worker holds the sum of all the gradients.",
        "the ring allreduce sends 2(p − 1)/p of the gradient per worker, whatever the number of workers: the wire never gets busier.",
    ),
    step(
        "press Train.",
        "the three algorithms reach the same accuracy in the same number of updates, at different modelled times.",
        "they compute the same average gradient; only how long the communication takes differs.",
    ),
    step(
        "set the straggler to 3 and look at the timeline.",
        "every worker waits, grey, for the slow one at each step.",
        "a synchronous step ends when the slowest worker is done; asynchronous SGD does not wait, but uses stale gradients.",
    ),
    step(
        "set gradient compression to top-k and train.",
        "far fewer bytes per update; the loss still falls, a little more slowly.",
        "error feedback keeps what was not sent and adds it to the next gradient, so nothing is lost for good.",
    ),
];
