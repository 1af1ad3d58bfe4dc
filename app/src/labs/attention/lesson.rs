//! The attention lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "press Run (the defaults: copy 4 random tokens after a separator, a 2-block transformer with 2 heads a block, 300 steps: well under a minute on the CPU path).",
        "test accuracy climbs from below chance (1 in 10) to 100 % on sequences the model never saw, most of the way between steps 50 and 200; in the attention grid, the last row of a second-block head turns into one dark cell on the position of the token to copy, and the verdict's share of attention there rises from about an eighth to over 99 %.",
        "to copy, the model must find where the next token stood: the position right after the one it last copied. Attention is a learned lookup — each query scores every earlier key (QKᵀ/√d), the softmax turns the scores into weights, and the output is the weighted mean of the values — so one head can put all its weight on the single position that holds the answer. Here that place follows from positions alone (the copy starts right after the separator), so this is a positional lookup, not yet an induction head (Olsson et al. 2022), which finds the earlier occurrence of the current token by content. The native test asserts it at seeds 1 to 3 (state/tests/attention_lab.rs).",
    ),
    step(
        "choose the preset “memorizing” and Run (a + b mod 23, half the 529 pairs trained on, no weight decay).",
        "training accuracy reaches 100 % within a few hundred steps while test accuracy on the other half of the pairs stays near chance (1/23 ≈ 4 %) and the test loss climbs.",
        "the model has enough parameters to store every training pair as it is: a lookup table fits the training set and says nothing about the pairs it has not seen. Nothing in the loss asks for more, so without a pressure toward simpler solutions it stays there (theory §12.4).",
    ),
    step(
        "choose the preset “grokking” and Run (the same task at a learning rate of 0.003, weight decay 1 against 0, 4,000 steps each, on the CPU path: a few minutes).",
        "with weight decay both curves start as before — training at 100 % within 250 steps, test near chance — but hundreds to thousands of steps later test accuracy climbs past 95 % while the weights' norm falls (at seed 1 by step 1,000; at seeds 2 and 3 by 2,500), not always to 100 %; without weight decay it stays under 10 % and the norm grows.",
        "grokking (Power et al. 2022): weight decay slowly shrinks the weights, and the memorizing solution needs large ones; the network drifts to a smaller-norm solution that computes a + b mod p by rotating through Fourier components (Nanda et al. 2023), and that one holds for every pair. Measured at seeds 1 to 3 in theory §12.4 (seed 1 asserted natively); the fall of the norm as test accuracy climbs is the sign to look for.",
    ),
    step(
        "look at the memory chart under the losses (no need to Run), then set the width to 128 and the heads to 4.",
        "the engine's kept bytes (dots) sit on Korthikanti's count (line) at every length; the lines bend upward past about 160 tokens, where the softmax output — a·s²·b numbers — outgrows all the rest together (6sbh + 2sbf); over 2 devices one device keeps about 60 % of a block at short lengths, not half, and nearer half at long ones. Wider, the bend moves right; more heads, left.",
        "the softmax output is a·s² numbers a sequence, every query's weight on every key, against s·h for everything else; the backward needs it, so it is kept (or recomputed: FlashAttention keeps only a row's statistics). Tensor parallelism gives each device a/t heads, so it divides the scores and the MLP's units, but each device still keeps the block's and the MLP's whole inputs (Korthikanti et al. 2022; theory §12.6).",
    ),
    step(
        "under the memory chart, choose 2 devices and press Train it split (20 steps of the model as set, once on one device and once with every block's heads and MLP units over 2).",
        "the two runs' losses fall together and differ only in the seventh decimal; the weights after the 20th step agree as closely; each device sent about half a megabyte a step (at the defaults) and no weight gradient.",
        "heads never read each other: each device can hold its heads' rows of W_qkv and columns of W_out (and a share of the MLP's units), compute their attention, their backward and their weights' gradient alone, and only the block's partial outputs (forward) and partial input gradients (backward) are summed by allreduces (Megatron-LM; theory §12.6). The split moves the arithmetic, not the update: what differs is the order float sums run in.",
    ),
    step(
        "choose the task “sort a sequence”, set the steps to 400 and Run.",
        "the model learns to write the tokens out in ascending order (over 99 % of unseen sequences at seeds 1 and 2), but the share of attention on the position of the next token stays near a third, and the attention grid's last row is spread over several cells.",
        "copying has one right place to look; sorting does not — the next token is the smallest not yet written, which the model must compare across the candidates. Its heads attend to several of them at once and leave the choice to the layers after (state/tests/attention_lab.rs asserts both at seeds 1 and 2).",
    ),
    step(
        "in the copy task, set the blocks to 1 and Run; then set the heads to 1.",
        "one block still learns the copy, more slowly; the attention grid shows how the single block's heads split the work.",
        "with learned positions a single block can attend straight to a position, which is all this task needs; it is not an induction head (Olsson et al. 2022), which takes two blocks (a previous-token head, then the content match) and a task whose repeat starts at a random place.",
    ),
];
