//! The optimizer lab's lessons (public/lessons/optimizers-{momentum,adaptive}.json) natively: each
//! section's race run as the page runs it (`lab_sims::surfaces::race` with the lab's racers,
//! rates, steps and noise seed 1), its measure read from each racer's final loss (`final-…`) and
//! measured rate (`rate-…`, `lab_sims::surfaces::measured_rate` of its path, as the page reads
//! it). Without noise the race is exact, so one run stands for every machine and seed.

use lab_sims::surfaces::{measured_rate, race, Racer};
use lab_state::lab::LabState;
use lab_state::optimizers::{OptimizersLab, RACERS};

fn check(id: &str) {
    for section in crate::lessons::sections(id) {
        let (lab, notices) = OptimizersLab::from_query(&section.state);
        assert!(notices.is_empty(), "{id}: {notices:?}");
        let on: Vec<usize> = (0..RACERS.len()).filter(|&i| lab.is_on(i)).collect();
        let racers: Vec<Racer> = on
            .iter()
            .map(|&i| Racer {
                optimizer: lab.optimizer(i),
                learning_rate: lab.lr[i],
            })
            .collect();
        let paths = race(lab.surface(), lab.start(), &racers, lab.steps, lab.noise, 1);
        let value = section.measure(|name| {
            let (kind, racer) = name.split_once('-').unwrap();
            let k = on
                .iter()
                .position(|&i| RACERS[i].0.to_lowercase() == racer)
                .unwrap_or_else(|| panic!("{id}: {racer} is not racing"));
            let path = &paths[k];
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
