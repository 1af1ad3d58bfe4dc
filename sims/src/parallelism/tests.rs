use super::pipeline::{bubble_closed_form, Costs, Pass, Schedule, Timeline};
use super::zero::{per_device, wire_values, ClassBytes, Stage};

const EVEN: Costs = Costs {
    forward: 1.0,
    backward: 2.0,
    transfer: 0.0,
};

/// With equal stages and free transfers both schedules idle (p − 1)/(m + p − 1) of the time
/// (Huang et al. 2019; Narayanan et al. 2021, §2.2), and the step takes (m + p − 1)(t_f + t_b).
#[test]
fn the_bubble_matches_the_closed_form() {
    for schedule in Schedule::ALL {
        for (p, m) in [(1, 1), (2, 1), (4, 4), (4, 8), (4, 32), (8, 3), (3, 16)] {
            let t = Timeline::simulate(schedule, p, m, EVEN);
            let want = bubble_closed_form(p, m);
            assert!(
                (t.bubble_fraction() - want).abs() < 1e-12,
                "{schedule:?} p={p} m={m}: {} vs {want}",
                t.bubble_fraction()
            );
            assert_eq!(t.makespan, ((m + p - 1) * 3) as f64, "{schedule:?} p={p} m={m}");
        }
    }
}

/// GPipe keeps every micro-batch's activations on every stage until the backwards begin; 1F1B
/// keeps at most p − s on stage s.
#[test]
fn one_f_one_b_holds_at_most_p_minus_s_micro_batches() {
    let (p, m) = (4, 8);
    let gpipe = Timeline::simulate(Schedule::GPipe, p, m, EVEN);
    let ofob = Timeline::simulate(Schedule::OneFOneB, p, m, EVEN);
    for s in 0..p {
        assert_eq!(gpipe.peak_in_flight(s), m, "GPipe stage {s}");
        assert_eq!(ofob.peak_in_flight(s), p - s, "1F1B stage {s}");
    }
    // Fewer micro-batches than stages: 1F1B never holds more than there are.
    let short = Timeline::simulate(Schedule::OneFOneB, 4, 2, EVEN);
    assert_eq!(short.peak_in_flight(0), 2);
}

/// Every piece respects its dependencies and no stage does two things at once.
#[test]
fn slots_respect_dependencies_and_never_overlap() {
    let costs = Costs {
        forward: 1.0,
        backward: 2.5,
        transfer: 0.3,
    };
    for schedule in Schedule::ALL {
        let t = Timeline::simulate(schedule, 4, 6, costs);
        let end = |stage: usize, micro: usize, pass: Pass| {
            t.slots
                .iter()
                .find(|x| x.stage == stage && x.work.micro == micro && x.work.pass == pass)
                .map(|x| x.end)
                .unwrap()
        };
        for x in &t.slots {
            let (s, m) = (x.stage, x.work.micro);
            match x.work.pass {
                Pass::Forward if s > 0 => {
                    assert!(x.start >= end(s - 1, m, Pass::Forward) + costs.transfer - 1e-12)
                }
                Pass::Backward if s + 1 < t.stages => {
                    assert!(x.start >= end(s + 1, m, Pass::Backward) + costs.transfer - 1e-12)
                }
                Pass::Backward => assert!(x.start >= end(s, m, Pass::Forward) - 1e-12),
                _ => {}
            }
            for y in t.slots.iter().filter(|y| y.stage == s && *y != x) {
                assert!(
                    y.end <= x.start + 1e-12 || y.start >= x.end - 1e-12,
                    "{schedule:?}: overlap on stage {s}"
                );
            }
        }
    }
}

/// Rajbhandari et al. (2020), Figure 1: Ψ = 7.5 B parameters, N = 64 workers, mixed-precision
/// Adam (2 + 2 + K bytes, K = 12): 120 GB per device, then 31.4, 16.6 and 1.9 GB.
#[test]
fn zero_memory_matches_the_papers_figure() {
    let gb = |stage| per_device(ClassBytes::mixed_adam(), 7.5e9, 64, stage).total() / 1e9;
    assert!((gb(Stage::None) - 120.0).abs() < 1e-9);
    assert!((gb(Stage::Optimizer) - 31.40625).abs() < 1e-9);
    assert!((gb(Stage::Gradients) - 16.640625).abs() < 1e-9);
    assert!((gb(Stage::Weights) - 1.875).abs() < 1e-9);
}

/// Stages 1 and 2 send what data parallelism sends; stage 3 half as much again (§7 of the paper).
#[test]
fn zero_traffic_is_the_allreduce_until_stage_three() {
    let dp = wire_values(1e6, 8, Stage::None, 1);
    assert_eq!(dp, 2.0 * 7.0 / 8.0 * 1e6);
    assert_eq!(wire_values(1e6, 8, Stage::Optimizer, 1), dp);
    assert_eq!(wire_values(1e6, 8, Stage::Gradients, 1), dp);
    assert_eq!(wire_values(1e6, 8, Stage::Weights, 1), 1.5 * dp);
    assert_eq!(wire_values(1e6, 1, Stage::Weights, 1), 0.0);
}

/// With m micro-batches (DeepSpeed's schedule): data parallelism and stage 1 still allreduce once;
/// stage 2 reduce-scatters each micro-batch's gradients, (N − 1)/N · Ψ each, and allgathers the
/// weights once; stage 3 gathers the weights twice and reduce-scatters once per micro-batch. Hand
/// counts for N = 8, m = 4, Ψ = 10⁶.
#[test]
fn zero_two_and_three_pay_their_collectives_per_micro_batch() {
    let step = 7.0 / 8.0 * 1e6; // one reduce-scatter or allgather of Ψ on 8 workers
    assert_eq!(wire_values(1e6, 8, Stage::None, 4), 2.0 * step);
    assert_eq!(wire_values(1e6, 8, Stage::Optimizer, 4), 2.0 * step);
    assert_eq!(wire_values(1e6, 8, Stage::Gradients, 4), (4.0 + 1.0) * step);
    assert_eq!(wire_values(1e6, 8, Stage::Weights, 4), (4.0 * 3.0) * step);
}

mod tensor_parallel {
    use crate::parallelism::tensor::{column_split, dense, megatron_mlp, row_split, Dense};

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) % 1000) as f32 / 500.0 - 1.0)
            .collect()
    }

    fn close(a: &[f32], b: &[f32], tol: f32) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{x} vs {y}");
        }
    }

    /// A column split computes each output exactly as the whole layer does (the same sum in the
    /// same order): bit for bit. A row split adds partial sums, so only to rounding.
    #[test]
    fn split_layers_equal_the_unsplit_layer() {
        let (rows, inputs, outputs) = (5, 13, 11);
        let (w, b, x) = (
            values(inputs * outputs, 1),
            values(outputs, 2),
            values(rows * inputs, 3),
        );
        let layer = Dense {
            w: &w,
            b: &b,
            inputs,
            outputs,
        };
        let whole = dense(&x, rows, &layer);
        for devices in [1, 2, 3, 4] {
            let cols = column_split(&x, rows, &layer, devices);
            assert_eq!(cols.y, whole, "{devices} devices by columns");
            assert_eq!(cols.shards.len(), devices);
            close(&row_split(&x, rows, &layer, devices).y, &whole, 1e-6);
        }
        assert_eq!(
            row_split(&x, rows, &layer, 1).y,
            whole,
            "one device is the layer itself"
        );
    }

    /// Megatron's block equals the unsplit relu(x·W1 + b1)·W2 + b2, with one allreduce of the
    /// output per block: 2(N − 1)/N · rows · outputs values per device.
    #[test]
    fn megatrons_mlp_block_equals_the_unsplit_block() {
        let (rows, inputs, hidden, outputs) = (4, 9, 16, 7);
        let (w1, b1) = (values(inputs * hidden, 4), values(hidden, 5));
        let (w2, b2) = (values(hidden * outputs, 6), values(outputs, 7));
        let x = values(rows * inputs, 8);
        let first = Dense {
            w: &w1,
            b: &b1,
            inputs,
            outputs: hidden,
        };
        let second = Dense {
            w: &w2,
            b: &b2,
            inputs: hidden,
            outputs,
        };
        let h: Vec<f32> = dense(&x, rows, &first).iter().map(|v| v.max(0.0)).collect();
        let whole = dense(&h, rows, &second);
        for devices in [1, 2, 4] {
            let split = megatron_mlp(&x, rows, &first, &second, devices);
            close(&split.y, &whole, 1e-6);
            let n = devices as f64;
            assert_eq!(
                split.sent_per_device,
                2.0 * (n - 1.0) / n * (rows * outputs) as f64
            );
        }
    }
}
