//! The bench lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "press Run with W1, then with W2.",
        "samples per second and GFLOP/s for each; the kernels table says where the time goes.",
        "a training step is a handful of kernels; the matrix products dominate, and convolutions cost more per sample.",
    ),
    step(
        "choose T1 and Run, on WebGPU and on the CPU path.",
        "sequences per second of the attention lab's transformer (copy 4 tokens, 2 blocks of 2 heads, width 32, batch 64), and the same loss curve on both backends.",
        "T1 is a small model: each step is dozens of short kernels (embeddings, Q|K|V, attention, the MLP, their backward, Adam), so launching them, not multiplying, sets its speed on a GPU. bash scripts/compare-peers.sh trains the same model from the same start on the same batches in jax-js, whose loss curve is the lab's to rounding (the book's performance journal gives the figures).",
    ),
    step(
        "switch the backend between WebGPU and CPU.",
        "on a real GPU WebGPU wins, most for W2; on a software GPU the CPU path wins.",
        "a GPU does many multiply-adds at once, but each step has a fixed cost to launch and read back.",
    ),
    step(
        "on the CPU backend, set CPU cores to 1, Run W2, then set it to 2 (or more) and Run again; then the same with W1.",
        "both train faster on more cores, with the same losses: W2 close to twice on two, split by batch rows; W1 about a third faster, split by hidden units (where the page cannot share memory it splits by rows and gains nothing). The backend row says which split ran.",
        "split by batch rows, each core holds a copy of the model and computes the gradient of its share of the batch, and their mean is the whole batch's gradient: every step the weights go out and the gradients come back, worth it for W2 (about 9 ms of arithmetic on 6,000 weights), not for W1 (under 1 ms on 102,000). Split by hidden units, each core holds only its own units' weights and only the logits travel (tensor parallelism, as in Megatron-LM).",
    ),
    step(
        "on WebGPU, set GPU tiles to \"time them now\" and Run; then force 32×32, 128×128 and 32×32 k÷4 and Run each.",
        "each tile shape's time on your GPU for small, medium and large products and for the first layer's product as training runs it, the fastest of each kept (and remembered for your next visit); the forced shapes train to the same losses at other speeds (32×32 k÷4 to within rounding).",
        "a workgroup computes one tile of the product: large tiles reuse each value read more, small tiles make more workgroups to fill a GPU's many cores, and splitting k inside a workgroup puts more invocations on a long, thin product; which wins depends on the GPU and the product's size. The first three shapes add the same numbers in the same order; k÷4 adds four partial sums, so its last digits differ.",
    ),
];
