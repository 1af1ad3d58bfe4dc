//! A step's reduction: the order the frames come in changes nothing, a bad frame is left out and
//! named, and a worker that never sends leaves its rows out of the mean.

use lab_wire::frame::GradientFrame;
use lab_wire::reduce::{Refusal, StepReduction};
use lab_wire::shards::assign;

fn frame(rank: u16, rows: u32, values: Vec<f32>) -> GradientFrame {
    GradientFrame {
        run: 1,
        step: 4,
        rank,
        rows,
        loss_sum: rows as f32,
        values,
    }
}

/// Three workers' rows of a batch of 7 (3, 2, 2) and gradient sums chosen so that the order of
/// the additions shows in fp32: 1e8 + 1 - 1e8 is 0 added left to right, 1 in another order.
fn frames() -> Vec<GradientFrame> {
    vec![
        frame(0, 3, vec![1e8, 3.0]),
        frame(1, 2, vec![1.0, 2.0]),
        frame(2, 2, vec![-1e8, 2.0]),
    ]
}

#[test]
fn frames_are_summed_in_rank_order_whatever_order_they_come_in() {
    let mut results = Vec::new();
    for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
        let mut step = StepReduction::new(1, 4, 2, assign(7, &[0, 1, 2]));
        for i in order {
            assert!(!step.complete());
            step.offer(frames()[i].clone()).unwrap();
        }
        assert!(step.complete());
        results.push(step.finish().unwrap());
    }
    let r = &results[0];
    assert!(
        results.iter().all(|x| x == r),
        "the same bits whatever the arrival order"
    );
    // (1e8 + 1) rounds to 1e8 in fp32, then - 1e8 gives 0: rank order, left to right.
    assert_eq!(r.mean, [0.0, 1.0]);
    assert_eq!((r.rows, r.loss, r.summed.clone()), (7, 1.0, vec![0, 1, 2]));
    assert!(r.refused.is_empty() && r.missing.is_empty());
}

#[test]
fn a_bad_frame_is_refused_named_and_left_out_and_a_silent_worker_is_missing() {
    let mut step = StepReduction::new(1, 4, 2, assign(7, &[0, 1, 2, 3]));
    // Batch 7 over 4 ranks: 2, 2, 2, 1.
    assert_eq!(
        step.offer(frame(0, 2, vec![1.0, f32::NAN])),
        Err(Refusal::NotFinite(1))
    );
    assert_eq!(
        step.offer(frame(0, 2, vec![1.0, 1.0])),
        Err(Refusal::Twice(0)),
        "refused once, out for the step"
    );
    assert_eq!(
        step.offer(frame(1, 3, vec![1.0, 1.0])),
        Err(Refusal::WrongRows { got: 3, expected: 2 })
    );
    assert_eq!(step.offer(frame(9, 2, vec![1.0, 1.0])), Err(Refusal::NoShard(9)));
    assert_eq!(
        step.offer(GradientFrame {
            step: 3,
            ..frame(2, 2, vec![1.0, 1.0])
        }),
        Err(Refusal::OtherStep {
            run: 1,
            step: 3,
            expected: 4
        })
    );
    assert_eq!(
        step.offer(frame(2, 2, vec![1.0])),
        Err(Refusal::WrongCount { got: 1, expected: 2 })
    );
    assert!(!step.complete(), "rank 3 has not sent");
    step.offer(frame(3, 1, vec![4.0, 6.0])).unwrap();
    assert!(step.complete(), "every rank has sent, kept or refused");
    let r = step.finish().unwrap();
    assert_eq!(
        (r.mean.clone(), r.rows, r.summed.clone()),
        (vec![4.0, 6.0], 1, vec![3])
    );
    assert_eq!(r.missing, [0, 1, 2], "their rows are not in the mean");
    let named: Vec<u16> = r.refused.iter().map(|(rank, _)| *rank).collect();
    assert_eq!(named, [0, 1, 2], "each refused worker named once, with why");
    assert!(r.refused[0].1.to_string().contains("not finite"));
}

#[test]
fn a_step_with_nothing_kept_updates_nothing() {
    let mut step = StepReduction::new(1, 4, 2, assign(7, &[0]));
    let _ = step.offer(frame(0, 7, vec![f32::INFINITY, 0.0]));
    assert!(step.complete());
    assert_eq!(step.finish(), None);
    // Rows with nothing to sum (a batch smaller than the class): no division by zero.
    let mut empty = StepReduction::new(1, 4, 2, assign(1, &[0, 1]));
    empty.offer(frame(1, 0, vec![0.0, 0.0])).unwrap();
    assert_eq!(empty.finish(), None);
}
