//! The landing page (`/labs`): every lab in two sentences, with its link.

use leptos::prelude::*;

/// (route, name, two sentences).
pub const LABS: [(&str, &str, &str); 9] = [
    (
        "./",
        "Playground",
        "Train a small network on 2-D data and watch its decision boundary form, neuron by neuron. Change the data, the features, the layers and the optimizer, and share the exact setup as a link.",
    ),
    (
        "optimizers",
        "Optimizers",
        "Race SGD, momentum, Nesterov, AdaGrad, RMSProp, Adam and AdamW on surfaces you can see: ravines, saddles, Rosenbrock. On the ill-conditioned quadratic, compare their measured rates with Goh's theory.",
    ),
    (
        "landscape",
        "Loss landscape",
        "Train a network, then map the loss around its weights: along the training path, on random filter-normalized planes, as contours and as a surface. Compare the sharp minimum of a large batch with the flat one of a small batch.",
    ),
    (
        "scaling",
        "Batch size and learning rate",
        "Sweep batch sizes and learning rates to a target and see where bigger batches stop paying off. The linear and square-root rules and the gradient noise scale are drawn beside the runs.",
    ),
    (
        "cluster",
        "Data-parallel cluster",
        "Simulated workers train one model and combine their gradients with real allreduce schedules — ring, tree, parameter server and more — animated step by step. A cost model turns every message into time, for speed-up, stragglers, asynchrony and compression.",
    ),
    (
        "vision",
        "Vision",
        "Train an MLP or a small CNN on MNIST or Fashion-MNIST on your own GPU. Look at its filters, feature maps and mistakes, and draw a digit for it to read.",
    ),
    (
        "precision",
        "Precision",
        "Train the same network in fp32, fp16, bf16 and FP8 on the same batches and see what each format loses. Gradient exponents against a format's range, updates rounded away, and the dynamic loss scale at work.",
    ),
    (
        "parallelism",
        "Memory and parallelism",
        "A network too big for one simulated device, made to fit by checkpointing, ZeRO and a pipeline of micro-batches, each trained for real: memory per device by tensor class, the stage × time chart with its bubble, and the fastest layout a device budget allows.",
    ),
    (
        "bench",
        "Benchmark",
        "Time the lab's WebGPU and CPU paths on two fixed workloads. Scripts read the figures from the page.",
    ),
];

#[component]
pub fn HomePage() -> impl IntoView {
    view! {
        <header class="top">
            <h1>"Training Lab"</h1>
            <p class="tagline">"Neural-network training you can see, live in the browser. Pick a lab, or follow "
                <a href="course.html" data-testid="home-course">"the course"</a>" (predict, then run) or "
                <a href="tutorial.html">"the tutorial"</a>":"</p>
        </header>
        <main class="home" data-testid="home">
            {LABS.iter().map(|(href, name, text)| view! {
                <article>
                    <h2><a href=*href data-testid=format!("home-{name}")>{*name}</a></h2>
                    <p>{*text}</p>
                </article>
            }).collect_view()}
        </main>
    }
}
