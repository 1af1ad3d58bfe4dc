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
    /// Every other choice's texts (a claim marked `otherwise` holds where none of these does).
    pub others_is: Vec<String>,
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
            let claim = s["claim"].as_u64().unwrap() as usize;
            let claimed = &s["predict"]["choices"][claim];
            let texts = |c: &Value| match &c["is"] {
                Value::String(t) => vec![t.clone()],
                Value::Array(ts) => ts.iter().filter_map(|t| t.as_str().map(String::from)).collect(),
                _ => Vec::new(),
            };
            let others_is = s["predict"]["choices"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != claim)
                .flat_map(|(_, c)| texts(c))
                .collect();
            Section {
                state: s["state"].as_str().unwrap_or("").to_string(),
                measure: s["measure"].clone(),
                claim: (claimed["min"].as_f64(), claimed["max"].as_f64()),
                claim_is: texts(claimed),
                others_is,
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

    /// The measure over `metrics` (name → value): a metric, or an expression of numbers,
    /// `{metric}` names, + − × ÷, parentheses and log/abs/min/max, read as public/lesson-measure.js
    /// reads it.
    pub fn measure(&self, metric: impl Fn(&str) -> f64) -> f64 {
        if let Some(name) = self.measure["metric"].as_str() {
            return metric(name);
        }
        let expr = self.measure["expr"].as_str().expect("a metric or an expression");
        Expr::new(expr, &metric).value()
    }

    /// Whether a text measured natively falls in the claimed choice: one of its texts, or, for a
    /// claim marked `otherwise`, none of the other choices' texts.
    pub fn holds_text(&self, text: &str) -> bool {
        if self.claim_is.is_empty() {
            !self.others_is.iter().any(|c| c == text)
        } else {
            self.claim_is.iter().any(|c| c == text)
        }
    }

    /// Asserts that `text`, measured natively, is the claimed choice (`holds_text`).
    pub fn assert_text_claim(&self, lesson: &str, text: &str) {
        eprintln!("{lesson} \"{}\": measured {text}", self.heading);
        assert!(
            self.holds_text(text),
            "{lesson} \"{}\": measured {text}, not the claimed {:?}",
            self.heading,
            self.claim_is
        );
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

/// A lesson's expression evaluated as `public/lesson-measure.js` evaluates it.
struct Expr<'a, F: Fn(&str) -> f64> {
    tokens: Vec<String>,
    at: usize,
    metric: &'a F,
    text: &'a str,
}

impl<'a, F: Fn(&str) -> f64> Expr<'a, F> {
    fn new(text: &'a str, metric: &'a F) -> Self {
        let mut tokens = Vec::new();
        let mut rest = text.trim_start();
        while let Some(c) = rest.chars().next() {
            let len = if c == '{' {
                rest.find('}').expect("a closing }") + 1
            } else if c.is_ascii_digit() {
                rest.find(|ch: char| !(ch.is_ascii_digit() || ch == '.' || ch == 'e')).unwrap_or(rest.len())
            } else if c.is_ascii_alphabetic() {
                rest.find(|ch: char| !ch.is_ascii_alphabetic()).unwrap_or(rest.len())
            } else {
                c.len_utf8()
            };
            tokens.push(rest[..len].to_string());
            rest = rest[len..].trim_start();
        }
        Self { tokens, at: 0, metric, text }
    }

    fn next(&mut self) -> String {
        self.at += 1;
        self.tokens.get(self.at - 1).cloned().unwrap_or_else(|| panic!("\"{}\" ends too soon", self.text))
    }

    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn value(mut self) -> f64 {
        let v = self.sum();
        assert_eq!(self.at, self.tokens.len(), "\"{}\": unexpected {:?}", self.text, self.peek());
        v
    }

    fn sum(&mut self) -> f64 {
        let mut v = self.product();
        while let Some(op @ ("+" | "-")) = self.peek() {
            let plus = op == "+";
            self.at += 1;
            let w = self.product();
            v = if plus { v + w } else { v - w };
        }
        v
    }

    fn product(&mut self) -> f64 {
        let mut v = self.primary();
        while let Some(op @ ("*" | "/")) = self.peek() {
            let times = op == "*";
            self.at += 1;
            let w = self.primary();
            v = if times { v * w } else { v / w };
        }
        v
    }

    fn primary(&mut self) -> f64 {
        let t = self.next();
        match t.as_str() {
            "(" => {
                let v = self.sum();
                assert_eq!(self.next(), ")", "\"{}\": a ) is missing", self.text);
                v
            }
            "-" => -self.primary(),
            _ if t.starts_with('{') => (self.metric)(&t[1..t.len() - 1]),
            _ if t.starts_with(|c: char| c.is_ascii_digit()) => t.parse().expect("a number"),
            name => {
                let name = name.to_string();
                assert_eq!(self.next(), "(", "\"{}\": unknown name {name}", self.text);
                let mut args = vec![self.sum()];
                while self.peek() == Some(",") {
                    self.at += 1;
                    args.push(self.sum());
                }
                assert_eq!(self.next(), ")", "\"{}\": a ) is missing", self.text);
                match (name.as_str(), &args[..]) {
                    ("log", [x]) => x.ln(),
                    ("abs", [x]) => x.abs(),
                    ("min", _) => args.iter().copied().fold(f64::INFINITY, f64::min),
                    ("max", _) => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    _ => panic!("\"{}\": unknown function {name}", self.text),
                }
            }
        }
    }
}

#[test]
fn expressions_read_as_the_page_reads_them() {
    let m = |name: &str| match name {
        "a" => 8.0,
        "b" => 2.0,
        _ => panic!("{name}"),
    };
    let at = |text: &str| Expr::new(text, &m).value();
    assert_eq!(at("{a} / {b}"), 4.0);
    assert_eq!(at("100 * ({a} - {b})"), 600.0);
    assert_eq!(at("1 + 2 * 3 - -1"), 8.0);
    assert!((at("log({a}) / log({b})") - 3.0).abs() < 1e-12);
    assert_eq!(at("max(1, {b}, abs(-5)) - min(3, 4)"), 2.0);
    assert_eq!(at("1.5e2 / 3"), 50.0);
}
