//! Which runs the cluster lab's buttons ask for: the ticked algorithms (one for asynchronous
//! workers, who talk to a parameter server), or the study's worker counts, and the synchronous,
//! uncompressed twin a compressed or asynchronous run is measured against. The page runs them in
//! this order; the native lesson tests run the same plan.

use engine::optim::Optimizer;
use engine::train::TrainConfig;
use lab_sims::cluster::{ClusterConfig, Consistency};
use lab_sims::compress::Compression;

use super::{ClusterLab, ALGORITHMS};

/// What to train: (label, workers, algorithm index, compression, forced synchronous) per run.
pub type Plan = Vec<(String, usize, usize, Compression, bool)>;

pub fn plan(s: &ClusterLab, study: bool) -> Result<Plan, crate::error::SetupError> {
    let mut runs = Vec::new();
    // Asynchronous workers talk to a parameter server whatever allreduce is ticked: one run.
    let algorithms: Vec<usize> = if s.asynchronous {
        s.chosen().into_iter().take(1).collect()
    } else {
        s.chosen()
    };
    if study {
        for p in s.study()? {
            for &i in &algorithms {
                runs.push((
                    format!("study {}", s.run_label(p, i, s.compression())),
                    p,
                    i,
                    s.compression(),
                    false,
                ));
            }
        }
    } else {
        for &i in &algorithms {
            runs.push((
                s.run_label(s.workers, i, s.compression()),
                s.workers,
                i,
                s.compression(),
                false,
            ));
        }
        // The twin without compression (and synchronous), for what compression or staleness cost.
        if s.compression() != Compression::None || s.asynchronous {
            let i = s.chosen()[0];
            runs.push((
                format!("{} × {} · sync, uncompressed", s.workers, ALGORITHMS[i].1),
                s.workers,
                i,
                Compression::None,
                true,
            ));
        }
    }
    Ok(runs)
}

impl ClusterLab {
    /// The momentum the workers keep under momentum correction: when it is asked for, the
    /// optimizer has momentum and the compressor runs with error feedback (None otherwise).
    pub fn correction(&self) -> Option<f32> {
        let uses_feedback = self.error_feedback && self.compression().supports_error_feedback();
        match Optimizer::all()[self.optimizer.min(Optimizer::all().len() - 1)] {
            Optimizer::Momentum { momentum } if self.momentum_correction && uses_feedback => Some(momentum),
            _ => None,
        }
    }

    /// One planned run's cluster and each worker's training (`plan::plan`'s entry): the run's
    /// compression and consistency; a momentum-corrected run's trainer applies plain SGD, since
    /// its workers keep the momentum.
    pub fn run_configs(
        &self,
        workers: usize,
        i: usize,
        compression: Compression,
        sync: bool,
    ) -> Result<(ClusterConfig, TrainConfig), crate::error::SetupError> {
        let mut config = self.config(workers, i)?;
        if sync {
            config.consistency = Consistency::Synchronous;
        }
        config.compression = compression;
        let mut train = self.train_config(workers);
        if !config.uses_error_feedback() {
            config.momentum_correction = None;
        }
        if config.momentum_correction.is_some() {
            train.optimizer = Optimizer::Sgd;
        }
        Ok((config, train))
    }

    pub fn run_label(&self, workers: usize, i: usize, compression: Compression) -> String {
        // Asynchronous workers talk to a parameter server whatever allreduce is chosen.
        let (name, mode) = match self.consistency() {
            Ok(Consistency::Asynchronous { bound }) => (
                "async parameter server",
                bound.map_or(String::new(), |b| format!(" · bound {b}")),
            ),
            _ => (ALGORITHMS[i].1, String::new()),
        };
        let c = match (compression, self.correction()) {
            (Compression::None, _) => String::new(),
            (c, None) => format!(" · {}", c.label()),
            (c, Some(_)) => format!(" · {} · momentum correction", c.label()),
        };
        format!("{workers} × {name}{mode}{c}")
    }
}
