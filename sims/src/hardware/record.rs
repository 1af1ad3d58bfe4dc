//! What the hardware lab keeps of a measurement (docs/theory.md §11): the device's two roofs,
//! each kernel of a workload's training step with its time, FLOPs and bytes, the matrix-product
//! sweep, and the systolic array's count of one product in both dataflows.

use serde::{Deserialize, Serialize};

use engine::backend::KernelTime;
use engine::error::Error;
use engine::kernel::Kernel;
use engine::roofline::Roofs;

use super::systolic::{self, Dataflow, Gemm, Traffic};
use super::tiling::TileRow;

/// The sizes the sweep multiplies (square, n × n by n × n).
pub const SWEEP: [usize; 7] = [8, 16, 32, 64, 128, 256, 512];

/// One dataflow's count of the product.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SystolicRow {
    pub flow: Dataflow,
    pub cycles: u64,
    pub utilization: f64,
    pub traffic: Traffic,
}

/// The product `gemm` on an `array × array` systolic array, both dataflows (closed forms, which
/// `systolic::simulate` is tested to equal).
pub fn systolic_rows(gemm: Gemm, array: usize) -> Vec<SystolicRow> {
    [Dataflow::WeightStationary, Dataflow::OutputStationary]
        .into_iter()
        .map(|flow| SystolicRow {
            flow,
            cycles: systolic::cycles(flow, gemm, array, array),
            utilization: systolic::utilization(flow, gemm, array, array),
            traffic: systolic::traffic(flow, gemm, array, array),
        })
        .collect()
}

/// Which roof bounds a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Below the ridge: memory traffic limits it.
    Memory,
    /// At or above the ridge: arithmetic limits it.
    Compute,
}

/// An op of the step: its name, FLOPs and bytes (`Kernel::flops`, `Kernel::bytes`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Op {
    pub name: String,
    pub flops: f64,
    pub bytes: f64,
}

/// A kernel the step dispatches and the ops it runs: one for a kernel of one op, several for a
/// fused kernel (`Kernel::parts`), whose bytes are fewer than its ops' apart — what they wrote
/// and read again stays on the chip.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dispatch {
    pub kernel: Op,
    pub ops: Vec<Op>,
}

impl Dispatch {
    /// The bytes its ops move run one by one.
    pub fn separate_bytes(&self) -> f64 {
        self.ops.iter().map(|o| o.bytes).sum()
    }
}

fn op(k: &dyn Kernel) -> Op {
    Op {
        name: k.name(),
        flops: k.flops(),
        bytes: k.bytes(),
    }
}

/// The kernels a training step dispatches, each with the ops it runs.
pub fn dispatches(kernels: &[Box<dyn Kernel>]) -> Vec<Dispatch> {
    (kernels.iter())
        .map(|k| Dispatch {
            kernel: op(k.as_ref()),
            ops: if k.parts().is_empty() {
                vec![op(k.as_ref())]
            } else {
                k.parts().iter().map(|p| op(p.as_ref())).collect()
            },
        })
        .collect()
}

/// The roof that bounds a kernel of this intensity (FLOPs per byte) on a device with these roofs.
pub fn bound_of(roofs: Roofs, intensity: f64) -> Bound {
    if intensity < roofs.ridge() {
        Bound::Memory
    } else {
        Bound::Compute
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HardwareRecord {
    /// The adapter's name, or "CPU path".
    pub device: String,
    /// A GPU emulated on the processor (SwiftShader, lavapipe), or the CPU path: its figures are
    /// what it measures, not a real GPU's.
    pub emulated: bool,
    /// "W1" or "W2".
    pub workload: String,
    pub fused: bool,
    pub roofs: Option<Roofs>,
    pub kernels: Vec<KernelTime>,
    pub sweep: Vec<(usize, KernelTime)>,
    /// The step's kernels and the ops each runs (counted, not timed).
    #[serde(default)]
    pub dispatches: Vec<Dispatch>,
    /// The step as a graph: its ops, their tensors, what reads what (counted, not timed).
    #[serde(default)]
    pub graph: Option<engine::plan::StepGraph>,
    /// The first layer's product in each tile shape: bytes counted, time measured on a GPU.
    #[serde(default)]
    pub tiles: Vec<TileRow>,
    /// The engine's tile shape for the settings' product on this device, and how its tiles were
    /// chosen (timed now, remembered, untimed on an emulation).
    #[serde(default)]
    pub tile_choice: Option<String>,
    #[serde(default)]
    pub tuning: String,
    /// What the autotune timed, where it timed in this visit.
    #[serde(default)]
    pub tuned: Vec<super::tiling::TunedRow>,
    /// The cluster lab's model on the distributed roofline, by worker count.
    #[serde(default)]
    pub distributed: Vec<super::distributed::DistPoint>,
    /// The cluster's worker speed (FLOP/s) and link bandwidth (bytes/s) the points are set against.
    #[serde(default)]
    pub cluster_roofs: Option<(f64, f64)>,
    pub gemm: Gemm,
    pub array: usize,
    pub systolic: Vec<SystolicRow>,
}

impl HardwareRecord {
    pub fn new(workload: &str, fused: bool, gemm: Gemm, array: usize) -> Self {
        Self {
            device: String::new(),
            emulated: true,
            workload: workload.into(),
            fused,
            roofs: None,
            kernels: Vec::new(),
            sweep: Vec::new(),
            dispatches: Vec::new(),
            graph: None,
            tile_choice: None,
            tuning: String::new(),
            tuned: Vec::new(),
            tiles: Vec::new(),
            distributed: Vec::new(),
            cluster_roofs: None,
            gemm,
            array,
            systolic: systolic_rows(gemm, array),
        }
    }

    /// The record in `text`, refused unless the lab could have written it (`check`).
    pub fn from_json(text: &str) -> Result<Self, Error> {
        crate::record::lab_file(crate::record::read_json(text, "a hardware record")?, Self::check)
    }

    /// FLOPs a byte (None where the kernel's bytes are not counted).
    pub fn intensity(k: &KernelTime) -> Option<f64> {
        (k.bytes > 0.0).then(|| k.flops / k.bytes)
    }

    /// Which roof bounds a kernel on the measured device (None before the roofs are measured or
    /// where its bytes are not counted). A kernel without counted arithmetic is memory-bound.
    pub fn bound(&self, k: &KernelTime) -> Option<Bound> {
        Some(bound_of(self.roofs?, Self::intensity(k)?))
    }

    /// The step's time, ms: its kernels' times added.
    pub fn step_ms(&self) -> f64 {
        self.kernels.iter().map(|k| k.ms).sum()
    }

    /// A metric the page publishes, by name: `peak-gflops`, `bandwidth-gbs`, `ridge`,
    /// `intensity-{k}` and `share-{k}` (kernel k of the step, from 1; share in percent),
    /// `memory-bound` (how many kernels), `largest-intensity`, and `cycles-{ws|os}`,
    /// `utilization-{ws|os}` (percent) and `traffic-{ws|os}` (values) of the systolic count.
    pub fn metric(&self, name: &str) -> Option<f64> {
        let roofs = self.roofs;
        match name {
            "peak-gflops" => return roofs.map(|r| r.gflops),
            "bandwidth-gbs" => return roofs.map(|r| r.gbs),
            "ridge" => return roofs.map(|r| r.ridge()),
            "memory-bound" => {
                roofs?;
                let n = self
                    .kernels
                    .iter()
                    .filter(|k| self.bound(k) == Some(Bound::Memory))
                    .count();
                return Some(n as f64);
            }
            "fusion-saved" => {
                let saved = self
                    .dispatches
                    .iter()
                    .map(|d| d.separate_bytes() - d.kernel.bytes)
                    .sum::<f64>();
                return (!self.dispatches.is_empty()).then_some(saved);
            }
            "network-bound-from" => {
                let (peak, _) = self.cluster_roofs?;
                return self
                    .distributed
                    .iter()
                    .find(|p| p.attainable < peak)
                    .map(|p| p.workers as f64);
            }
            "backward-ratio" => {
                use engine::plan::Phase;
                let g = self.graph.as_ref()?;
                return Some(g.flops_of(Phase::Backward) / g.flops_of(Phase::Forward));
            }
            // Forward and backward in forward passes: the rule of thumb's 3, less the first
            // layer's share of the forward (its input gradient is skipped).
            "step-forwards" => return self.metric("backward-ratio").map(|r| 1.0 + r),
            "first-layer-share" => {
                use engine::plan::Phase;
                let g = self.graph.as_ref()?;
                return Some(g.first_layer_forward_flops() / g.flops_of(Phase::Forward));
            }
            "largest-intensity" => {
                return self.kernels.iter().filter_map(Self::intensity).reduce(f64::max);
            }
            _ => {}
        }
        let kernel = |rest: &str| -> Option<&KernelTime> {
            self.kernels.get(rest.parse::<usize>().ok()?.checked_sub(1)?)
        };
        if let Some(rest) = name.strip_prefix("intensity-") {
            return kernel(rest).and_then(Self::intensity);
        }
        if let Some(rest) = name.strip_prefix("share-") {
            return kernel(rest).map(|k| 100.0 * k.ms / self.step_ms().max(1e-12));
        }
        let (what, flow) = name.rsplit_once('-')?;
        let flow = match flow {
            "ws" => Dataflow::WeightStationary,
            "os" => Dataflow::OutputStationary,
            _ => return None,
        };
        let row = self.systolic.iter().find(|r| r.flow == flow)?;
        match what {
            "cycles" => Some(row.cycles as f64),
            "utilization" => Some(100.0 * row.utilization),
            "traffic" => Some(row.traffic.total() as f64),
            _ => None,
        }
    }

    /// The step's kernels, then the sweep, then the systolic counts.
    pub fn csv(&self) -> String {
        let mut out = String::from("part,name,ms,flops,bytes,intensity,gflops_per_s,bound\n");
        let bound = |k: &KernelTime| match self.bound(k) {
            Some(Bound::Memory) => "memory",
            Some(Bound::Compute) => "compute",
            None => "",
        };
        let row = |part: &str, name: &str, k: &KernelTime| {
            format!(
                "{part},{name},{},{},{},{},{},{}\n",
                k.ms,
                k.flops,
                k.bytes,
                Self::intensity(k).map_or(String::new(), |i| i.to_string()),
                k.flops / (k.ms.max(1e-12) * 1e6),
                bound(k)
            )
        };
        for k in &self.kernels {
            out += &row("step", &k.name, k);
        }
        for (n, k) in &self.sweep {
            out += &row("sweep", &format!("matmul {n}×{n}"), k);
        }
        out += "\nkernel,ops,flops,bytes_fused,bytes_op_by_op\n";
        for d in &self.dispatches {
            let ops = d
                .ops
                .iter()
                .map(|o| o.name.as_str())
                .collect::<Vec<_>>()
                .join(" then ");
            out += &format!(
                "{},{ops},{},{},{}\n",
                d.kernel.name,
                d.kernel.flops,
                d.kernel.bytes,
                d.separate_bytes()
            );
        }
        out += "\ntile,edge,tiles,bytes,ms\n";
        for t in &self.tiles {
            out += &format!(
                "{},{},{},{},{}\n",
                t.code,
                t.edge,
                t.tiles,
                t.bytes,
                t.ms.map_or(String::new(), |ms| ms.to_string())
            );
        }
        out += "\ndataflow,cycles,utilization,a_reads,b_reads,c_reads,c_writes\n";
        for r in &self.systolic {
            let t = r.traffic;
            out += &format!(
                "{:?},{},{},{},{},{},{}\n",
                r.flow, r.cycles, r.utilization, t.a_reads, t.b_reads, t.c_reads, t.c_writes
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_read_the_record() {
        let mut r = HardwareRecord::new(
            "W1",
            true,
            Gemm {
                m: 64,
                k: 784,
                n: 128,
            },
            16,
        );
        let k = |name: &str, ms, flops, bytes| KernelTime {
            name: name.into(),
            ms,
            flops,
            bytes,
            clock: Default::default(),
        };
        r.kernels = vec![k("matmul", 3.0, 2000.0, 100.0), k("sgd", 1.0, 0.0, 400.0)];
        assert_eq!(r.metric("intensity-1"), Some(20.0));
        assert_eq!(r.metric("share-2"), Some(25.0));
        assert_eq!(r.metric("memory-bound"), None, "no roofs yet");
        r.roofs = Some(Roofs {
            gflops: 100.0,
            gbs: 10.0,
        });
        // Ridge 10: the product (20) is compute-bound, the update (0) memory-bound.
        assert_eq!(r.metric("memory-bound"), Some(1.0));
        assert_eq!(r.metric("largest-intensity"), Some(20.0));
        // Weight-stationary, 16 × 16: 49 slices of k × 8 column tiles, each 16 + 64 + 30 cycles.
        assert_eq!(r.metric("cycles-ws"), Some(392.0 * 110.0));
        // Output-stationary: 4 row tiles × 8 column tiles, each 784 + 30 cycles.
        assert_eq!(r.metric("cycles-os"), Some(32.0 * 814.0));
        assert!(r.metric("utilization-os").unwrap() > 96.0);
    }
}

// A record counts a run for each part it holds: the roofs, the kernels, the sweep.
crate::run_record!(HardwareRecord, |r| {
    usize::from(r.roofs.is_some()) + usize::from(!r.kernels.is_empty()) + usize::from(!r.sweep.is_empty())
});
