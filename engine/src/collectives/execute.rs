//! Running a schedule on real gradient buffers, and the contributions each node holds after
//! every step (what the app animates).

use serde::{Deserialize, Serialize};

use super::{Message, Schedule, Source};

impl Schedule {
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
