//! A simulated cluster trained to a target: the loss per update against modelled time, accuracy
//! checks, bytes and staleness — what the cluster lab plots, exports and reloads.

use engine::error::Error;
use serde::{Deserialize, Serialize};

use crate::cluster::{Cluster, ClusterConfig, ScalingPoint};
use crate::scaling::{StallWatch, Target, CHECK_EVERY_SAMPLES, CHECK_SAMPLES};
use engine::data::Dataset;
use engine::train::Trainer;

/// One check of the target on the fixed check set.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub step: usize,
    /// Modelled seconds and training samples used so far.
    pub time: f64,
    pub samples: usize,
    pub loss: f32,
    pub accuracy: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterRun {
    pub label: String,
    pub config: ClusterConfig,
    pub worker_batch: usize,
    /// Per update: the batch loss and the modelled time at its end.
    pub losses: Vec<f32>,
    pub times: Vec<f64>,
    pub checks: Vec<Check>,
    /// The first check that met the target.
    pub reached: Option<Check>,
    pub bytes_per_step: f64,
    pub dense_bytes_per_step: f64,
    pub total_bytes: f64,
    pub staleness_mean: f64,
    pub staleness_max: usize,
    pub test_accuracy: Option<f32>,
    /// The loss became NaN or infinite at this update.
    pub diverged_at: Option<usize>,
    /// Stopped here for making no progress on the check set (see `scaling::StallWatch`).
    #[serde(default)]
    pub stalled_at: Option<usize>,
}

impl ClusterRun {
    /// How the run ended, in the word the page publishes (`outcome-…`): "reached" the target,
    /// "diverged", "stalled" (no progress for `STALL_CHECKS` checks) or "not reached" in its budget.
    pub fn outcome(&self) -> &'static str {
        match (self.reached.is_some(), self.diverged_at, self.stalled_at) {
            (true, _, _) => "reached",
            (false, Some(_), _) => "diverged",
            (false, None, Some(_)) => "stalled",
            (false, None, None) => "not reached",
        }
    }
}

/// Trains until the target (checked on the first [`CHECK_SAMPLES`] training samples after about
/// every [`CHECK_EVERY_SAMPLES`] samples) or `max_steps` updates, then measures test accuracy.
/// `progress(steps, max)` is awaited after every check and stops the run by giving false.
pub async fn train_to_target<F: std::future::Future<Output = bool>>(
    label: String,
    cluster: &mut Cluster,
    trainer: &mut Trainer,
    target: Target,
    max_steps: usize,
    test: Option<&Dataset>,
    mut progress: impl FnMut(usize, usize) -> F,
) -> Result<ClusterRun, Error> {
    let check_set = trainer.data.head(CHECK_SAMPLES);
    let mut run = ClusterRun {
        label,
        config: cluster.config.clone(),
        worker_batch: trainer.config.batch,
        losses: Vec::new(),
        times: Vec::new(),
        checks: Vec::new(),
        reached: None,
        bytes_per_step: 0.0,
        dense_bytes_per_step: 0.0,
        total_bytes: 0.0,
        staleness_mean: 0.0,
        staleness_max: 0,
        test_accuracy: None,
        diverged_at: None,
        stalled_at: None,
    };
    let mut watch = StallWatch::default();
    let (mut samples, mut since_check, mut staleness_sum) = (0, 0, 0usize);
    while run.losses.len() < max_steps {
        let r = cluster.step(trainer).await?;
        run.losses.push(r.loss);
        run.times.push(r.time);
        run.bytes_per_step = r.bytes;
        run.dense_bytes_per_step = r.dense_bytes;
        run.total_bytes += r.bytes;
        staleness_sum += r.staleness;
        run.staleness_max = run.staleness_max.max(r.staleness);
        samples += r.samples;
        since_check += r.samples;
        if !r.loss.is_finite() {
            run.diverged_at = Some(run.losses.len());
            break;
        }
        if since_check < CHECK_EVERY_SAMPLES && run.losses.len() < max_steps {
            continue;
        }
        since_check = 0;
        let (loss, accuracy) = trainer.evaluate(&check_set).await?;
        let check = Check {
            step: run.losses.len(),
            time: r.time,
            samples,
            loss,
            accuracy,
        };
        run.checks.push(check);
        let value = match target {
            Target::Loss(_) => loss,
            Target::Accuracy(_) => accuracy,
        };
        if target.met_by(value) {
            run.reached = Some(check);
        } else if watch.stalled(loss) {
            run.stalled_at = Some(run.losses.len());
            break;
        }
        if run.reached.is_some() || !progress(run.losses.len(), max_steps).await {
            break;
        }
    }
    run.staleness_mean = staleness_sum as f64 / run.losses.len().max(1) as f64;
    if let (Some(t), None) = (test, run.diverged_at) {
        run.test_accuracy = Some(trainer.evaluate(t).await?.1);
    }
    Ok(run)
}

/// Everything the cluster lab shows: its runs and its speed-up curve, as one file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterRecord {
    pub format: String,
    pub target: Target,
    pub runs: Vec<ClusterRun>,
    pub curve: Vec<ScalingPoint>,
}

pub const RECORD_FORMAT: &str = "training-lab cluster v1";

pub const CSV_HEADER: &str = "label,workers,algorithm,consistency,compression,error_feedback,worker_batch,steps,steps_to_target,seconds_to_target,samples_to_target,bytes_per_step,dense_bytes_per_step,total_bytes,staleness_mean,staleness_max,final_loss,test_accuracy,diverged_at,stalled_at";

impl ClusterRecord {
    pub fn new(target: Target, runs: Vec<ClusterRun>, curve: Vec<ScalingPoint>) -> Self {
        Self {
            format: RECORD_FORMAT.into(),
            target,
            runs,
            curve,
        }
    }

    /// A saved record, or why it is not one.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let r: Self = crate::record::read_json(text, "a cluster record")?;
        crate::record::check_format(&r.format, RECORD_FORMAT)?;
        crate::record::lab_file(r, Self::check)
    }

    /// One line per run (labels hold commas, so cells are quoted where needed).
    pub fn csv(&self) -> String {
        let rows = self.runs.iter().map(|r| {
            let c = &r.config;
            let opt = |v: Option<String>| v.unwrap_or_default();
            [
                r.label.clone(),
                c.workers.to_string(),
                c.algorithm.label().to_string(),
                match c.consistency {
                    crate::cluster::Consistency::Synchronous => "sync".to_string(),
                    crate::cluster::Consistency::Asynchronous { bound } => {
                        format!("async bound {}", bound.map_or("none".into(), |b| b.to_string()))
                    }
                },
                c.compression.label(),
                c.uses_error_feedback().to_string(),
                r.worker_batch.to_string(),
                r.losses.len().to_string(),
                opt(r.reached.map(|x| x.step.to_string())),
                opt(r.reached.map(|x| format!("{:.6e}", x.time))),
                opt(r.reached.map(|x| x.samples.to_string())),
                r.bytes_per_step.to_string(),
                r.dense_bytes_per_step.to_string(),
                r.total_bytes.to_string(),
                format!("{:.3}", r.staleness_mean),
                r.staleness_max.to_string(),
                r.losses.last().copied().unwrap_or(f32::NAN).to_string(),
                opt(r.test_accuracy.map(|a| a.to_string())),
                opt(r.diverged_at.map(|s| s.to_string())),
                opt(r.stalled_at.map(|s| s.to_string())),
            ]
        });
        engine::table::to_csv(&engine::table::header(CSV_HEADER), rows)
    }
}

crate::run_record!(ClusterRecord, |r| r.runs.len());
