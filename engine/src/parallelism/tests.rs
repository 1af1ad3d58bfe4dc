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
    let dp = wire_values(1e6, 8, Stage::None);
    assert_eq!(dp, 2.0 * 7.0 / 8.0 * 1e6);
    assert_eq!(wire_values(1e6, 8, Stage::Optimizer), dp);
    assert_eq!(wire_values(1e6, 8, Stage::Gradients), dp);
    assert_eq!(wire_values(1e6, 8, Stage::Weights), 1.5 * dp);
    assert_eq!(wire_values(1e6, 1, Stage::Weights), 0.0);
}
