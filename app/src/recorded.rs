//! The scaffold of a lab that trains runs one after another and records them (precision, scaling,
//! parallelism, cluster). The lab fills in its settings, its record, its controls and what one run
//! is; this gives it the rest. `RecordedPage` is the page's prelude: the settings read from the
//! link, the backend choice, the error banner's message, the run bar's job, the record, a redraw
//! when a view of the record changes, and the page's frame (header, banner, run bar, the settings
//! column, the charts). `Run::each` is the loop: per run a status line and its share of the
//! progress bar, the GPU with the CPU path as its fallback, the record extended and drawn, then a
//! frame for the page.

use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;

use leptos::prelude::*;

use engine::gpu::GpuContext;
use lab_state::lab::{Backend, LabState, RunsOn};

use crate::error::RunError;
use crate::frame::{next_frame, Pacer};
use crate::job::{run_bar, Job};

/// What a recorded lab's view binds, copied out of its `RecordedPage` in one line.
pub struct Signals<S: Send + Sync + 'static, R: Send + Sync + 'static> {
    pub settings: RwSignal<S>,
    pub error: RwSignal<Option<String>>,
    pub record: RwSignal<Option<R>>,
    pub status: RwSignal<String>,
    pub running: RwSignal<bool>,
}

/// A recorded lab's page state, made first in the page's component.
#[derive(Clone)]
pub struct RecordedPage<S: Send + Sync + 'static, R: Send + Sync + 'static> {
    pub settings: RwSignal<S>,
    pub notices: RwSignal<Vec<String>>,
    pub error: RwSignal<Option<String>>,
    pub job: Job,
    pub record: RwSignal<Option<R>>,
}

impl<S: LabState + RunsOn + Send + Sync + 'static, R: Send + Sync + 'static> RecordedPage<S, R> {
    /// `idle`: the status before a first run; `kept`: what a cancelled or failed run leaves shown.
    pub fn new(idle: &str, kept: &'static str) -> Self {
        let (settings, notices) = crate::share::url_state::<S>();
        let error = RwSignal::new(None);
        Self {
            settings,
            notices,
            error,
            job: Job::new(idle, error, kept),
            record: RwSignal::new(None),
        }
    }

    /// The signals the page's view binds.
    pub fn signals(&self) -> Signals<S, R> {
        Signals {
            settings: self.settings,
            error: self.error,
            record: self.record,
            status: self.job.status,
            running: self.job.running,
        }
    }

    /// Redraws the last record, once it holds a run, each time `view` changes (a log scale, the
    /// run to inspect): the charts follow the choice without training again.
    pub fn redraw_on(
        &self,
        view: impl Fn() + 'static,
        has_runs: fn(&R) -> bool,
        redraw: impl Fn(&R) + 'static,
    ) {
        let record = self.record;
        Effect::new(move |_| {
            view();
            record.with_untracked(|r| {
                if let Some(r) = r.as_ref().filter(|r| has_runs(r)) {
                    redraw(r);
                }
            });
        });
    }

    /// Starts `work` as the page's job (unless one is running, which the run bar says), given the
    /// `Run` it reports to and records into; its settings were checked by the caller, whose
    /// message for bad ones goes to `error`.
    pub fn start<F>(&self, work: impl FnOnce(Run<R>) -> F)
    where
        F: Future<Output = Result<(), RunError>> + 'static,
    {
        let (status, progress, record) = (self.job.status, self.job.progress, self.record);
        let webgpu = self.settings.with_untracked(|s| s.backend() == Backend::Webgpu);
        self.job.start(move |cancel| {
            work(Run {
                webgpu,
                status,
                progress,
                cancel,
                record,
            })
        });
    }

    /// The page: its header, the error banner, then the run bar (with the lab's start buttons),
    /// the settings column (the link and file bar first, then the lab's controls) and the charts.
    /// `prefix` is the lab's test-id prefix (`prec`: `prec-error`, `prec-status`).
    pub fn frame(
        &self,
        (title, tagline, prefix): (&'static str, &'static str, &'static str),
        starts: impl IntoView + 'static,
        controls: impl IntoView + 'static,
        charts: impl IntoView + 'static,
    ) -> impl IntoView {
        view! {
            {crate::layout::lab_header(title, tagline)}
            <crate::banner::ErrorBanner error=self.error id=format!("{prefix}-error")/>
            <main class="lab">
                {run_bar(&self.job, prefix, starts)}
                <section class="controls" aria-label="settings">
                    <crate::share::StateBar state=self.settings notices=self.notices/>
                    {controls}
                </section>
                {charts}
            </main>
        }
    }
}

/// What a job's runs report to and record into.
pub struct Run<R: Send + Sync + 'static> {
    pub webgpu: bool,
    pub status: RwSignal<String>,
    pub progress: RwSignal<f64>,
    pub cancel: Rc<Cell<bool>>,
    pub record: RwSignal<Option<R>>,
}

impl<R: Send + Sync + 'static> Run<R> {
    /// The GPU the runs start on (None: the CPU path, or WebGPU refused, which the status says).
    pub async fn gpu(&self) -> Option<Rc<GpuContext>> {
        crate::gpu::gpu_if(self.webgpu, self.status).await
    }

    /// Trains `items` one after another until the job is cancelled: for each, the status names it
    /// ("run 2 of 5: fp16 on the CPU path…"), `train(i, item, gpu, pacer)` trains it (again on the
    /// CPU path if the GPU is lost), `keep` adds its result to the record, and `redraw` draws the
    /// record. `train` reports its progress through `self.progress_of(i, n, done)`.
    pub async fn each<T, Out>(
        &self,
        gpu: &mut Option<Rc<GpuContext>>,
        items: &[T],
        name: impl Fn(&T) -> String,
        mut train: impl AsyncFnMut(usize, &T, Option<Rc<GpuContext>>, &Pacer) -> Result<Out, RunError>,
        keep: impl Fn(&mut R, Out),
        redraw: impl Fn(&R),
    ) -> Result<(), RunError> {
        for (i, item) in items.iter().enumerate() {
            if self.cancel.get() {
                break;
            }
            self.status.set(format!(
                "run {} of {}: {} on {}…",
                i + 1,
                items.len(),
                name(item),
                crate::gpu::runs_on(gpu)
            ));
            let pacer = Pacer::new();
            let out = crate::gpu::with_fallback(gpu, async |g| train(i, item, g, &pacer).await).await?;
            self.record.update(|r| {
                if let Some(r) = r {
                    keep(r, out);
                }
            });
            self.record.with_untracked(|r| r.as_ref().map(&redraw));
            next_frame().await;
        }
        self.progress.set(1.0);
        Ok(())
    }

    /// Sets the progress bar to run `i` of `n` being `done` (0 to 1) through, then gives the page
    /// a frame when one is due: whether to go on (not cancelled).
    pub async fn go_on(&self, pacer: &Pacer, (i, n, done): (usize, usize, f64)) -> bool {
        self.progress
            .set((i as f64 + done.clamp(0.0, 1.0)) / n.max(1) as f64);
        pacer.go_on(&self.cancel).await
    }
}
