//! The sparsity lab's "what to try → what you see → why" panel (`crate::lessons::lesson` draws it).

use crate::lessons::{step, Step};

pub const STEPS: &[Step] = &[
    step(
        "press Run (a dense MLP 784-100-10 and three rounds of pruning half its weights, each round five runs of 200 steps on 5,000 MNIST digits: under a minute on the CPU path).",
        "at 87.5 % of the weights pruned, the ticket — the surviving weights reset to their initial values and trained again — reaches about the dense network's test accuracy; the same mask from fresh random weights, and a random mask of the same sparsity, end several points lower and learn more slowly.",
        "Frankle & Carbin's lottery ticket hypothesis: a dense, randomly initialized network contains a subnetwork that, trained alone from the same initial values, matches the full network. The mask alone is not the ticket (fresh weights lose), nor is the sparsity (a random mask loses): it is the mask together with the initial values it was found with. The native test asserts it at seeds 1 to 5 (state/tests/sparsity_lab.rs).",
    ),
    step(
        "look at the dashed lines of the accuracy chart: the trained dense network pruned once, not retrained.",
        "pruned globally, the network loses about a point at 75 % pruned and collapses past 90 % (to 60–75 % at 97 %); pruned per layer it falls much sooner (66–84 % already at 75 %).",
        "most trained weights are small and contribute little, so magnitude pruning removes them almost for free (Han et al. 2015); past a point it cuts weights the function needs, and only retraining (the ticket, or fine-tuning) recovers. A global threshold chooses how much each layer loses: the first layer, 78,400 of the 79,400 weights and most of them small, gives up 88 % at the third round while the output layer's 1,000 weights lose under 40 % (the layer chart). Per layer, the output layer loses as large a share as the first, and its weights are the ones every answer passes through.",
    ),
    step(
        "set the conditions to ticket, rewind, finetune and Run (or read the finetune line the defaults draw).",
        "the ticket rewound to step 20 of the dense run ends within a point of the ticket rewound to step 0, at every round; the dense network pruned once and fine-tuned from its trained values ends about level with the ticket or a little above.",
        "rewinding to an early step (Frankle et al. 2020) is what makes tickets exist in large networks, where rewinding to step 0 fails; on an MLP on MNIST step 0 already works, so the two match. Fine-tuning keeps the trained values and has trained twice as long (the dense run's steps, then its own), so it starts near the dense accuracy; the ticket reaches it from the initial values in the same steps as the dense run.",
    ),
    step(
        "look at the table of structured against unstructured pruning at 87.5 %, then at the structured and finetune lines of the chart.",
        "without retraining the scattered weights keep about 84 % accuracy, twelve whole neurons 35–47 %; retrained, the twelve-neuron network climbs back to 82–85 %, a few points below the scattered mask fine-tuned alike (at 50 % the two end level). CSR stores the kept weights in 19 % of the dense bytes, the smaller network in 12 %; the last column times the three forward passes on your backend: dense, the sparse kernel over the CSR weights, and the smaller network.",
        "unstructured pruning keeps whichever weights matter, wherever they are, so it keeps the accuracy; but each kept weight needs its index (2 bytes beside its 4), and a sparse kernel must follow each index to its input — irregular reads that give back much of what skipping the zeros saves (on an H200 the lab's CSR kernel beat the dense product of a 1024-wide network only somewhere between 87.5 % and 95 % pruned). Removing whole neurons (or a CNN's filters: choose the CNN) leaves a smaller dense network that any kernel runs faster, at a cost in accuracy that retraining recovers, most of it (theory §10.5).",
    ),
    step(
        "set the group lasso λ to 0.003 and Run; look at the structured table's first row (half the neurons removed).",
        "the network that removes half its neurons without retraining keeps more of its accuracy than without group lasso (at every seed from 1 to 5, by 1 to 9 points); at 75 % and 87.5 % it gains at some seeds and loses at others.",
        "group lasso adds λ·Σ‖W_o‖₂ over the neurons' incoming weights (Wen et al. 2016); its gradient λ·W_o/‖W_o‖₂ pulls a whole row toward zero at the same rate however small it already is, so training leaves some neurons nearly empty, and removing them costs little. In 200 steps it has emptied only a few, enough for half the neurons but not for seven eighths (theory §10.5).",
    ),
    step(
        "set the conditions to ticket, random, set, rigl and Run.",
        "SET and RigL — sparse from the first step, their masks changed as they train — end about a point above the static random mask and below the ticket.",
        "dynamic sparse training never trains the dense network, so it costs a quarter of the ticket's search here; on this small network and short budget, regrowing helps little, and RigL's gains in the paper come on large networks trained several times longer (theory §10.4).",
    ),
];
