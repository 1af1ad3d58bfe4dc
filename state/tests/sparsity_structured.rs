//! Structured pruning and the sparse kernel on the sparsity lab's own networks and digits:
//! removing whole units leaves a smaller dense network that predicts what the masked dense one
//! does (an MLP's neurons, a CNN's filters); retraining the masked network is training that
//! smaller network; and the unstructured network run by the CSR kernel classifies the test digits
//! exactly as the masked dense network does.

use engine::sparse::SparseMlp;
use engine::train::{TrainConfig, Trainer};
use lab_sims::sparsity::lottery::{self, Carry, Condition};
use lab_sims::sparsity::masks;
use lab_sims::sparsity::structured::{compact, kept_widths, prune_both, smaller_config, unit_mask};
use lab_state::lab::LabState;
use lab_state::sparsity::{SparsityLab, CHUNK, PREDICT_ROWS};
use pollster::block_on;

/// The lab's config for `query` (unmasked), its training digits and 500 test digits.
fn setup(query: &str) -> (TrainConfig, engine::data::Dataset, engine::data::Dataset) {
    let (s, _) = SparsityLab::from_query(query);
    let config = TrainConfig { masked: false, ..s.config() };
    let (train, test) = config.data.load(crate::lessons::read_data).unwrap();
    (config, train, test.unwrap().head(500))
}

fn largest_difference(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// Structured pruning leaves a smaller dense network: run at its own size, it predicts what the
/// dense network with those units' weights zeroed predicts (at the initial weights: the equality
/// holds for any weights) — 12 of the MLP's 100 neurons, and 3 of 8 and 6 of 16 filters of the CNN.
#[test]
fn the_smaller_network_predicts_what_the_masked_dense_one_does() {
    for (query, widths) in [("images=500", vec![784, 12, 10]), ("images=500&net=cnn", vec![1, 3, 6, 10])] {
        let (config, train, test) = setup(query);
        let mut dense = block_on(Trainer::with_data(config.clone(), train.clone(), None, PREDICT_ROWS)).unwrap();
        let params = block_on(dense.params()).unwrap();
        let (mask, kept) = unit_mask(&params, &dense.compiled, &widths).unwrap();
        dense.set_params(&masks::apply(&params, &mask)).unwrap();
        let (small_config, _) = smaller_config(&config, &dense.compiled, &widths).unwrap();
        let mut small = block_on(Trainer::with_data(small_config, train, None, PREDICT_ROWS)).unwrap();
        small.set_params(&compact(&params, &dense.compiled, &kept).unwrap()).unwrap();
        let (a, b) = (block_on(dense.probabilities(&test)).unwrap(), block_on(small.probabilities(&test)).unwrap());
        let worst = largest_difference(&a, &b);
        assert!(worst < 1e-5, "{query}: largest difference {worst}");
    }
}

/// The structured condition trains the dense network masked to whole units; what it learns is
/// what the smaller network learns from the same start on the same batches: its kept weights
/// (held to 10⁻³; the masked products' extra terms are exact zeros, and here they agree exactly).
#[test]
fn retraining_the_masked_network_is_training_the_smaller_one() {
    for query in ["images=1000&steps=40&rounds=1&conditions=ticket,structured", "images=1000&steps=40&rounds=1&conditions=ticket,structured&net=cnn"] {
        let (s, _) = SparsityLab::from_query(query);
        let (config, plan) = (s.config(), s.plan());
        let (train, test) = config.data.load(crate::lessons::read_data).unwrap();
        let test = test.unwrap().head(500);
        let mut carry = Carry::default();
        let mut t = block_on(Trainer::with_data(config.clone(), train.clone(), None, PREDICT_ROWS)).unwrap();
        block_on(lottery::run(&mut t, &plan, (0, Condition::Dense), &mut carry, (&test, CHUNK), |_| async { true })).unwrap();
        let trained = carry.trained.clone().unwrap();
        let mut masked = block_on(Trainer::with_data(config.clone(), train.clone(), None, PREDICT_ROWS)).unwrap();
        block_on(lottery::run(&mut masked, &plan, (1, Condition::Structured), &mut carry, (&test, CHUNK), |_| async { true })).unwrap();
        let widths = kept_widths(&masked.compiled, 0.5).unwrap();
        let (_, kept) = unit_mask(&trained, &masked.compiled, &widths).unwrap();
        let (small_config, _) = smaller_config(&TrainConfig { masked: false, ..config }, &masked.compiled, &widths).unwrap();
        let mut small = block_on(Trainer::with_data(small_config, train, None, PREDICT_ROWS)).unwrap();
        small.set_params(&compact(&trained, &masked.compiled, &kept).unwrap()).unwrap();
        block_on(small.train(plan.steps as usize)).unwrap();
        let from_masked = compact(&block_on(masked.params()).unwrap(), &masked.compiled, &kept).unwrap();
        let start = compact(&trained, &masked.compiled, &kept).unwrap();
        assert!(largest_difference(&from_masked, &start) > 1e-3, "{query}: the retraining moved the weights");
        let worst = largest_difference(&from_masked, &block_on(small.params()).unwrap());
        eprintln!("{query}: widths {widths:?}, largest difference {worst:e}");
        assert!(worst < 1e-3, "{query}: largest difference {worst}");
    }
}

/// The CSR kernel runs the unstructured pruned MLP: on the 500 test digits it classifies each as
/// the masked dense network does, and its weights take the bytes the lab counts (values, 2-byte
/// indices, row pointers) — at 75 % pruned, on the CPU path and on lavapipe.
#[test]
fn the_csr_network_classifies_as_the_masked_dense_one() {
    let (config, train, test) = setup("images=1000");
    let gpu = std::rc::Rc::new(block_on(engine::gpu::GpuContext::new()).expect("a GPU adapter (lavapipe)"));
    for gpu in [None, Some(gpu)] {
        let mut dense = block_on(Trainer::with_data(config.clone(), train.clone(), gpu.clone(), PREDICT_ROWS)).unwrap();
        block_on(dense.train(60)).unwrap();
        let trained = block_on(dense.params()).unwrap();
        let pruned = prune_both(&trained, &dense.compiled, 0.75).unwrap();
        let unstructured = masks::apply(&trained, &pruned.unstructured);
        dense.set_params(&unstructured).unwrap();
        let want = block_on(dense.evaluate(&test)).unwrap().1;
        let mut sparse = block_on(SparseMlp::new(&dense.compiled, &unstructured, PREDICT_ROWS, gpu.clone())).unwrap();
        let got = block_on(sparse.accuracy(&test)).unwrap();
        let counted = lab_sims::sparsity::cost::csr(&dense.compiled, &pruned.unstructured).bytes;
        eprintln!("GPU {}: masked dense {want}, CSR {got}; {} bytes", gpu.is_some(), sparse.bytes());
        assert_eq!(got, want);
        assert_eq!(sparse.bytes() as f64, counted);
    }
}
