//! Allreduce schedules (docs/theory.md §6): every algorithm leaves every worker holding the exact sum
//! (so the mean after dividing by p) for worker counts 1–64, powers of two or not, and vector
//! lengths not divisible by the count; the cost model reproduces the closed forms of docs/theory.md's
//! table, time and bytes on the wire.

use engine::collectives::*;
use engine::rng::Rng;

fn algorithms() -> Vec<Algorithm> {
    vec![
        Algorithm::Naive,
        Algorithm::ParameterServer { shards: 1 },
        Algorithm::ParameterServer { shards: 3 },
        Algorithm::Ring,
        Algorithm::Tree,
        Algorithm::RecursiveDoubling,
        Algorithm::Rabenseifner,
        Algorithm::Hierarchical,
    ]
}

#[test]
fn every_algorithm_gives_every_worker_the_exact_mean() {
    let mut rng = Rng::new(3);
    let counts: Vec<usize> = (1..=17).chain([24, 31, 32, 33, 48, 63, 64]).collect();
    for alg in algorithms() {
        for &p in &counts {
            // 5,000 spans several of `execute`'s tiles.
            for &n in &[1usize, 5, 7, 100, 1001, 5000] {
                let grads: Vec<Vec<f32>> = (0..p).map(|_| (0..n).map(|_| rng.normal()).collect()).collect();
                let exact: Vec<f64> = (0..n)
                    .map(|j| grads.iter().map(|g| g[j] as f64).sum::<f64>() / p as f64)
                    .collect();
                let mut out = grads.clone();
                Schedule::new(alg, p, n, 4).execute(&mut out);
                for (w, g) in out.iter().enumerate() {
                    for (j, v) in g.iter().enumerate() {
                        let mean = *v as f64 / p as f64;
                        assert!(
                            (mean - exact[j]).abs() < 1e-5 * (1.0 + exact[j].abs()),
                            "{} p={p} n={n}: worker {w} element {j}: {mean} vs {}",
                            alg.label(),
                            exact[j]
                        );
                    }
                }
            }
        }
    }
}

fn close(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1e-12),
        "{what}: {got} vs closed form {want}"
    );
}

/// The closed forms of docs/theory.md §6.2 (one-port Hockney model), at powers of two and not:
/// the halving/doubling family folds the extra workers in first and sends them the result last.
#[test]
fn the_cost_model_matches_the_closed_forms() {
    let link = Link {
        alpha: 5e-6,
        beta: 1.0 / 10e9,
        gamma: 1.0 / 100e9,
    };
    let topo = Topology::flat(link);
    let (a, b, g) = (link.alpha, link.beta, link.gamma);
    for &p in &[2usize, 3, 4, 5, 6, 8, 12, 16, 64] {
        let elems = 60 * 1024; // divisible by every p here
        let n = elems as f64 * 4.0; // bytes
        let pf = p as f64;
        let ceil_lg = pf.log2().ceil();
        // The power of two the halving/doubling family works on, and its fold and unfold steps.
        let p2 = (1usize << pf.log2().floor() as u32) as f64;
        let lg2 = p2.log2();
        let (fold, unfold) = if p2 < pf {
            (a + n * b + n * g, a + n * b)
        } else {
            (0.0, 0.0)
        };
        let extra_bytes = (pf - p2) * n * 2.0;
        let cases: [(Algorithm, f64, f64); 6] = [
            (
                Algorithm::Naive,
                (pf - 1.0) * (a + n * b) + (pf - 1.0) * n * g,
                pf * (pf - 1.0) * n,
            ),
            (
                // One-port: the server receives p messages, then sends p.
                Algorithm::ParameterServer { shards: 1 },
                2.0 * pf * (a + n * b) + pf * n * g,
                2.0 * pf * n,
            ),
            (
                Algorithm::Ring,
                2.0 * (pf - 1.0) * a + 2.0 * ((pf - 1.0) / pf) * n * b + ((pf - 1.0) / pf) * n * g,
                2.0 * (pf - 1.0) * n,
            ),
            (
                Algorithm::Tree,
                2.0 * ceil_lg * (a + n * b) + ceil_lg * n * g,
                2.0 * (pf - 1.0) * n,
            ),
            (
                Algorithm::RecursiveDoubling,
                fold + lg2 * (a + n * b + n * g) + unfold,
                p2 * lg2 * n + extra_bytes,
            ),
            (
                Algorithm::Rabenseifner,
                fold + 2.0 * lg2 * a + 2.0 * ((p2 - 1.0) / p2) * n * b + ((p2 - 1.0) / p2) * n * g + unfold,
                2.0 * (p2 - 1.0) * n + extra_bytes,
            ),
        ];
        for (alg, time, bytes) in cases {
            let c = cost(&Schedule::new(alg, p, elems, 1), &topo, 4.0);
            close(&format!("{} p={p} time", alg.label()), c.seconds, time);
            close(&format!("{} p={p} bytes", alg.label()), c.bytes, bytes);
        }
        // s servers each own n/s: each receives p messages of n/s and sends p back, while each
        // worker sends (then receives) s messages of n/s; the busier side sets each step.
        let s = 3.0;
        let server_side = pf * (a + n / s * b);
        let worker_side = s * a + n * b;
        let c = cost(
            &Schedule::new(Algorithm::ParameterServer { shards: 3 }, p, elems, 1),
            &topo,
            4.0,
        );
        close(
            &format!("sharded server p={p}"),
            c.seconds,
            (server_side + pf * n / s * g).max(worker_side) + server_side.max(worker_side),
        );
    }
}

/// Inside a node of g GPUs the leader gathers g − 1 messages one at a time (one-port), the
/// leaders ring-allreduce over the slow link, and the leader sends the result g − 1 times.
#[test]
fn the_hierarchical_cost_matches_its_closed_form() {
    let fast = Link {
        alpha: 1e-6,
        beta: 1.0 / 100e9,
        gamma: 1.0 / 200e9,
    };
    let slow = Link {
        alpha: 2e-5,
        beta: 1.0 / 1e9,
        gamma: 1.0 / 200e9,
    };
    for (p, gpus) in [(6usize, 3usize), (12, 4), (5, 1), (16, 4)] {
        let topo = Topology {
            gpus_per_node: gpus,
            intra: fast,
            inter: slow,
        };
        let elems = 60 * 1024;
        let n = elems as f64 * 4.0;
        let (gf, m) = (gpus as f64, (p / gpus) as f64);
        let inside = (gf - 1.0) * (fast.alpha + n * fast.beta);
        let ring = 2.0 * (m - 1.0) * slow.alpha
            + 2.0 * ((m - 1.0) / m) * n * slow.beta
            + ((m - 1.0) / m) * n * slow.gamma;
        let want = inside + (gf - 1.0) * n * fast.gamma + ring + inside;
        let c = cost(
            &Schedule::new(Algorithm::Hierarchical, p, elems, gpus),
            &topo,
            4.0,
        );
        close(&format!("hierarchical p={p} g={gpus}"), c.seconds, want);
    }
}

#[test]
fn ring_beats_tree_on_big_vectors_and_tree_wins_on_small_ones() {
    let topo = Topology::flat(Link::preset("10gbe").unwrap());
    let t = |alg, n| cost(&Schedule::new(alg, 16, n, 1), &topo, 4.0).seconds;
    assert!(t(Algorithm::Ring, 10_000_000) < t(Algorithm::Tree, 10_000_000));
    assert!(t(Algorithm::Tree, 16) < t(Algorithm::Ring, 16));
}

#[test]
fn hierarchical_sends_between_nodes_only_what_the_leaders_exchange() {
    let fast = Link::preset("nvlink").unwrap();
    let slow = Link::preset("10gbe").unwrap();
    let topo = Topology {
        gpus_per_node: 8,
        intra: fast,
        inter: slow,
    };
    let n = 1_000_000;
    let flat_ring = cost(&Schedule::new(Algorithm::Ring, 32, n, 8), &topo, 4.0).seconds;
    let hier = cost(&Schedule::new(Algorithm::Hierarchical, 32, n, 8), &topo, 4.0).seconds;
    assert!(
        hier < flat_ring,
        "hierarchical {hier} s vs flat ring {flat_ring} s over slow links"
    );
}

#[test]
fn coverage_replays_the_schedule_on_sets() {
    for alg in algorithms() {
        for p in [1usize, 2, 3, 5, 8, 12, 16] {
            let n = 37;
            let s = Schedule::new(alg, p, n, 4);
            let cov = s.coverage();
            assert_eq!(cov.frames.len(), s.steps.len() + 1);
            let all = if p == 64 { u64::MAX } else { (1u64 << p) - 1 };
            let last = cov.frames.last().unwrap();
            for (w, node) in last.iter().take(p).enumerate() {
                assert!(
                    node.iter().all(|&m| m == all),
                    "{} p={p}: worker {w}",
                    alg.label()
                );
            }
            // After each prefix of steps, a node holds as many contributions as executing that
            // prefix on all-ones vectors sums, element by element.
            for k in 0..=s.steps.len() {
                let prefix = Schedule {
                    steps: s.steps[..k].to_vec(),
                    ..s.clone()
                };
                let mut ones = vec![vec![1.0f32; n]; p];
                prefix.execute(&mut ones);
                for (w, values) in ones.iter().enumerate() {
                    for seg in 0..cov.bounds.len() - 1 {
                        let count = cov.frames[k][w][seg].count_ones() as f32;
                        let range = &values[cov.bounds[seg]..cov.bounds[seg + 1]];
                        assert!(
                            range.iter().all(|&v| v == count),
                            "{} p={p} step {k} worker {w}",
                            alg.label()
                        );
                    }
                }
            }
        }
    }
}
