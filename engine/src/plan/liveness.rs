//! A liveness-based memory plan (docs/theory.md §8.4): the backward's gradient buffers (the
//! logits' gradient, each layer's input gradient, a skip's, a convolution's partial sums) live
//! only from the kernel that writes them to the last that reads them, so buffers whose lives do
//! not overlap share memory, as a framework frees a tensor after its last use and reuses it.
//! Everything else (weights, their gradients, the optimizer's state, the activations the
//! forward keeps, the data, the logs) keeps its own memory for the whole run.

use std::ops::RangeInclusive;

use crate::kernel::{BufId, BufferTable, Kernel};

/// The buffers that live within one backward pass: written before they are read in every step,
/// and never read by the host.
pub fn transient(name: &str) -> bool {
    name == "batch.d_logits" || name.starts_with("train.d_") || name.contains("_partials")
}

/// Where a buffer is used in each kernel list: the first and last kernel that binds it.
type Lives = Vec<Option<RangeInclusive<usize>>>;

/// Each buffer's lives in every list, by buffer.
fn lives(buffers: usize, lists: &[&[Box<dyn Kernel>]]) -> Vec<Lives> {
    let mut lives: Vec<Lives> = vec![vec![None; lists.len()]; buffers];
    for (l, list) in lists.iter().enumerate() {
        for (i, k) in list.iter().enumerate() {
            for (_, id) in k.bindings() {
                let life = &mut lives[id.0][l];
                *life = Some(life.as_ref().map_or(i, |r| *r.start())..=i);
            }
        }
    }
    lives
}

/// True when two buffers are live at once in some list.
fn overlap(a: &Lives, b: &Lives) -> bool {
    a.iter().zip(b).any(|(a, b)| match (a, b) {
        (Some(a), Some(b)) => a.start() <= b.end() && b.start() <= a.end(),
        _ => false,
    })
}

/// Gives the transient buffers of `table` homes to share: each, in the order the first list
/// first uses them, joins the home (of its element type) whose buffers are all dead while it
/// lives in every list — the smallest that already holds it whole, else the largest — or starts
/// a home of its own. The lists are every order the step's kernels run in (the fused step and
/// the teaching kernels, which checkpointing re-runs by ranges), so sharing holds in each.
pub fn share_dead_buffers(table: &mut BufferTable, lists: &[&[Box<dyn Kernel>]]) {
    let mut candidates: Vec<(BufId, Lives)> = lives(table.specs.len(), lists)
        .into_iter()
        .enumerate()
        .map(|(i, l)| (BufId(i), l))
        .filter(|(id, _)| transient(&table.specs[id.0].name))
        .filter(|(_, l)| l.first().is_some_and(Option::is_some))
        .collect();
    candidates.sort_by_key(|(id, l)| (l[0].as_ref().map(|r| *r.start()), *id));
    // Each home: its buffers and their lives, and the largest length among them.
    let mut homes: Vec<(Vec<(BufId, Lives)>, usize)> = Vec::new();
    for (id, life) in candidates {
        let (elem, len) = (table.specs[id.0].elem, table.specs[id.0].len);
        let free = homes.iter().enumerate().filter(|(_, (members, _))| {
            table.specs[members[0].0 .0].elem == elem && members.iter().all(|(_, l)| !overlap(l, &life))
        });
        let fits = free.clone().filter(|(_, h)| h.1 >= len).min_by_key(|(_, h)| h.1);
        match fits.or_else(|| free.max_by_key(|(_, h)| h.1)).map(|(k, _)| k) {
            Some(k) => {
                homes[k].0.push((id, life));
                homes[k].1 = homes[k].1.max(len);
            }
            None => homes.push((vec![(id, life)], len)),
        }
    }
    for (members, _) in homes {
        // The home is its first buffer in the table, so a table reads in order.
        let home = members.iter().map(|m| m.0).min().expect("a home has a buffer");
        for (id, _) in members {
            table.specs[id.0].home = home;
        }
    }
}
