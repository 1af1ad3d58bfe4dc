//! Every setting over its whole accepted range, natively and compiled for wasm32 (the browser's
//! 32-bit target, where a `usize` product wraps at 4·10⁹): `scripts/test.sh` runs this file a
//! second time under node through `wasm-bindgen-test` (the `wasm32` test target), so a count
//! that wraps fails there and an overflow panics (test builds check arithmetic).
//!
//! - Every lab of the registry, each setting at values past both ends of its range (and all of
//!   them at once), and 300 seeded random links a lab: the state read is within its table's
//!   ranges and writes back to a link that reads as the same state with no notice.
//! - The counts the labs compute from their settings alone, at those extremes, against
//!   references counted here in 128 bits: the systolic array's cycles, multiply-adds and
//!   traffic, the tile sweep's tiles and bytes, the first fold the picture animates; and the
//!   attention, parallelism, sparsity and precision labs' derived settings stay finite and within
//!   their ranges.

use lab_sims::hardware::systolic::{self, Dataflow, Gemm};
use lab_sims::hardware::tiling;
use lab_state::hardware::HardwareLab;
use lab_state::lab::LabState;
use lab_state::{for_each_lab, table, EachLab};

/// Text past both ends of any numeric range the tables hold, and values a 32-bit count wraps.
const EXTREMES: [&str; 6] = ["1e15", "-1e15", "0", "4294967297", "65536", "1"];

/// Each lab's settings at one extreme value each, then all at once.
struct Extremes {
    labs: usize,
}

impl EachLab for Extremes {
    fn lab<S: LabState + std::fmt::Debug + 'static>(&mut self, id: &str) {
        self.labs += 1;
        let keys: Vec<&str> = S::SETTINGS.iter().map(|r| r.key).collect();
        let mut queries: Vec<String> = keys
            .iter()
            .flat_map(|k| EXTREMES.iter().map(move |v| format!("{k}={v}")))
            .collect();
        for v in ["1e15", "-1e15"] {
            queries.push(
                keys.iter()
                    .map(|k| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join("&"),
            );
        }
        for query in queries {
            reads_in_range_and_back::<S>(id, &query);
        }
    }
}

/// The state `query` gives lab `id` is within its table's ranges and writes back to a link that
/// reads as the same state with no notice.
fn reads_in_range_and_back<S: LabState + std::fmt::Debug>(id: &str, query: &str) {
    let (state, _) = S::from_query(query);
    assert_eq!(
        table::refusal(&state),
        None,
        "{id}?{query}: read outside its range"
    );
    let (again, notices) = S::from_query(&state.to_query());
    assert!(notices.is_empty(), "{id}?{query}: {notices:?}");
    assert_eq!(again, state, "{id}?{query}: the link does not read back");
}

/// Random links, seeded (proptest's fuzzing of links, `fuzz_state.rs`, runs natively only: it asks
/// the OS for randomness): each lab's keys with values drawn from across and past their ranges,
/// read and checked as above. 300 links a lab.
struct Fuzzed {
    rng: engine::rng::Rng,
}

impl EachLab for Fuzzed {
    fn lab<S: LabState + std::fmt::Debug + 'static>(&mut self, id: &str) {
        let keys: Vec<&str> = S::SETTINGS.iter().map(|r| r.key).collect();
        for _ in 0..300 {
            let pairs: Vec<String> = (0..1 + self.rng.below(6))
                .map(|_| {
                    let key = keys[self.rng.below(keys.len())];
                    let value = match self.rng.below(4) {
                        0 => EXTREMES[self.rng.below(EXTREMES.len())].to_string(),
                        1 => (self.rng.next_u64() >> self.rng.below(64)).to_string(),
                        2 => format!(
                            "{}",
                            self.rng.range(-2.0, 2.0) * 10f32.powi(self.rng.below(12) as i32)
                        ),
                        _ => ["NaN", "inf", "-0", "", "1,2,3", "%00", "true"][self.rng.below(7)].to_string(),
                    };
                    format!("{key}={value}")
                })
                .collect();
            reads_in_range_and_back::<S>(id, &pairs.join("&"));
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn random_links_to_every_lab_stay_in_range_and_read_back() {
    for_each_lab(&mut Fuzzed {
        rng: engine::rng::Rng::new(80),
    });
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn every_labs_settings_at_their_extremes_stay_in_range_and_read_back() {
    let mut visit = Extremes { labs: 0 };
    for_each_lab(&mut visit);
    assert_eq!(visit.labs, lab_state::registry::labs().len());
}

/// Sides and arrays across the hardware lab's ranges (1 to 10⁵, 1 to 256), both ends included.
const SIDES: [usize; 7] = [1, 7, 255, 2048, 65_536, 99_999, 100_000];
const ARRAYS: [usize; 5] = [1, 2, 37, 128, 256];

/// A systolic product's whole count, in 128 bits by the folds' rows (each row of folds: its
/// column tiles' cycles summed, their widths adding to n).
fn cycles_by_rows(flow: Dataflow, g: Gemm, side: usize) -> u128 {
    let (m, k, n, a) = (g.m as u128, g.k as u128, g.n as u128, side as u128);
    let tall = if flow == Dataflow::OutputStationary { m } else { k };
    let col_tiles = n.div_ceil(a);
    let mut total = 0;
    let mut r0 = 0;
    while r0 < tall {
        let rows = a.min(tall - r0);
        total += match flow {
            // Each fold: k + R + C − 2.
            Dataflow::OutputStationary => col_tiles * (k + rows - 2) + n,
            // Each fold: R (loading) + m + R + C − 2.
            Dataflow::WeightStationary => col_tiles * (2 * rows + m - 2) + n,
        };
        r0 += a;
    }
    total
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_hardware_labs_counts_over_its_whole_range_are_the_128_bit_counts() {
    for &m in &SIDES {
        for &k in &[1, 784, 100_000] {
            for &n in &[1, 4097, 100_000] {
                let query = format!("m={m}&k={k}&n={n}");
                let (lab, notices) = HardwareLab::from_query(&query);
                assert!(notices.is_empty(), "{query}: {notices:?}");
                let g = lab.gemm();
                let (m128, k128, n128) = (m as u128, k as u128, n as u128);
                assert_eq!(systolic::macs(g) as u128, m128 * k128 * n128, "{query}");
                assert_eq!(tiling::product_flops(m, n, k), 2.0 * (m128 * n128 * k128) as f64);
                for &side in &ARRAYS {
                    for flow in [Dataflow::OutputStationary, Dataflow::WeightStationary] {
                        let at = format!("{query} on {side} × {side}, {flow:?}");
                        let cycles = systolic::cycles(flow, g, side, side);
                        assert_eq!(cycles as u128, cycles_by_rows(flow, g, side), "{at}");
                        let u = systolic::utilization(flow, g, side, side);
                        assert!(u > 0.0 && u <= 1.0 + 1e-12, "{at}: utilization {u}");
                        // Every operand crosses the array's edge at least once.
                        let moved = systolic::traffic(flow, g, side, side).total() as u128;
                        assert!(moved >= m128 * k128 + k128 * n128 + m128 * n128, "{at}");
                        let fold = systolic::first_fold_gemm(flow, g, side);
                        assert!(fold.m <= m && fold.k <= k && fold.n <= n.min(side), "{at}");
                    }
                }
                for row in tiling::tile_rows(m, n, k, &[]) {
                    let t = row.edge as u128;
                    let tiles = m128.div_ceil(t) * n128.div_ceil(t);
                    let bytes =
                        4 * (m128 * k128 * n128.div_ceil(t) + k128 * n128 * m128.div_ceil(t) + m128 * n128);
                    assert_eq!(row.tiles as u128, tiles, "{query} in {}", row.code);
                    assert_eq!(row.bytes, bytes as f64, "{query} in {}", row.code);
                }
                let fits = [m128 * k128, k128 * n128, m128 * n128]
                    .iter()
                    .all(|f| *f <= 1 << 24);
                assert_eq!(tiling::sweep_fits(m, n, k), fits, "{query}");
            }
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_distributed_roofline_over_its_whole_range_is_finite() {
    for query in [
        "cluster_batch=2&worker_gflops=0.001",
        "cluster_batch=65536&worker_gflops=1000000",
        "cluster_batch=1e15&worker_gflops=1e15&link=99",
    ] {
        let (lab, _) = HardwareLab::from_query(query);
        let (points, (peak, bandwidth)) = lab.distributed();
        assert!(peak > 0.0 && bandwidth > 0.0, "{query}");
        for p in points {
            assert_eq!(p.worker_batch, lab.cluster_batch / p.workers, "{query}");
            let figures = [p.flops, p.bytes, p.attainable];
            assert!(
                figures.iter().all(|x| x.is_finite() && *x > 0.0),
                "{query}: {p:?}"
            );
            assert!(p.attainable <= peak, "{query}: {p:?}");
        }
    }
}

/// The other new labs at every setting's largest and smallest value: what they derive from their
/// settings alone (before any run) is within range and finite.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_attention_parallelism_sparsity_and_precision_settings_derive_within_range() {
    use lab_state::attention::AttentionLab;
    use lab_state::parallelism::ParallelismLab;
    use lab_state::precision::{run_chunk, PrecisionLab};
    use lab_state::sparsity::SparsityLab;
    for v in ["1e15", "-1e15"] {
        let plan = AttentionLab::from_query(&all_at("attention", v)).0.plan();
        assert!(
            plan.width % plan.heads == 0 && plan.width <= lab_state::attention::MAX_WIDTH,
            "{v}: {plan:?}"
        );
        assert!(
            plan.steps >= 1 && plan.every >= 1 && !plan.decays.is_empty(),
            "{v}: {plan:?}"
        );

        let p = ParallelismLab::from_query(&all_at("parallelism", v)).0;
        assert!(
            p.segment_length() >= 1 && p.segment_length() <= p.layers(),
            "{v}: {p:?}"
        );
        let machine = p.machine();
        assert!(
            machine.memory > 0 && machine.flops_per_second.is_finite(),
            "{v}: {machine:?}"
        );
        for way in ["plain", "checkpoint", "zero", "pipeline"] {
            let layout = p.layout(way).expect("a way the lab names");
            if let Some(rows) = layout.micro_rows(p.batch) {
                assert_eq!(rows * layout.data * layout.micro, p.batch, "{v} {way}");
            }
        }

        let s = SparsityLab::from_query(&all_at("sparsity", v)).0;
        let plan = s.plan();
        assert!(
            plan.eval_every >= 1 && plan.rewind_step <= plan.steps,
            "{v}: {plan:?}"
        );
        assert!(plan.prune > 0.0 && plan.prune < 1.0, "{v}: {plan:?}");

        let precision = PrecisionLab::from_query(&all_at("precision", v)).0;
        assert!(precision.configs().is_ok(), "{v}: {precision:?}");
    }
    for flops in [0.0, 1.0, 1e15, f64::MAX, f64::NAN] {
        assert!(run_chunk(flops) >= 1, "{flops}");
    }
}

/// A link setting every setting of lab `lab` to `v`.
fn all_at(lab: &str, v: &str) -> String {
    let mut query = String::new();
    keys_of(|id, keys| {
        if id == lab {
            query = keys
                .iter()
                .map(|k| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("&");
        }
    });
    query
}

/// Calls `visit` with every lab's id and its settings' keys.
fn keys_of(mut visit: impl FnMut(&str, &[&str])) {
    struct Keys<'a>(&'a mut dyn FnMut(&str, &[&str]));
    impl EachLab for Keys<'_> {
        fn lab<S: LabState + std::fmt::Debug + 'static>(&mut self, id: &str) {
            let keys: Vec<&str> = S::SETTINGS.iter().map(|r| r.key).collect();
            (self.0)(id, &keys);
        }
    }
    for_each_lab(&mut Keys(&mut visit));
}
