//! ZeRO's update executed on simulated workers (docs/theory.md §8.2), beside plain data
//! parallelism's, through the cluster lab's ring collectives. Data parallelism: a ring allreduce
//! of the workers' gradients, then every worker updates all the weights with its whole optimizer
//! state. ZeRO (stages 1–3 alike here; they differ in what is kept between steps, not in the
//! arithmetic): the ring's reduce-scatter half leaves worker i the summed chunk (i + 1) mod N,
//! the worker updates that chunk of the weights with its shard of the optimizer state, and the
//! ring's allgather half hands the updated chunks round. The ring's sums are the same in both, and
//! the update acts element by element, so the weights come out bit-identical (LARS, whose update
//! needs each layer's norms over every shard, is refused).

use engine::collectives::{chunk, Algorithm, Schedule};
use engine::error::Error;
use engine::optim::{step_cpu, Optimizer};

/// N workers' copies of the training state.
#[derive(Clone, Debug, PartialEq)]
pub struct Workers {
    /// Each worker's weights (all of them: ZeRO-3 would keep one chunk and gather the rest for
    /// each pass; the values are the same).
    pub weights: Vec<Vec<f32>>,
    /// Each worker's optimizer state: whole under data parallelism, its chunk's under ZeRO
    /// (`state_a[i]` holds chunk (i + 1) mod N only, the rest stays zero).
    pub state_a: Vec<Vec<f32>>,
    pub state_b: Vec<Vec<f32>>,
    /// Values each worker sent in the collectives so far.
    pub sent: f64,
}

impl Workers {
    pub fn new(weights: &[f32], workers: usize) -> Self {
        let n = weights.len();
        Workers {
            weights: vec![weights.to_vec(); workers],
            state_a: vec![vec![0.0; n]; workers],
            state_b: vec![vec![0.0; n]; workers],
            sent: 0.0,
        }
    }
}

fn ring(workers: usize, n: usize) -> (Schedule, Schedule) {
    let all = Schedule::new(Algorithm::Ring, workers, n, 1);
    let half = all.steps.len() / 2;
    let part = |steps: &[Vec<engine::collectives::Message>]| Schedule {
        steps: steps.to_vec(),
        ..all.clone()
    };
    (part(&all.steps[..half]), part(&all.steps[half..]))
}

fn sent_per_worker(s: &Schedule) -> f64 {
    let values: usize = s.steps.iter().flatten().map(|m| m.len).sum();
    values as f64 / s.workers as f64
}

/// One step from the workers' gradients (each on its share of the batch; their mean is the
/// batch's gradient), `zero` choosing ZeRO's sharded update over data parallelism's.
pub fn step(
    w: &mut Workers,
    mut grads: Vec<Vec<f32>>,
    optimizer: Optimizer,
    lr: f32,
    t: u32,
    zero: bool,
) -> Result<(), Error> {
    if matches!(optimizer, Optimizer::Lars { .. }) {
        return Err(Error::Config(
            "LARS needs each layer's norms across every shard: not sharded here".into(),
        ));
    }
    let (p, n) = (w.weights.len(), w.weights[0].len());
    if grads.len() != p || grads.iter().any(|g| g.len() != n) {
        return Err(Error::Mismatch(format!("{p} gradients of {n} values needed")));
    }
    let (reduce_scatter, allgather) = ring(p, n);
    reduce_scatter.execute(&mut grads);
    w.sent += sent_per_worker(&reduce_scatter);
    let scale = 1.0 / p as f32;
    if !zero {
        allgather.execute(&mut grads);
        w.sent += sent_per_worker(&allgather);
        let states = w.state_a.iter_mut().zip(w.state_b.iter_mut());
        for ((g, weights), (sa, sb)) in grads.iter().zip(w.weights.iter_mut()).zip(states) {
            let mean: Vec<f32> = g.iter().map(|g| g * scale).collect();
            step_cpu(optimizer, &mean, weights, sa, sb, lr, t);
        }
        return Ok(());
    }
    let states = w.state_a.iter_mut().zip(w.state_b.iter_mut());
    for (i, ((g, weights), (sa, sb))) in grads.iter().zip(w.weights.iter_mut()).zip(states).enumerate() {
        // After the reduce-scatter, worker i holds the sum of chunk (i + 1) mod p.
        let (a, z) = chunk(n, p, (i + 1) % p);
        let mean: Vec<f32> = g[a..z].iter().map(|g| g * scale).collect();
        step_cpu(
            optimizer,
            &mean,
            &mut weights[a..z],
            &mut sa[a..z],
            &mut sb[a..z],
            lr,
            t,
        );
    }
    allgather.execute(&mut w.weights);
    w.sent += sent_per_worker(&allgather);
    Ok(())
}
