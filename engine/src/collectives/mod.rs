//! Allreduce as real schedules (docs/theory.md §6.2): each algorithm is a list of steps, each step a set
//! of messages "node a sends elements [start, start + len) to node b, which adds them in (reduce)
//! or takes them (copy)". The same schedule is executed on real gradient buffers, charged by the
//! α-β-γ cost model, and (in the app) animated, so the three cannot disagree.

use serde::{Deserialize, Serialize};

mod cost;
mod execute;

pub use cost::{cost, Cost, Link, Topology};
pub use execute::Coverage;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Algorithm {
    /// Every worker sends its gradient to every other, one partner per step.
    Naive,
    /// Workers send to `shards` servers (each owns a slice of the vector), which send the sums back.
    ParameterServer { shards: usize },
    /// Reduce-scatter then allgather around a ring, in p chunks.
    Ring,
    /// Binomial-tree reduce to worker 0, then binomial-tree broadcast.
    Tree,
    /// Recursive doubling (butterfly): log2 p exchanges of the whole vector.
    RecursiveDoubling,
    /// Recursive halving (reduce-scatter) then recursive doubling (allgather).
    Rabenseifner,
    /// Reduce inside each node to its first GPU, ring allreduce among those, broadcast inside.
    Hierarchical,
}

impl Algorithm {
    pub fn label(self) -> &'static str {
        match self {
            Algorithm::Naive => "naive all-to-all",
            Algorithm::ParameterServer { .. } => "parameter server",
            Algorithm::Ring => "ring",
            Algorithm::Tree => "binomial tree",
            Algorithm::RecursiveDoubling => "recursive doubling (butterfly)",
            Algorithm::Rabenseifner => "Rabenseifner (halving + doubling)",
            Algorithm::Hierarchical => "hierarchical (intra-node, then ring between nodes)",
        }
    }
}

/// What a message carries: the sender's own gradient, or its buffer as it is at the step's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    Own,
    Current,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub from: usize,
    pub to: usize,
    pub start: usize,
    pub len: usize,
    /// Add into the receiver's buffer (true) or overwrite it (false).
    pub reduce: bool,
    pub source: Source,
}

/// The steps of one allreduce over `workers` workers (nodes 0..workers) and `servers` parameter
/// servers (nodes workers..workers + servers) of vectors of `n` elements. Messages in one step
/// travel at once; each reads its sender's buffer as it was when the step began.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    pub workers: usize,
    pub servers: usize,
    pub n: usize,
    pub steps: Vec<Vec<Message>>,
}

/// [start, end) of chunk `i` of `parts` near-equal chunks of 0..n.
pub fn chunk(n: usize, parts: usize, i: usize) -> (usize, usize) {
    let parts = parts.max(1);
    (n * i / parts, n * (i + 1) / parts)
}

fn msg(from: usize, to: usize, (start, end): (usize, usize), reduce: bool) -> Option<Message> {
    (end > start).then_some(Message {
        from,
        to,
        start,
        len: end - start,
        reduce,
        source: Source::Current,
    })
}

/// Ring allreduce among `members` (node ids in ring order) over 0..n.
fn ring(members: &[usize], n: usize, steps: &mut Vec<Vec<Message>>) {
    let p = members.len();
    if p < 2 {
        return;
    }
    // Reduce-scatter: after p − 1 steps member i holds the sum of chunk (i + 1) mod p.
    for s in 0..p - 1 {
        let step = (0..p)
            .filter_map(|i| {
                msg(
                    members[i],
                    members[(i + 1) % p],
                    chunk(n, p, (i + p - s) % p),
                    true,
                )
            })
            .collect();
        steps.push(step);
    }
    // Allgather: pass the finished chunks on around the ring.
    for s in 0..p - 1 {
        let step = (0..p)
            .filter_map(|i| {
                msg(
                    members[i],
                    members[(i + 1) % p],
                    chunk(n, p, (i + 1 + p - s) % p),
                    false,
                )
            })
            .collect();
        steps.push(step);
    }
}

fn largest_power_of_two(p: usize) -> usize {
    1 << (usize::BITS - 1 - p.leading_zeros())
}

/// For the halving/doubling family on p not a power of two: the extra workers fold their vectors
/// into partners first (and are sent the result last).
fn fold_extras(p: usize, n: usize, steps: &mut Vec<Vec<Message>>) -> usize {
    let p2 = largest_power_of_two(p);
    if p2 < p {
        steps.push((p2..p).filter_map(|e| msg(e, e - p2, (0, n), true)).collect());
    }
    p2
}

fn unfold_extras(p: usize, p2: usize, n: usize, steps: &mut Vec<Vec<Message>>) {
    if p2 < p {
        steps.push((p2..p).filter_map(|e| msg(e - p2, e, (0, n), false)).collect());
    }
}

impl Schedule {
    pub fn new(algorithm: Algorithm, workers: usize, n: usize, gpus_per_node: usize) -> Self {
        let p = workers.max(1);
        let mut steps: Vec<Vec<Message>> = Vec::new();
        let mut servers = 0;
        match algorithm {
            Algorithm::Naive => {
                for s in 1..p {
                    steps.push(
                        (0..p)
                            .filter_map(|i| {
                                msg(i, (i + s) % p, (0, n), true).map(|m| Message {
                                    source: Source::Own,
                                    ..m
                                })
                            })
                            .collect(),
                    );
                }
            }
            Algorithm::ParameterServer { shards } => {
                servers = shards.clamp(1, n.max(1));
                let server = |k: usize| p + k;
                // Servers start from zero and add every worker's slice.
                steps.push(
                    (0..servers)
                        .flat_map(|k| {
                            (0..p).filter_map(move |i| msg(i, server(k), chunk(n, servers, k), true))
                        })
                        .collect(),
                );
                steps.push(
                    (0..servers)
                        .flat_map(|k| {
                            (0..p).filter_map(move |i| msg(server(k), i, chunk(n, servers, k), false))
                        })
                        .collect(),
                );
            }
            Algorithm::Ring => ring(&(0..p).collect::<Vec<_>>(), n, &mut steps),
            Algorithm::Tree => {
                let levels = usize::BITS - (p - 1).leading_zeros(); // ⌈log2 p⌉
                for k in 0..levels {
                    let d = 1 << k;
                    steps.push(
                        (0..p)
                            .filter(|i| i % (2 * d) == d)
                            .filter_map(|i| msg(i, i - d, (0, n), true))
                            .collect(),
                    );
                }
                for k in (0..levels).rev() {
                    let d = 1 << k;
                    steps.push(
                        (0..p)
                            .filter(|i| i % (2 * d) == 0 && i + d < p)
                            .filter_map(|i| msg(i, i + d, (0, n), false))
                            .collect(),
                    );
                }
            }
            Algorithm::RecursiveDoubling => {
                let p2 = fold_extras(p, n, &mut steps);
                let mut d = 1;
                while d < p2 {
                    steps.push((0..p2).filter_map(|i| msg(i, i ^ d, (0, n), true)).collect());
                    d *= 2;
                }
                unfold_extras(p, p2, n, &mut steps);
            }
            Algorithm::Rabenseifner => {
                let p2 = fold_extras(p, n, &mut steps);
                // Each worker's segment as the halving narrows it.
                let mut segment = vec![(0usize, n); p2];
                let mut d = p2 / 2;
                let mut history = Vec::new();
                while d >= 1 {
                    let mut step = Vec::new();
                    let before = segment.clone();
                    for i in 0..p2 {
                        let (lo, hi) = before[i];
                        let mid = lo + (hi - lo) / 2;
                        let (keep, give) = if i & d == 0 {
                            ((lo, mid), (mid, hi))
                        } else {
                            ((mid, hi), (lo, mid))
                        };
                        step.extend(msg(i, i ^ d, give, true));
                        segment[i] = keep;
                    }
                    steps.push(step);
                    history.push(d);
                    d /= 2;
                }
                // Allgather: the same partners in reverse order, each sending the segment it holds.
                for &d in history.iter().rev() {
                    let before = segment.clone();
                    steps.push((0..p2).filter_map(|i| msg(i, i ^ d, before[i], false)).collect());
                    for i in 0..p2 {
                        let (a, b) = (before[i], before[i ^ d]);
                        segment[i] = (a.0.min(b.0), a.1.max(b.1));
                    }
                }
                unfold_extras(p, p2, n, &mut steps);
            }
            Algorithm::Hierarchical => {
                let g = gpus_per_node.max(1);
                let leaders: Vec<usize> = (0..p).step_by(g).collect();
                steps.push(
                    (0..p)
                        .filter(|i| i % g != 0)
                        .filter_map(|i| msg(i, i - i % g, (0, n), true))
                        .collect(),
                );
                ring(&leaders, n, &mut steps);
                steps.push(
                    (0..p)
                        .filter(|i| i % g != 0)
                        .filter_map(|i| msg(i - i % g, i, (0, n), false))
                        .collect(),
                );
            }
        }
        steps.retain(|s| !s.is_empty());
        Schedule {
            workers: p,
            servers,
            n,
            steps,
        }
    }
}
