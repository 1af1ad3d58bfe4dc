//! The course's lessons as the native tests read them (public/lessons/<id>.json): a section's
//! link, what it measures, and the range its claimed choice spans, so a lesson's text and the
//! test that backs it cannot drift apart.

use std::path::PathBuf;

use serde_json::Value;

/// A data file of `data/` (made by setup; the same images the page fetches in slices from the
/// site's `data/`): the reader the engine's `DataConfig::load` takes.
pub fn read_data(name: &str) -> Result<Vec<u8>, String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e}"))
}

/// One section of a lesson file.
pub struct Section {
    /// The lab's settings as the lesson locks them (a query string).
    pub state: String,
    /// The measure: a metric's name, or an expression such as `{a} - {b}`.
    pub measure: Value,
    /// The claimed choice's bounds (min inclusive, max exclusive), as public/lesson.js reads them.
    pub claim: (Option<f64>, Option<f64>),
    /// The claimed choice's texts, where the measure is a text (`"is": "Shirt"` or a list).
    pub claim_is: Vec<String>,
    pub heading: String,
    /// The claim's explanation, as the reveal shows it.
    pub why: String,
}

/// The sections of lesson `id`.
pub fn sections(id: &str) -> Vec<Section> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../public/lessons/{id}.json"));
    let lesson: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    lesson["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let claimed = &s["predict"]["choices"][s["claim"].as_u64().unwrap() as usize];
            Section {
                state: s["state"].as_str().unwrap_or("").to_string(),
                measure: s["measure"].clone(),
                claim: (claimed["min"].as_f64(), claimed["max"].as_f64()),
                claim_is: match &claimed["is"] {
                    Value::String(t) => vec![t.clone()],
                    Value::Array(ts) => ts.iter().filter_map(|t| t.as_str().map(String::from)).collect(),
                    _ => Vec::new(),
                },
                heading: s["heading"].as_str().unwrap().to_string(),
                why: s["why"].as_str().unwrap_or("").to_string(),
            }
        })
        .collect()
}

impl Section {
    /// Whether `value` falls in the claimed choice.
    pub fn holds(&self, value: f64) -> bool {
        self.claim.0.is_none_or(|min| value >= min) && self.claim.1.is_none_or(|max| value < max)
    }

    /// The measure over `metrics` (name → value): a metric, or `{a} - {b}` / `{a} / {b}`, with an
    /// optional leading factor (`100 * ({a} - {b})`, `100 * {a}`).
    pub fn measure(&self, metric: impl Fn(&str) -> f64) -> f64 {
        if let Some(name) = self.measure["metric"].as_str() {
            return metric(name);
        }
        let expr = self.measure["expr"].as_str().expect("a metric or an expression");
        let names: Vec<&str> = expr
            .split('{')
            .skip(1)
            .map(|part| part.split('}').next().unwrap())
            .collect();
        let factor = match expr.split_once(" * ") {
            Some((n, _)) => n.trim().parse::<f64>().expect("a numeric factor"),
            None => 1.0,
        };
        if let [only] = names[..] {
            // `100 * {a}`: a share shown in percent.
            return factor * metric(only);
        }
        assert_eq!(names.len(), 2, "{expr}: the native runner reads one or two metrics");
        let (a, b) = (metric(names[0]), metric(names[1]));
        if expr.contains(" - ") {
            factor * (a - b)
        } else if expr.contains(" / ") {
            factor * (a / b)
        } else {
            panic!("{expr}: an operator the native runner does not read")
        }
    }

    /// Asserts that `value`, measured natively, is the claimed choice.
    pub fn assert_claim(&self, lesson: &str, value: f64) {
        eprintln!("{lesson} \"{}\": measured {value:.4}", self.heading);
        assert!(
            self.holds(value),
            "{lesson} \"{}\": measured {value}, outside the claimed {:?}",
            self.heading,
            self.claim
        );
    }
}

/// The seeds a section's claim is checked at when its link leaves the seed to the lab.
pub const SEEDS: [u64; 5] = [1, 2, 3, 4, 5];

impl Section {
    /// The seeds to check the claim at: the one the section's link pins (its why must say so
    /// and why), else every one of [`SEEDS`].
    pub fn seeds(&self) -> Vec<u64> {
        let pinned = self
            .state
            .split('&')
            .find_map(|kv| kv.strip_prefix("seed="))
            .map(|n| n.parse::<u64>().expect("a whole-number seed"));
        match pinned {
            Some(seed) => {
                assert!(
                    self.why.contains("pins the seed"),
                    "\"{}\": a pinned seed is explained in the why",
                    self.heading
                );
                vec![seed]
            }
            None => SEEDS.to_vec(),
        }
    }
}

/// `run` on every job at once, one thread each (the runs are independent and the test machine's
/// cores should all work): the results in the jobs' order.
pub fn in_parallel<J: Sync, T: Send>(jobs: &[J], run: impl Fn(&J) -> T + Sync) -> Vec<T> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = jobs.iter().map(|job| scope.spawn(|| run(job))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// One run of a lab's settings for [`in_parallel`]: its label, the settings, on lavapipe or not.
pub type Job<L> = (String, L, bool);

/// The CPU-path runs of `lab` at each of the section's seeds (`reseed` sets one), then the
/// lesson's own seed on lavapipe where `on_gpu`.
pub fn seed_jobs<L: Clone>(
    section: &Section,
    lab: &L,
    seed: u64,
    reseed: impl Fn(&L, u64) -> L,
    on_gpu: bool,
) -> Vec<Job<L>> {
    let mut jobs: Vec<Job<L>> = section
        .seeds()
        .into_iter()
        .map(|s| (format!("seed {s}, CPU path"), reseed(lab, s), false))
        .collect();
    if on_gpu {
        jobs.push((format!("seed {seed}, lavapipe"), lab.clone(), true));
    }
    jobs
}
