//! Allreduce as real schedules (docs/theory.md §6.2): each algorithm is a list of steps, each step a set
//! of messages "node a sends elements [start, start + len) to node b, which adds them in (reduce)
//! or takes them (copy)". The same schedule is executed on real gradient buffers, charged by the
//! α-β-γ cost model, and (in the app) animated, so the three cannot disagree.

use serde::{Deserialize, Serialize};

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

    /// Runs the schedule on the workers' gradients (one vector of `n` each); afterwards every
    /// worker's vector holds the sum of all of them. Server buffers are internal.
    pub fn execute(&self, grads: &mut [Vec<f32>]) {
        assert_eq!(grads.len(), self.workers, "one gradient per worker");
        // Only the naive schedule sends workers' own gradients after their buffers have changed.
        let uses_own = self.steps.iter().flatten().any(|m| m.source == Source::Own);
        let own: Vec<Vec<f32>> = if uses_own { grads.to_vec() } else { Vec::new() };
        let mut servers: Vec<Vec<f32>> = (0..self.servers).map(|_| vec![0.0; self.n]).collect();
        let workers = self.workers;
        // A step's messages travel at once: each reads its sender's buffer as the step began.
        // Where no message writes what another reads (ring, halving, tree…) they apply in place;
        // otherwise payloads are staged in one scratch buffer first.
        let mut written: Vec<Vec<(usize, usize)>> = vec![Vec::new(); workers + self.servers];
        let clash: Vec<bool> = self
            .steps
            .iter()
            .map(|step| {
                written.iter_mut().for_each(Vec::clear);
                for m in step {
                    written[m.to].push((m.start, m.start + m.len));
                }
                step.iter().any(|m| {
                    m.source == Source::Current
                        && written[m.from]
                            .iter()
                            .any(|&(a, z)| a < m.start + m.len && m.start < z)
                })
            })
            .collect();
        // Elements never mix, so the whole schedule can run one tile of elements at a time: all
        // workers' tiles then stay in cache instead of every step sweeping every buffer.
        let mut payloads: Vec<f32> = Vec::new();
        let mut tile_start = 0;
        while tile_start < self.n {
            let tile_end = (tile_start + EXECUTE_TILE).min(self.n);
            let within = |m: &Message| {
                let (a, z) = (m.start.max(tile_start), (m.start + m.len).min(tile_end));
                (a < z).then_some(a..z)
            };
            for (step, &clash) in self.steps.iter().zip(&clash) {
                if !clash {
                    for m in step {
                        if let Some(r) = within(m) {
                            let (src, dst) = buffers(grads, &mut servers, &own, m);
                            deliver(&mut dst[r.clone()], &src[r], m.reduce);
                        }
                    }
                    continue;
                }
                payloads.clear();
                for m in step {
                    if let Some(r) = within(m) {
                        let src = match m.source {
                            Source::Own => &own[m.from],
                            Source::Current if m.from < workers => &grads[m.from],
                            Source::Current => &servers[m.from - workers],
                        };
                        payloads.extend_from_slice(&src[r]);
                    }
                }
                let mut at = 0;
                for m in step {
                    if let Some(r) = within(m) {
                        let payload = &payloads[at..at + r.len()];
                        at += r.len();
                        let buf = if m.to < workers {
                            &mut grads[m.to]
                        } else {
                            &mut servers[m.to - workers]
                        };
                        deliver(&mut buf[r], payload, m.reduce);
                    }
                }
            }
            tile_start = tile_end;
        }
    }

    /// Which workers' gradients each node's buffer holds, before the first step and after each
    /// step: the schedule run on sets (bit w = worker w's contribution) instead of numbers, so an
    /// animation shows exactly what `execute` does. Workers beyond 64 are not tracked.
    pub fn coverage(&self) -> Coverage {
        let mut bounds: Vec<usize> = vec![0, self.n];
        for m in self.steps.iter().flatten() {
            bounds.push(m.start);
            bounds.push(m.start + m.len);
        }
        bounds.sort_unstable();
        bounds.dedup();
        let segments = bounds.len().saturating_sub(1);
        let bit = |w: usize| if w < 64 { 1u64 << w } else { 0 };
        let nodes = self.workers + self.servers;
        let own: Vec<u64> = (0..nodes)
            .map(|k| if k < self.workers { bit(k) } else { 0 })
            .collect();
        let mut state: Vec<Vec<u64>> = own.iter().map(|&b| vec![b; segments]).collect();
        let segment_range = |m: &Message| {
            let a = bounds.partition_point(|&b| b < m.start);
            let z = bounds.partition_point(|&b| b < m.start + m.len);
            a..z
        };
        let mut frames = vec![state.clone()];
        for step in &self.steps {
            let before = state.clone();
            for m in step {
                for seg in segment_range(m) {
                    let sent = match m.source {
                        Source::Own => own[m.from],
                        Source::Current => before[m.from][seg],
                    };
                    let dst = &mut state[m.to][seg];
                    *dst = if m.reduce { *dst | sent } else { sent };
                }
            }
            frames.push(state.clone());
        }
        Coverage { bounds, frames }
    }
}

/// Elements per tile of `execute`: 8 KiB of each buffer.
const EXECUTE_TILE: usize = 2048;

fn deliver(dst: &mut [f32], payload: &[f32], reduce: bool) {
    if reduce {
        dst.iter_mut().zip(payload).for_each(|(d, s)| *d += s);
    } else {
        dst.copy_from_slice(payload);
    }
}

/// The sender's buffer (read) and the receiver's (written) of a message, borrowed together:
/// nodes below `grads.len()` are workers, the rest servers; a message never goes to its sender.
fn buffers<'a>(
    grads: &'a mut [Vec<f32>],
    servers: &'a mut [Vec<f32>],
    own: &'a [Vec<f32>],
    m: &Message,
) -> (&'a [f32], &'a mut [f32]) {
    let workers = grads.len();
    let (from, to) = (m.from, m.to);
    debug_assert_ne!(from, to, "a message to its sender");
    if m.source == Source::Own {
        let dst = if to < workers {
            &mut grads[to]
        } else {
            &mut servers[to - workers]
        };
        return (&own[from], dst);
    }
    match (from < workers, to < workers) {
        (true, true) => pair(grads, from, to),
        (false, false) => pair(servers, from - workers, to - workers),
        (true, false) => (&grads[from], &mut servers[to - workers]),
        (false, true) => (&servers[from - workers], &mut grads[to]),
    }
}

/// `v[a]` to read and `v[b]` to write (a ≠ b).
fn pair(v: &mut [Vec<f32>], a: usize, b: usize) -> (&[f32], &mut [f32]) {
    if a < b {
        let (lo, hi) = v.split_at_mut(b);
        (&lo[a], &mut hi[0])
    } else {
        let (lo, hi) = v.split_at_mut(a);
        (&hi[0], &mut lo[b])
    }
}

/// The contributions each node holds over a schedule: `frames[k][node][segment]` is the set of
/// workers (as bits) whose gradients are summed into elements `bounds[segment]..bounds[segment +
/// 1]` of that node's buffer after `k` steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    pub bounds: Vec<usize>,
    pub frames: Vec<Vec<Vec<u64>>>,
}

/// One class of link in the Hockney model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// Seconds per message.
    pub alpha: f64,
    /// Seconds per byte sent.
    pub beta: f64,
    /// Seconds per byte reduced.
    pub gamma: f64,
}

impl Link {
    /// Presets: latency and bandwidth of common links (bandwidth per direction), and the
    /// reduction speed of a GPU adding bytes (γ ≈ 1 / 200 GB/s).
    pub fn preset(name: &str) -> Option<Link> {
        let (alpha, gb_per_s) = match name {
            "nvlink" => (1e-6, 150.0),
            "pcie" => (2e-6, 16.0),
            "infiniband" => (2e-6, 25.0),
            "100gbe" => (10e-6, 12.5),
            "10gbe" => (25e-6, 1.25),
            "wifi" => (2e-3, 0.05),
            _ => return None,
        };
        Some(Link {
            alpha,
            beta: 1.0 / (gb_per_s * 1e9),
            gamma: 1.0 / 200e9,
        })
    }

    pub const PRESETS: [&'static str; 6] = ["nvlink", "pcie", "infiniband", "100gbe", "10gbe", "wifi"];
}

/// The network: `gpus_per_node` workers share a node and talk over `intra`; nodes (and parameter
/// servers) talk over `inter`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    pub gpus_per_node: usize,
    pub intra: Link,
    pub inter: Link,
}

impl Topology {
    /// One link class for everything.
    pub fn flat(link: Link) -> Self {
        Topology {
            gpus_per_node: 1,
            intra: link,
            inter: link,
        }
    }

    fn link(&self, s: &Schedule, a: usize, b: usize) -> Link {
        let g = self.gpus_per_node.max(1);
        if a < s.workers && b < s.workers && a / g == b / g {
            self.intra
        } else {
            self.inter
        }
    }
}

/// What a schedule costs on a topology.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Seconds of each step.
    pub step_seconds: Vec<f64>,
    pub seconds: f64,
    /// Bytes on the wire, all messages together.
    pub bytes: f64,
}

/// Charges each step of a schedule under the one-port Hockney α-β-γ model (docs/theory.md §6.2):
/// messages of one step go at once, but each node sends one message at a time and receives one at
/// a time (links are full duplex), so a node's step time is the larger of its sending and its
/// receiving side — one α per message plus its bytes at β — plus the bytes it reduces at γ. A
/// parameter server receiving p messages therefore pays p·α, as the closed forms of §6.2 say.
pub fn cost(s: &Schedule, topology: &Topology, bytes_per_element: f64) -> Cost {
    let nodes = s.workers + s.servers;
    let mut step_seconds = Vec::with_capacity(s.steps.len());
    let mut bytes = 0.0;
    for step in &s.steps {
        let (mut sent, mut received, mut reduced) = (vec![0.0; nodes], vec![0.0; nodes], vec![0.0; nodes]);
        for m in step {
            let link = topology.link(s, m.from, m.to);
            let b = m.len as f64 * bytes_per_element;
            bytes += b;
            let seconds = link.alpha + b * link.beta;
            sent[m.from] += seconds;
            received[m.to] += seconds;
            if m.reduce {
                reduced[m.to] += b * link.gamma;
            }
        }
        let busiest = (0..nodes)
            .map(|i| sent[i].max(received[i]) + reduced[i])
            .fold(0.0, f64::max);
        step_seconds.push(busiest);
    }
    Cost {
        seconds: step_seconds.iter().sum(),
        step_seconds,
        bytes,
    }
}
