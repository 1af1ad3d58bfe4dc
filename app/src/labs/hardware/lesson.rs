//! The hardware lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "press Run (the probes, then W1's training step kernel by kernel, then matrix products of 8 to 512 and the first layer's product in each tile shape: seconds).",
        "the roofline: a slope (memory bandwidth) rising to a flat roof (arithmetic), both measured here, and the step's kernels placed under it by their FLOPs per byte. The first layer's forward and weight-gradient kernels have the most arithmetic per byte (about 19 and 20); the output layer's products about 4; the update (SGD) has 1/6 of a FLOP a byte, and the loss no arithmetic counted.",
        "a kernel of intensity I FLOPs per byte can go no faster than min(peak, I × bandwidth) (Williams et al. 2009). Below the ridge, where the roofs meet, memory bounds it; above, arithmetic. The intensities are hand counts of what each kernel must read and write (theory §11.1); the times are this device's.",
    ),
    step(
        "look at the step's graph under the roofline, then turn \"fused step\" off and Run again.",
        "W1's 15 ops: down the left the batch, the first layer's product, its bias and ReLU, the output layer's product and bias; the loss at the foot; up the right each layer's gradients, beside the layer. Fused, coloured outlines join them into 6 kernels; unfused, 15 dispatches, and the kernels' table has a row for each. The backward costs 1.01× the forward's FLOPs here; choose W2 and it costs 1.64×.",
        "backpropagation does two products a layer — the weights' gradient and the input's — for the forward's one, but the first layer's input is the data, whose gradient nothing needs (theory §11.5). Each line from the left half to the right is a tensor the forward keeps for the backward: the activation memory training needs.",
    ),
    step(
        "read the table's \"bound\" column, then switch the backend and Run again.",
        "on the CPU path the ridge is about one FLOP per byte (0.3 to 2 measured here) and every product is compute-bound; a real GPU's ridge lies far higher (about 20 by an H100 SXM's published fp32 peak, 67 TFLOP/s, over its 3.35 TB/s), and more of the step falls under the memory roof. The same kernel changes sides with the device.",
        "a GPU has far more arithmetic per byte of bandwidth than a processor core. What bounds a kernel is a property of the kernel and the device together; on an emulated GPU (SwiftShader, lavapipe) the figures are a processor's, which the page says.",
    ),
    step(
        "look at the blue sweep: products of n × n, intensity n/6.",
        "small products sit far below both roofs; as n grows they climb toward the compute roof, and the largest come closest.",
        "a small product's time is mostly fixed cost (a dispatch, a tile that is half empty); the larger one reuses each value it reads n times (theory §11.2). That reuse is what tiling in workgroup memory buys.",
    ),
    step(
        "look at the systolic array with the defaults (W1's first layer, 64 × 784 by 784 × 128, on 16 × 16), weight-stationary; drag the cycle.",
        "the PEs load their weights row by row, then a diagonal wave of multiply-adds fills the array and drains it. The table: weight-stationary keeps 58 % of the array busy, output-stationary 96 %.",
        "weight-stationary pays a load (16 cycles) and a fill and drain (30 cycles) for every 16 × 16 slice of W, and streams only 64 rows (the batch) through it; output-stationary streams all 784 of k per tile. A longer stream amortizes the fill: set m to 1024 and weight-stationary climbs to 96 %. That is why accelerators want large batches.",
    ),
    step(
        "look at the distributed roofline below the array.",
        "the cluster lab's model, its batch of 64 split among more and more workers: each worker's point walks left, and from 16 workers on it falls off the compute roof onto the network's slope.",
        "a worker's FLOPs shrink with its share of the batch, but a ring allreduce still sends about twice the gradient each step: FLOPs per byte sent fall until the link, not the arithmetic, sets the pace (theory §11.4). Larger batches per worker, faster links, compression and overlap each move the point right or the roof up — the cluster lab's levers.",
    ),
];
