//! A class of K workers trains the one-worker model: each step every worker computes the gradient
//! of its shard at the weights the server holds, sends it as a frame (bytes and back), the server
//! sums the frames in rank order and updates; the weights match the one-worker run's within fp32
//! summation's rounding, step after step (docs/theory.md §6.6). A worker that sends nothing
//! for a step leaves its rows out of that step's mean, and the next step splits the batch over
//! the others.

use engine::data::toy::ToyConfig;
use engine::optim::Optimizer;
use engine::train::{DataConfig, TrainConfig, Trainer};
use lab_wire::frame::GradientFrame;
use lab_wire::reduce::StepReduction;
use lab_wire::shards::assign;
use pollster::block_on;

const BATCH: usize = 30;
const STEPS: u32 = 6;

fn config(batch: usize) -> TrainConfig {
    TrainConfig {
        // The default spiral (400 points, two classes, no test split), noisier, another draw.
        data: DataConfig::Toy(ToyConfig {
            noise: 0.1,
            seed: 3,
            ..ToyConfig::default()
        }),
        optimizer: Optimizer::Sgd,
        learning_rate: 0.3,
        batch,
        ..Default::default()
    }
}

/// Step `step`'s global batch: the same rows for every run.
fn batch_rows(step: u32) -> Vec<u32> {
    (0..BATCH as u32).map(|i| (step * 97 + i * 13) % 400).collect()
}

/// A worker: a trainer whose batch is its shard's size (made when the size first comes).
struct Worker {
    trainers: Vec<Trainer>,
}

impl Worker {
    /// The worker's frame for `rows` at `params`: its gradient's and loss's sums over the rows.
    fn frame(&mut self, step: u32, rank: u16, params: &[f32], rows: &[u32]) -> GradientFrame {
        let at = match self.trainers.iter().position(|t| t.config.batch == rows.len()) {
            Some(i) => i,
            None => {
                self.trainers
                    .push(block_on(Trainer::new(config(rows.len()), None, 1)).unwrap());
                self.trainers.len() - 1
            }
        };
        let t = &mut self.trainers[at];
        t.set_params(params).unwrap();
        let (loss, mean) = block_on(t.loss_and_gradient(rows)).unwrap();
        let n = rows.len() as f32;
        GradientFrame {
            run: 1,
            step,
            rank,
            rows: rows.len() as u32,
            loss_sum: loss * n,
            values: mean.iter().map(|g| g * n).collect(),
        }
    }
}

fn close(a: &[f32], b: &[f32], what: &str) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= 2e-6 * (1.0 + x.abs()),
            "{what}: parameter {i}: {x} against {y}"
        );
    }
}

/// Trains STEPS steps with `workers` ranks, `silent(step)` naming a rank that sends nothing at
/// that step; gives each step's weights after its update.
fn class_run(workers: u16, silent: impl Fn(u32) -> Option<u16>) -> Vec<Vec<f32>> {
    let mut server = block_on(Trainer::new(config(BATCH), None, 1)).unwrap();
    let n = server.compiled.n_params;
    let mut class: Vec<Worker> = (0..workers).map(|_| Worker { trainers: Vec::new() }).collect();
    let mut live: Vec<u16> = (0..workers).collect();
    let mut out = Vec::new();
    for step in 1..=STEPS {
        let params = block_on(server.params()).unwrap();
        let rows = batch_rows(step);
        let shards = assign(BATCH, &live);
        let mut reduction = StepReduction::new(1, step, n, shards.clone());
        // Sent in reverse rank order, through bytes: the server reads what the network carried.
        for (rank, range) in shards.iter().rev() {
            if silent(step) == Some(*rank) {
                continue;
            }
            let frame = class[*rank as usize].frame(step, *rank, &params, &rows[range.clone()]);
            reduction
                .offer(GradientFrame::decode(&frame.encode(), n as u32).unwrap())
                .unwrap();
        }
        let reduced = reduction.finish().unwrap();
        // A rank that sent nothing is left out from the next step on (the server's deadline).
        live.retain(|r| !reduced.missing.contains(r));
        server.apply_gradient(&reduced.mean).unwrap();
        out.push(block_on(server.params()).unwrap());
    }
    out
}

#[test]
fn k_workers_train_the_one_worker_model_within_fp32_rounding() {
    let one = class_run(1, |_| None);
    // The one-worker class is the plain training step, bit for bit.
    let mut plain = block_on(Trainer::new(config(BATCH), None, 1)).unwrap();
    for (step, after) in (1..=STEPS).zip(&one) {
        let (_, g) = block_on(plain.loss_and_gradient(&batch_rows(step))).unwrap();
        plain.apply_gradient(&g).unwrap();
        close(
            &block_on(plain.params()).unwrap(),
            after,
            "one worker against the plain step",
        );
    }
    // 4 and 7 workers: shards of 8, 8, 7, 7 and 5, 5, 4, 4, 4, 4, 4 rows.
    for workers in [4, 7] {
        for (step, (a, b)) in one.iter().zip(class_run(workers, |_| None)).enumerate() {
            close(a, &b, &format!("{workers} workers, step {}", step + 1));
        }
    }
}

#[test]
fn a_silent_worker_leaves_its_rows_out_and_the_others_take_its_shard() {
    // Rank 2 of 4 (rows 16..23 of 30) sends nothing at step 3: that step's mean is over the
    // other 23 rows; from step 4 the three others split all 30.
    let run = class_run(4, |step| (step == 3).then_some(2));
    let mut reference = block_on(Trainer::new(config(BATCH), None, 1)).unwrap();
    let mut partial = block_on(Trainer::new(config(BATCH - 7), None, 1)).unwrap();
    for (step, after) in (1..=STEPS).zip(&run) {
        let rows = batch_rows(step);
        let g = if step == 3 {
            let kept: Vec<u32> = rows[..16].iter().chain(&rows[23..]).copied().collect();
            partial
                .set_params(&block_on(reference.params()).unwrap())
                .unwrap();
            block_on(partial.loss_and_gradient(&kept)).unwrap().1
        } else {
            block_on(reference.loss_and_gradient(&rows)).unwrap().1
        };
        reference.apply_gradient(&g).unwrap();
        close(
            &block_on(reference.params()).unwrap(),
            after,
            &format!("step {step}"),
        );
    }
}
