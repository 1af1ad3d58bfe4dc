//! What every lab page shares: the header (title, tagline, the way back), and the buttons that
//! save a lab's results as CSV and JSON and reload them without retraining.

use leptos::prelude::*;
use serde::Serialize;

use crate::browser;
use crate::share::hidden;

/// The page header: "Training Lab · `title`", the tagline, and the link back to the playground.
pub fn lab_header(title: &'static str, tagline: &'static str) -> impl IntoView {
    view! {
        <header class="top">
            <h1>{format!("Training Lab · {title}")}</h1>
            <p class="tagline">{tagline}</p>
            {labs_nav()}
        </header>
    }
}

/// Every lab, the same on every page; the page's own is marked as the current one.
const LABS: [(&str, &str); 10] = [
    ("labs", "all labs"),
    ("./", "playground"),
    ("optimizers", "optimizers"),
    ("landscape", "loss landscape"),
    ("scaling", "batch size and learning rate"),
    ("cluster", "data-parallel cluster"),
    ("vision", "vision (CNNs on images)"),
    ("precision", "precision (fp16, bf16, FP8)"),
    ("parallelism", "memory and parallelism"),
    ("bench", "benchmark"),
];

fn labs_nav() -> impl IntoView {
    let here = web_sys::window()
        .and_then(|w| w.location().pathname().ok())
        .unwrap_or_default();
    let here = here
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("")
        .to_string();
    view! {
        <nav class="labs" aria-label="the labs">
            {LABS.map(|(href, label)| {
                let current = href.trim_end_matches('/').trim_start_matches("./") == here
                    || (href == "./" && here.is_empty());
                view! { <a href=href aria-current=current.then_some("page")>{label}</a> }
            }).collect_view()}
        </nav>
    }
}

/// A lab's saved results: a record of runs, its CSV, and how it reads back.
pub trait Record: Serialize + Clone + Send + Sync + 'static {
    fn csv(&self) -> String;
    fn from_json(text: &str) -> Result<Self, String>;
    fn runs(&self) -> usize;
}

impl Record for engine::cluster_run::ClusterRecord {
    fn csv(&self) -> String {
        engine::cluster_run::ClusterRecord::csv(self)
    }
    fn from_json(text: &str) -> Result<Self, String> {
        Ok(engine::cluster_run::ClusterRecord::from_json(text)?)
    }
    fn runs(&self) -> usize {
        self.runs.len()
    }
}

impl Record for engine::scaling::SweepRecord {
    fn csv(&self) -> String {
        engine::scaling::SweepRecord::csv(self)
    }
    fn from_json(text: &str) -> Result<Self, String> {
        Ok(engine::scaling::SweepRecord::from_json(text)?)
    }
    fn runs(&self) -> usize {
        self.runs.len()
    }
}

impl Record for engine::parallelism::record::ParallelismRecord {
    fn csv(&self) -> String {
        engine::parallelism::record::ParallelismRecord::csv(self)
    }
    fn from_json(text: &str) -> Result<Self, String> {
        Ok(engine::parallelism::record::ParallelismRecord::from_json(text)?)
    }
    fn runs(&self) -> usize {
        self.runs.len()
    }
}

impl Record for engine::precision::PrecisionRecord {
    fn csv(&self) -> String {
        engine::precision::PrecisionRecord::csv(self)
    }
    fn from_json(text: &str) -> Result<Self, String> {
        Ok(engine::precision::PrecisionRecord::from_json(text)?)
    }
    fn runs(&self) -> usize {
        self.runs.len()
    }
}

/// Where a record's files go and what the page does with one read back.
pub struct RecordFiles<R> {
    /// Test-id prefix: `{prefix}-export-csv`, `-export-record`, `-load`.
    pub prefix: &'static str,
    /// File names, without extension ("cluster" → cluster.csv, cluster-results.json).
    pub name: &'static str,
    pub csv_label: &'static str,
    pub record: RwSignal<Option<R>>,
    pub error: RwSignal<Option<String>>,
    pub status: RwSignal<String>,
}

/// The CSV and JSON buttons (with `more` beside them, the lab's own downloads) and the reload
/// input; a record read back is shown through `show` and kept, a bad file says why and keeps
/// what is shown.
pub fn record_files<R: Record>(
    f: RecordFiles<R>,
    more: impl IntoView,
    show: impl Fn(&R) + Copy + 'static,
) -> impl IntoView {
    let RecordFiles {
        prefix,
        name,
        csv_label,
        record,
        error,
        status,
    } = f;
    let export_csv = move |_| {
        if let Some(r) = record.get_untracked() {
            browser::download(&format!("{name}.csv"), "text/csv", &r.csv());
        }
    };
    let export_record = move |_| {
        if let Some(r) = record.get_untracked() {
            let json = serde_json::to_string(&r).unwrap_or_default();
            browser::download(&format!("{name}-results.json"), "application/json", &json);
        }
    };
    let load = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        leptos::task::spawn_local(async move {
            match browser::read_file(&input).await {
                Ok((file, text)) => match R::from_json(&text) {
                    Ok(r) => {
                        error.set(None);
                        status.set(format!("loaded {file}: {} runs, no retraining", r.runs()));
                        show(&r);
                        record.set(Some(r));
                    }
                    Err(e) => error.set(Some(format!("{file}: {e} (the results shown are kept)"))),
                },
                Err(e) => error.set(Some(e)),
            }
            input.set_value("");
        });
    };
    let none = move || record.with(Option::is_none);
    view! {
        <div class="buttons wrap">
            <button class:hidden=hidden("export-csv") data-testid=format!("{prefix}-export-csv") disabled=none on:click=export_csv>{csv_label}</button>
            <button class:hidden=hidden("export-record") data-testid=format!("{prefix}-export-record") disabled=none on:click=export_record>"results JSON"</button>
            {more}
        </div>
        <label class:hidden=hidden("load")>"Reload saved results (their JSON)"
            <input type="file" accept=".json,application/json" data-testid=format!("{prefix}-load") on:change=load/>
        </label>
    }
}
