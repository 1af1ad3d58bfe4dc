//! The hardware lab's lessons, asserted natively through the lab's own settings: the systolic
//! counts the page shows (closed forms) equal a register-by-register simulation of the whole
//! product, and the step's kernels on the CPU path's measured roofline — the figures the course's
//! hardware lessons read (every section's claim asserted on them).

use engine::train::Trainer;
use lab_sims::hardware::record::{HardwareRecord, SWEEP};
use lab_sims::hardware::systolic::{self, Dataflow};
use lab_state::hardware::HardwareLab;
use lab_state::lab::LabState;
use pollster::block_on;

/// The record a link's settings give on the CPU path, measured as the page measures it.
fn measured(query: &str) -> HardwareRecord {
    let (s, notices) = HardwareLab::from_query(query);
    assert!(notices.is_empty(), "{query}: {notices:?}");
    let config = s.config();
    let (train, _) = config.data.load(crate::lessons::read_data).unwrap();
    let mut r = HardwareRecord::new(&s.workload, s.fused, s.gemm(), s.array);
    let (points, roofs) = s.distributed();
    (r.distributed, r.cluster_roofs) = (points, Some(roofs));
    r.roofs = Some(block_on(engine::roofline::measure(None, s.reps, &engine::workloads::native_now_ms)).unwrap());
    let mut t = block_on(Trainer::with_data(config, train, None, 1)).unwrap();
    t.set_fused(s.fused);
    block_on(t.train(3)).unwrap();
    r.kernels = block_on(t.profile_step(s.reps, &engine::workloads::native_now_ms)).unwrap();
    r.dispatches = lab_sims::hardware::record::dispatches(t.plan().kernels(engine::backend::Pass::Train));
    r.graph = Some(t.plan().graph(&t.compiled));
    r.sweep = block_on(engine::roofline::matmul_sweep(None, &SWEEP[..4], s.reps, &engine::workloads::native_now_ms)).unwrap();
    r
}

/// A record holding only the graph of a link's workload (counted, not timed).
fn graph_record(query: &str) -> HardwareRecord {
    let (s, _) = HardwareLab::from_query(query);
    let config = s.config();
    let (train, _) = config.data.load(crate::lessons::read_data).unwrap();
    let t = block_on(Trainer::with_data(config, train, None, 1)).unwrap();
    let mut r = HardwareRecord::new(&s.workload, s.fused, s.gemm(), s.array);
    r.graph = Some(t.plan().graph(&t.compiled));
    r
}

/// The page's counts for the defaults (and m = 1024) are what the simulation counts, moving every
/// operand of the whole product; and the product it computes is A·B.
#[test]
fn the_systolic_counts_are_the_simulations() {
    for query in ["", "m=1024"] {
        let (s, _) = HardwareLab::from_query(query);
        let g = s.gemm();
        let a: Vec<f32> = (0..g.m * g.k).map(|i| ((i % 5) as f32 - 2.0) / 4.0).collect();
        let b: Vec<f32> = (0..g.k * g.n).map(|i| ((i % 3) as f32 - 1.0) / 2.0).collect();
        let record = HardwareRecord::new(&s.workload, s.fused, g, s.array);
        for flow in [Dataflow::WeightStationary, Dataflow::OutputStationary] {
            if query == "m=1024" && flow == Dataflow::OutputStationary {
                continue;
            }
            let sim = systolic::simulate(flow, g, (s.array, s.array), &a, &b);
            let row = record.systolic.iter().find(|r| r.flow == flow).unwrap();
            assert_eq!((sim.cycles, sim.traffic), (row.cycles, row.traffic), "{query} {flow:?}");
            // Spot rows of C against the definition.
            for i in [0, g.m / 2, g.m - 1] {
                for j in [0, g.n - 1] {
                    let want: f32 = (0..g.k).map(|k| a[i * g.k + k] * b[k * g.n + j]).sum();
                    assert!((sim.c[i * g.n + j] - want).abs() < 1e-3, "{query} {flow:?} C[{i}, {j}]");
                }
            }
        }
    }
}

#[test]
fn the_hardware_lessons_hold_on_the_cpu_path() {
    let defaults = measured("backend=cpu");
    let w2 = graph_record("workload=W2&backend=cpu");
    let by_query = |state: &str| -> HardwareRecord {
        let (mut lab, _) = HardwareLab::from_query(state);
        lab.hide.clear();
        if lab == HardwareLab::from_query("backend=cpu").0 {
            return defaults.clone();
        }
        // The graph's sections change the workload: its graph needs no measurement.
        if lab.workload != "W1" {
            return w2.clone();
        }
        // The systolic sections change only the product: its counts need no measurement.
        let mut r = defaults.clone();
        r.systolic = lab_sims::hardware::record::systolic_rows(lab.gemm(), lab.array);
        r
    };
    let roofs = defaults.roofs.unwrap();
    eprintln!("CPU path: {:.1} GFLOP/s, {:.1} GB/s, ridge {:.2}", roofs.gflops, roofs.gbs, roofs.ridge());
    for (k, t) in defaults.kernels.iter().enumerate() {
        eprintln!("  {} {}: {:.3} ms, {:?} FLOPs/byte, {:?}", k + 1, t.name, t.ms, HardwareRecord::intensity(t), defaults.bound(t));
    }
    for d in &defaults.dispatches {
        eprintln!("  {}: {} ops, {} bytes fused, {} apart", d.kernel.name, d.ops.len(), d.kernel.bytes, d.separate_bytes());
    }
    eprintln!("fusion saves {:?} bytes", defaults.metric("fusion-saved"));
    // The same count the page shows (e2e/hardware.test.mjs): W1's fused step, packed pixels.
    assert_eq!(defaults.metric("fusion-saved"), Some(474_664.0));
    // The backward's FLOPs over the forward's, by hand: W1 (2·64·784·128 + 2·2·64·128·10) /
    // (2·64·784·128 + 2·64·128·10); W2 adds both convolutions' weight gradients and the second's
    // input gradient: (14,745,600 + 2·26,214,400 + 2·327,680) / (14,745,600 + 26,214,400 + 327,680).
    assert_eq!(defaults.metric("backward-ratio"), Some(13_172_736.0 / 13_008_896.0));
    assert_eq!(w2.metric("backward-ratio"), Some(67_829_760.0 / 41_287_680.0));
    for id in ["hardware-roofline", "hardware-systolic", "hardware-graph"] {
        for section in crate::lessons::sections(id) {
            let r = by_query(&section.state);
            let value = section.measure(|name| r.metric(name).unwrap_or_else(|| panic!("{id}: no metric {name}")));
            section.assert_claim(id, value);
        }
    }
}

/// The distributed roofline of the cluster lab's default experiment, by hand from its model: each
/// worker's FLOPs a step are its share of the global batch times the model's FLOPs a sample, its
/// bytes a ring allreduce's 2 (n − 1)/n of the gradient.
#[test]
fn the_distributed_roofline_follows_the_cluster_labs_model() {
    let c = lab_state::cluster::ClusterLab::default();
    let work = c.work().unwrap();
    let params: usize = work.buckets.iter().map(|b| b.params).sum();
    eprintln!("the cluster lab's model: {} FLOPs a sample, {params} parameters", work.flops_per_sample);
    // The defaults (the cluster lab's: 64, 5 GFLOP/s, 10 Gb Ethernet at 1.25 GB/s), then a link's
    // own: 256 samples, 20 GFLOP/s, 100 Gb Ethernet (12.5 GB/s).
    for (query, batch, gflops, gbs) in [("", 64, 5.0, 1.25), ("cluster_batch=256&worker_gflops=20&link=100gbe", 256, 20.0, 12.5)] {
        let (points, (peak, bandwidth)) = HardwareLab::from_query(query).0.distributed();
        assert_eq!((peak, bandwidth), (gflops * 1e9, gbs * 1e9), "{query}");
        for p in &points {
            let n = p.workers as f64;
            eprintln!("{query}: {} workers: batch {}, {:.3e} FLOPs, {:.3e} bytes, {:.2} FLOPs/byte, {:.3e} FLOP/s of {peak:.1e}", p.workers, p.worker_batch, p.flops, p.bytes, p.intensity(), p.attainable);
            assert_eq!(p.flops, work.flops_per_sample * (batch / p.workers) as f64);
            let ring = 2.0 * (n - 1.0) / n * 4.0 * params as f64;
            assert!((p.bytes - ring).abs() <= 8.0 * n, "{}: {} against {ring}", p.workers, p.bytes);
            assert!((p.attainable - peak.min(p.intensity() * bandwidth)).abs() < 1e-3);
        }
    }
}
