//! The cluster lab's overlap lesson (public/lessons/cluster-overlap.json): each section's measure
//! from the figures the page publishes under its timeline (`ClusterLab::overlap`, one synchronous
//! iteration laid out with and without overlap by `lab_sims::timeline`, whose hidden share
//! `sims/src/timeline.rs` holds to a hand count). The layout depends on the settings and the
//! network's plan only, so one evaluation stands for every seed.

use lab_state::cluster::ClusterLab;
use lab_state::lab::LabState;

#[test]
fn the_overlap_lesson_holds() {
    let id = "cluster-overlap";
    for section in crate::lessons::sections(id) {
        let (lab, notices) = ClusterLab::from_query(&section.state);
        assert!(notices.is_empty(), "{notices:?}");
        assert!(lab.overlap, "the lesson turns overlap on");
        let o = lab.overlap().unwrap();
        let value = section.measure(|name| match name {
            "iteration-overlap" => o.overlapped,
            "iteration-serial" => o.serial,
            "hidden-share" => 100.0 * o.hidden,
            other => panic!("{id}: no {other}"),
        });
        section.assert_claim(id, value);
    }
    // The why's hand count: the network's two buckets, the first layer's 98.7 % of the weights.
    let work = ClusterLab::default().work().unwrap();
    let params: Vec<usize> = work.buckets.iter().map(|b| b.params).collect();
    assert_eq!(params, [32 * 10 + 10, 784 * 32 + 32]);
}
