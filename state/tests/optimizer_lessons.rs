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

/// A link that names a surface alone (the book's Rosenbrock embed,
/// `?embed=1&surface=rosenbrock&surface_hide=true`) brings the surface's rates, as switching to it
/// on the page does: no racer diverges. A link that sets the rates too keeps them, and the rates
/// of a surface written back into a link read back the same.
#[test]
fn a_link_naming_a_surface_brings_its_rates() {
    use lab_state::lab::LabState;
    for key in SURFACES {
        let (lab, notices) = OptimizersLab::from_query(&format!("surface={key}&surface_hide=true"));
        assert!(notices.is_empty(), "{key}: {notices:?}");
        assert_eq!(lab.lr, default_rates(lab.surface()), "{key}");
        let racers: Vec<Racer> = (0..RACERS.len())
            .map(|i| Racer { optimizer: lab.optimizer(i), learning_rate: lab.lr[i] })
            .collect();
        for (path, r) in race(lab.surface(), lab.start(), &racers, 100, 0.0, 1).iter().zip(RACERS) {
            assert!(!path.diverged, "{key}: {} diverged", r.0);
        }
        let (again, _) = OptimizersLab::from_query(&lab.to_query());
        assert_eq!(again, lab, "{key}: {}", lab.to_query());
    }
    let (set, _) = OptimizersLab::from_query("surface=rosenbrock&lr=0.002,0.001,0.001,0.1,0.01,0.1,0.1");
    assert_eq!(set.lr[0], 0.002);
    let quad = OptimizersLab {
        surface: "beale".into(),
        ..OptimizersLab::default()
    };
    let (back, _) = OptimizersLab::from_query(&quad.to_query());
    assert_eq!(back.lr, quad.lr, "the quadratic's rates on Beale, written out, read back");
}
