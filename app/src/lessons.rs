//! Each lab's "what to try → what you see → why" panel: three or four experiments, written for a
//! student who knows gradient descent but not the term on the chart, each starting from the
//! lab's defaults.

use leptos::prelude::*;

/// One experiment: what to do, what appears, and why.
pub struct Step {
    pub try_: &'static str,
    pub see: &'static str,
    pub why: &'static str,
}

const fn step(try_: &'static str, see: &'static str, why: &'static str) -> Step {
    Step { try_, see, why }
}

/// The panel, open by default, test id `{prefix}-lesson` (`lesson` for the playground); hidden
/// with `lesson_hide=true`.
pub fn lesson(prefix: &str, steps: &'static [Step]) -> impl IntoView {
    let id = if prefix.is_empty() {
        "lesson".to_string()
    } else {
        format!("{prefix}-lesson")
    };
    view! {
        <details class="lesson" open=true data-testid=id class:hidden=crate::share::hidden("lesson")>
            <summary>"What to try"</summary>
            <ol>
                {steps.iter().map(|s| view! {
                    <li>
                        <p><b>"Try: "</b>{s.try_}</p>
                        <p><b>"You see: "</b>{s.see}</p>
                        <p class="muted"><b>"Why: "</b>{s.why}</p>
                    </li>
                }).collect_view()}
            </ol>
        </details>
    }
}

pub const PLAYGROUND: &[Step] = &[
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

pub const OPTIMIZERS: &[Step] = &[
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

pub const LANDSCAPE: &[Step] = &[
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

pub const SCALING: &[Step] = &[
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

pub const CLUSTER: &[Step] = &[
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

pub const VISION: &[Step] = &[
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

pub const BENCH: &[Step] = &[
    step(
        "press Run with W1, then with W2.",
        "samples per second and GFLOP/s for each; the kernels table says where the time goes.",
        "a training step is a handful of kernels; the matrix products dominate, and convolutions cost more per sample.",
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

pub const PRECISION: &[Step] = &[
    step(
        "press Run (five runs of 1,000 steps on MNIST, well under a minute on the CPU path).",
        "fp16 — everything in half precision — diverges within a few steps; mixed fp16, bf16 and FP8 finish within a point of fp32.",
        "naive fp16 stores Adam's second moment v = β₂v + (1 − β₂)g² in fp16 too: at the first step a gradient of 10⁻⁴ gives (1 − β₂)g² = 10⁻³ · 10⁻⁸ = 10⁻¹¹, far below fp16's smallest subnormal 2⁻²⁴ ≈ 6·10⁻⁸, so v is stored as 0 (the verdict says for what share of the weights, from your run's first step). Where v̂ is 0 and m̂ is not, the step m̂/(√v̂ + ε) becomes m̂/ε, 10⁸ times m̂: the weights blow up. Mixed precision keeps the optimizer state and a master copy of the weights in fp32.",
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
        "the scale climbs from 2¹⁶ by doublings and drops by halves, a dot at each skipped step.",
        "the dynamic scaler doubles the scale after 200 steps without overflow and halves it (skipping that update) when a gradient becomes infinite: it finds the largest scale the gradients tolerate.",
    ),
];

pub const PARALLELISM: &[Step] = &[
    step(
        "press Run (four layouts of a 12-layer MLP, 500 steps each on MNIST, well under a minute on the CPU path).",
        "plain needs about 9.5 MB on one 8 MB device: it does not fit. Checkpointing (one device), ZeRO-3 (four) and a 4-stage pipeline (four) do; all four train to the same accuracy, their loss curves on top of each other.",
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
        "GPipe runs every forward before any backward, so stage s keeps all m micro-batches; 1F1B starts each backward as soon as it can. (Huang et al. pair GPipe with re-materialization: each stage keeps only its input per micro-batch and recomputes the rest in backward, which is what makes all m affordable; the lab's GPipe keeps every activation, so the gap you see is the schedule's alone — the checkpointing way shows what recomputing saves.) The bubble is (p − 1)/(m + p − 1) for both: more micro-batches fill it.",
    ),
    step(
        "add best to the runs (and set the memory to 2 MB).",
        "the lab searches every layout of at most 8 devices — data × ZeRO × pipeline stages × micro-batches — keeps those that fit, and trains the fastest.",
        "a small version of the strategy search the notes describe (FlexFlow): each layout's memory and time follow from the same per-layer profile; data parallelism is fastest while the model fits, and ZeRO or a pipeline when it does not.",
    ),
];
