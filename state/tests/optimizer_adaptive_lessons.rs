//! The optimizer lab's lessons (public/lessons/optimizers-{momentum,adaptive}.json) natively: each
//! section's race run as the page runs it (`OptimizersLab::race`: the lab's racers, rates,
//! steps and noise seed 1), its measure read from each racer's final loss (`final-…`) and
//! measured rate (`rate-…`, `lab_sims::surfaces::measured_rate` of its path, as the page reads
//! it). Without noise the race is exact, so one run stands for every machine and seed.

use lab_sims::surfaces::measured_rate;
use lab_state::lab::LabState;
use lab_state::optimizers::{OptimizersLab, RACERS};

fn check(id: &str) {
    for section in crate::lessons::sections(id) {
        let (lab, notices) = OptimizersLab::from_query(&section.state);
        assert!(notices.is_empty(), "{id}: {notices:?}");
        let paths = lab.race();
        let value = section.measure(|name| {
            let (kind, racer) = name.split_once('-').unwrap();
            let (_, path) = paths
                .iter()
                .find(|(i, _)| RACERS[*i].0.to_lowercase() == racer)
                .unwrap_or_else(|| panic!("{id}: {racer} is not racing"));
            assert!(!path.diverged, "{id}: {racer} diverged");
            match kind {
                "final" => f64::from(*path.losses.last().unwrap()),
                "rate" => f64::from(measured_rate(&path.points)),
                other => panic!("{id}: no {other} metric"),
            }
        });
        section.assert_claim(id, value);
    }
}

#[test]
fn the_momentum_lesson_holds() {
    check("optimizers-momentum");
}

#[test]
fn the_adaptive_lesson_holds() {
    check("optimizers-adaptive");
}
