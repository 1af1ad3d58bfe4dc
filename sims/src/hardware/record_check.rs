//! What a hardware results file must be before the page draws it: within what the lab writes
//! (its settings table's bounds) and consistent where the views index one part by another (an
//! edge of the step's graph names nodes the graph has). A file beyond them was not written by the
//! lab: a roof of 0 GFLOP/s drew axis labels without end, an edge to node 9999 indexed past the
//! graph, a product of 4·10⁹ froze the tab.

use super::record::HardwareRecord;
use crate::record::{within, RecordFault};

/// The lab's settings table's bounds (`state/src/labs/hardware`): the product's sides and the
/// array's; what a step's graph and the timed lists hold, with room to spare.
pub const MOST_SIDE: usize = 100_000;
pub const MOST_ARRAY: usize = 256;
pub const MOST_NODES: usize = 10_000;
pub const MOST_ROWS: usize = 1_000;

impl HardwareRecord {
    /// Why this record cannot be the lab's own, or nothing.
    pub fn check(&self) -> Result<(), RecordFault> {
        let g = self.gemm;
        for (side, n) in [("m", g.m), ("k", g.k), ("n", g.n)] {
            within(side, n, 1, MOST_SIDE)?;
        }
        within("an array side", self.array, 1, MOST_ARRAY)?;
        within("systolic rows", self.systolic.len(), 0, 2)?;
        for (what, n) in [
            ("kernels", self.kernels.len()),
            ("sweep points", self.sweep.len()),
            ("dispatches", self.dispatches.len()),
            ("tile shapes", self.tiles.len()),
            ("autotune rows", self.tuned.len()),
            ("distributed points", self.distributed.len()),
        ] {
            within(what, n, 0, MOST_ROWS)?;
        }
        let above_zero = |v: f64| v.is_finite() && v > 0.0;
        if let Some(r) = self.roofs {
            if !(above_zero(r.gflops) && above_zero(r.gbs)) {
                return Err(format!("roofs above zero, not {} GFLOP/s and {} GB/s", r.gflops, r.gbs).into());
            }
        }
        if let Some((flops, bandwidth)) = self.cluster_roofs {
            if !(above_zero(flops) && above_zero(bandwidth)) {
                return Err(
                    format!("a cluster's roofs above zero, not {flops} FLOP/s and {bandwidth} B/s").into(),
                );
            }
        }
        let mut timed = self.kernels.iter().chain(self.sweep.iter().map(|(_, k)| k));
        if let Some(k) = timed.find(|k| {
            ![k.ms, k.flops, k.bytes]
                .iter()
                .all(|v| v.is_finite() && *v >= 0.0)
        }) {
            return Err(format!("{}: times, FLOPs and bytes of 0 or more", k.name).into());
        }
        if let Some(graph) = &self.graph {
            let nodes = graph.nodes.len();
            within("graph nodes", nodes, 0, MOST_NODES)?;
            within("graph edges", graph.edges.len(), 0, MOST_NODES * 8)?;
            if let Some(e) = graph.edges.iter().find(|e| e.from >= nodes || e.to >= nodes) {
                return Err(format!(
                    "edges between the graph's {nodes} nodes, not {} → {}",
                    e.from, e.to
                )
                .into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::record::HardwareRecord;
    use super::super::systolic::Gemm;

    fn refusal(change: impl Fn(&mut Value)) -> String {
        let fresh = HardwareRecord::new(
            "W1",
            true,
            Gemm {
                m: 64,
                k: 784,
                n: 128,
            },
            16,
        );
        let mut v = serde_json::to_value(&fresh).unwrap();
        change(&mut v);
        match HardwareRecord::from_json(&v.to_string()) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    /// Files that passed the shape check and then froze or broke the page (issue 80), each refused
    /// with its reason; the lab's own record read back.
    #[test]
    fn a_file_the_lab_could_not_have_written_is_refused_with_why() {
        assert_eq!(refusal(|_| {}), "");
        type Case = (fn(&mut Value), &'static str);
        let cases: [Case; 5] = [
            (
                |v| v["roofs"] = json!({ "gflops": 0.0, "gbs": 20.0 }),
                "roofs above zero, not 0 GFLOP/s",
            ),
            (
                |v| v["graph"] = json!({ "nodes": [], "edges": [{ "from": 0, "to": 9999, "tensor": "x" }] }),
                "edges between the graph's 0 nodes, not 0 → 9999",
            ),
            (
                |v| v["gemm"]["m"] = json!(4_000_000_000u64),
                "m from 1 to 100000, not 4000000000",
            ),
            (|v| v["array"] = json!(0), "an array side from 1 to 256, not 0"),
            (
                |v| v["cluster_roofs"] = json!([1e9, 0.0]),
                "a cluster's roofs above zero",
            ),
        ];
        for (change, why) in cases {
            let got = refusal(change);
            assert!(got.contains(why), "{got:?} (expected {why})");
        }
    }
}
