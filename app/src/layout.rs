//! What every lab page shares: the header (title, tagline, the way back), and the buttons that
//! save a lab's results as CSV and JSON and reload them without retraining.

use leptos::prelude::*;
use serde::Serialize;

use lab_sims::record::RunRecord;
use lab_state::registry;

use crate::browser;
use crate::share::hidden;

/// The page header: "Training Lab · `title`", the tagline, and the link back to the playground.
pub fn lab_header(title: &'static str, tagline: &'static str) -> impl IntoView {
    view! {
        <header class="top">
            <h1>{format!("Training Lab · {title}")}</h1>
            <p class="tagline">{tagline}</p>
            {labs_nav()}
            {guide_link()}
        </header>
    }
}

/// The last part of the page's path: a lab's route ("" for the playground), wherever the site is
/// hosted (a course may serve it under a sub-path).
fn route_here() -> String {
    let path = web_sys::window()
        .and_then(|w| w.location().pathname().ok())
        .unwrap_or_default();
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("")
        .to_string()
}

/// The book's chapter on this page's lab (`book/student/<lab>.html`, built from `docs/book` into
/// the site), or the book's start on a page that is not a lab. Relative, like every link here, so
/// it works under a sub-path.
fn guide_href(route: &str) -> String {
    registry::by_route(route).map_or_else(|| "book/index.html".into(), |lab| lab.chapter())
}

/// "Guide to this lab": the lab's chapter of the book (what it shows, what to try, the theory).
pub fn guide_link() -> impl IntoView {
    let href = guide_href(&route_here());
    view! {
        <a class="guide" href=href data-testid="guide-link"
            title="what this lab shows, what to try, and the theory beside it">"guide to this lab"</a>
    }
}

fn labs_nav() -> impl IntoView {
    let here = route_here();
    let labs = registry::labs()
        .iter()
        .map(|lab| (lab.href(), lab.nav.as_str(), lab.route == here));
    let links = std::iter::once(("labs", "all labs", here == "labs")).chain(labs);
    view! {
        <nav class="labs" aria-label="the labs">
            {links.map(|(href, label, current)| {
                view! { <a href=href aria-current=current.then_some("page")>{label}</a> }
            }).collect_view()}
        </nav>
    }
}

/// A lab's saved results as the page keeps them: any record of runs its simulation declares
/// (`lab_sims::run_record!`, beside the record's type).
pub trait Record: RunRecord + Serialize + Clone + Send + Sync + 'static {}

impl<R: RunRecord + Serialize + Clone + Send + Sync + 'static> Record for R {}

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
                Err(e) => error.set(Some(e.to_string())),
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
