//! The playground lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "press Train and watch the plot.",
        "over a few thousand steps (about half a minute at the watchable speed) the colours bend into the two arms of the spiral, and the test accuracy climbs above 90 %.",
        "each hidden layer bends the plane a little; two layers of eight tanh neurons can wrap a boundary around the arms.",
    ),
    step(
        "while it trains, set the learning rate to 3.",
        "the loss jumps up and the boundary breaks into patches; set it back to 0.03 and training carries on from there (the model is not reset).",
        "a step much larger than the valley is wide overshoots the minimum, and each step lands higher than the last.",
    ),
    step(
        "remove both hidden layers (− twice) and train.",
        "a straight boundary, and the test accuracy stalls near 70 % however long it trains.",
        "without a hidden layer the network is linear in x and y, and no line separates a spiral; tick sin x and sin y and it can again.",
    ),
    step(
        "set the noise to 0.4 and the test data to 50 %, then train for a long time.",
        "the training loss keeps falling while the test loss (orange) levels off and rises.",
        "overfitting: with few, noisy points the network learns the noise. An L2 rate of 0.003 keeps the weights small and narrows the gap.",
    ),
];
