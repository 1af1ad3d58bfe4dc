//! The optimizer lab's defaults per surface: from each surface's usual start, every racer at the
//! surface's default rate descends over 100 steps without diverging (docs/theory.md §3), and
//! switching surface restores those rates (Goh's optimum for the quadratic does not carry over).

use lab_sims::surfaces::{race, Racer, Surface};
use lab_state::optimizers::{default_rates, OptimizersLab, RACERS, SURFACES};

#[test]
fn every_racer_descends_on_every_surface_with_its_defaults() {
    for (key, surface) in SURFACES.iter().zip(Surface::ALL) {
        let mut lab = OptimizersLab::default();
        lab.lr[1] = 0.7; // as if "Use Goh's optimal η, μ" had been pressed
        lab.momentum[1] = 0.5;
        lab.switch_surface(key);
        assert_eq!(lab.lr, default_rates(lab.surface()), "{key}");
        assert_eq!(lab.momentum, RACERS.map(|r| r.3), "{key}");
        let racers: Vec<Racer> = (0..RACERS.len())
            .map(|i| Racer {
                optimizer: lab.optimizer(i),
                learning_rate: lab.lr[i],
            })
            .collect();
        let start = lab.start();
        assert_eq!(start, surface.default_start());
        for (path, r) in race(lab.surface(), start, &racers, 100, 0.0, 1)
            .iter()
            .zip(RACERS)
        {
            assert!(!path.diverged, "{key}: {} diverged", r.0);
            let (first, last) = (path.losses[0], *path.losses.last().unwrap());
            assert!(last < first, "{key}: {} went from {first} to {last}", r.0);
        }
    }
}
