//! The parallelism lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "press Run (four layouts of a 12-layer MLP, 500 steps each on MNIST, well under a minute on the CPU path).",
        "plain needs about 6.7 MB on one 6 MB device: it does not fit. Checkpointing (one device), ZeRO-3 (four) and a 4-stage pipeline (four) do; all four train to the same accuracy, their loss curves on top of each other.",
        "none of these changes the math: checkpointing recomputes the same activations, ZeRO's ring adds the same gradients before each worker updates its shard, and a pipeline's micro-batch gradients add up to the batch's. They trade memory for time or traffic instead.",
    ),
    step(
        "compare the modelled step times and the bytes sent in the table.",
        "checkpointing is slower than plain (it re-runs most of the forward), ZeRO-3 is faster (four devices share the batch) but sends 1.5× what data parallelism would, the pipeline is slowest here.",
        "ZeRO-3 gathers every layer's weights before its forward and again before its backward, then reduce-scatters the gradients: 3(N − 1)/N of the parameters per device per step. The pipeline's table line says where its time goes: most of it is the fixed cost per pass (launches, synchronisation; the “fixed cost per pass” setting), which each of its 4 stages pays for each of its 8 micro-batches, where plain pays it once; then the bubble; and its first stage, with the 784 × 64 input layer, holds about 42 % of the FLOPs, so the others wait on it. Set the fixed cost to 0 and the pipeline beats plain.",
    ),
    step(
        "set the schedule to GPipe and Run; then set the micro-batches to 32.",
        "the pipeline's first device holds more activations under GPipe (all 8 micro-batches at once, against at most 4 under 1F1B); with 32 micro-batches the bubble shrinks, yet the step grows: four times the passes pay four times the fixed cost.",
        "GPipe runs every forward before any backward, so stage s keeps all m micro-batches; 1F1B starts each backward as soon as it can. (Huang et al. pair GPipe with re-materialization: each stage keeps only its input per micro-batch and recomputes the rest in backward, which is what makes all m affordable; the lab's GPipe keeps every activation, so the gap you see is the schedule's alone — the checkpointing way shows what recomputing saves.) With free hand-overs the bubble is (p − 1)/(m + p − 1) for both; the transfers between stages add a little, more under 1F1B (theory §8.1). More micro-batches fill it.",
    ),
    step(
        "add best to the runs (and set the memory to 2 MB).",
        "the lab searches every layout of at most 8 devices — data × ZeRO × pipeline stages × micro-batches — keeps those that fit, and trains the fastest.",
        "a small version of the strategy search the notes describe (FlexFlow): each layout's memory and time follow from the same per-layer profile; data parallelism is fastest while the model fits, and ZeRO or a pipeline when it does not.",
    ),
    step(
        "open the attention lab (a tiny transformer, in the navigation) and scroll to its memory chart; choose 2 devices and press Train it split.",
        "a transformer block's activation memory against the sequence length, one device's share with the heads over t devices, and 20 training steps with the heads split reaching the same losses and weights as one device.",
        "a transformer's softmax output grows with the square of the length, which tensor parallelism divides by splitting the heads (Megatron-LM): each device computes its heads' attention and their backward alone, and only the block's partial outputs and input gradients are summed — four allreduces a block a step (theory §12.6).",
    ),
];
