//! A long computation on a page (a landscape, a sweep, a cluster's runs): one task runs it and
//! owns its work; the page asks it to start or cancel and reads its status, progress and errors.
//! `run_bar` is the bar every such lab shows: its start buttons, Cancel, progress and status.

use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;

use leptos::prelude::*;

/// The lifecycle of one page's long computation.
#[derive(Clone)]
pub struct Job {
    pub running: RwSignal<bool>,
    pub status: RwSignal<String>,
    pub progress: RwSignal<f64>,
    pub error: RwSignal<Option<String>>,
    /// The answer to a command that could not be carried out, and why.
    pub refusal: RwSignal<Option<String>>,
    cancel: Rc<Cell<bool>>,
    /// When the running work started (`frame::now_ms`), for the run bar's time left.
    started_ms: RwSignal<f64>,
    /// What a cancelled or failed run keeps, in words ("the runs done so far are shown").
    kept: &'static str,
}

impl Job {
    pub fn new(status: &str, error: RwSignal<Option<String>>, kept: &'static str) -> Self {
        Self {
            running: RwSignal::new(false),
            status: RwSignal::new(status.to_string()),
            progress: RwSignal::new(0.0),
            error,
            refusal: RwSignal::new(None),
            cancel: Rc::new(Cell::new(false)),
            started_ms: RwSignal::new(0.0),
            kept,
        }
    }

    /// Runs `work` (given the cancel flag it must watch) unless a run is going on, which is
    /// said instead. The end is reported: "done", the cancel notice, or the error.
    pub fn start<W, F>(&self, work: W)
    where
        W: FnOnce(Rc<Cell<bool>>) -> F,
        F: Future<Output = Result<(), crate::error::RunError>> + 'static,
    {
        if self.running.get_untracked() {
            self.refusal.set(Some(
                "A run is going on: cancel it first, or wait for it to end.".into(),
            ));
            return;
        }
        self.refusal.set(None);
        self.error.set(None);
        self.cancel.set(false);
        self.started_ms.set(crate::frame::now_ms());
        self.progress.set(0.0);
        self.running.set(true);
        let work = work(self.cancel.clone());
        let job = self.clone();
        leptos::task::spawn_local(async move {
            let result = work.await;
            job.report_end(result);
            job.running.set(false);
        });
    }

    /// Asks the running work to stop at its next check.
    pub fn cancel(&self) {
        if !self.running.get_untracked() {
            self.refusal.set(Some("Nothing is running.".into()));
            return;
        }
        self.cancel.set(true);
        self.status.set("cancelling…".into());
    }

    fn report_end(&self, result: Result<(), crate::error::RunError>) {
        let kept = self.kept;
        self.status.set(match result {
            Ok(()) if self.cancel.get() => format!("cancelled: {kept}"),
            Ok(()) => "done".into(),
            Err(e) => {
                self.error.set(Some(e.to_string()));
                format!("failed (see the message above): {kept}")
            }
        });
    }
}

/// The sticky run bar at the top of the page: start buttons (`starts`), Cancel, the progress bar, the status line, the time left and the refusal line,
/// with test ids `{prefix}-cancel`, `-progress`, `-status`, `-left` and `-refusal`.
pub fn run_bar(job: &Job, prefix: &'static str, starts: impl IntoView) -> impl IntoView {
    let (running, progress, status, refusal) = (job.running, job.progress, job.status, job.refusal);
    let started = job.started_ms;
    // Read when the progress moves: a long run (a link may ask for hours) says how long it has
    // left, from its own pace.
    let left = move || {
        let done = progress.get();
        let elapsed = (crate::frame::now_ms() - started.get_untracked()) / 1000.0;
        running
            .get()
            .then(|| plot_text::time_left::time_left(done, elapsed))
            .flatten()
            .unwrap_or_default()
    };
    let job = job.clone();
    view! {
        <section class="runbar" aria-label="run">
        <div class="buttons">
            {starts}
            <button data-lab-pause="true" class:hidden=crate::share::hidden("cancel") data-testid=format!("{prefix}-cancel") disabled=move || !running.get()
                on:click=move |_| job.cancel()>"Cancel"</button>
        </div>
        <progress data-testid=format!("{prefix}-progress") max="1" prop:value=move || progress.get()></progress>
        <p class="status" data-lab-status="true" data-testid=format!("{prefix}-status")>{move || status.get()}</p>
        // The status changes every step; a screen reader is told only how a run ended.
        <p class="sr-only" role="status" data-testid=format!("{prefix}-announce")>{move || if running.get() { String::new() } else { status.get() }}</p>
        <p class="muted small left" data-testid=format!("{prefix}-left")>{left}</p>
        <p class="muted small refusal" role="status" data-testid=format!("{prefix}-refusal")>{move || refusal.get().unwrap_or_default()}</p>
        </section>
    }
}
