//! Which runs the cluster lab's buttons ask for: the ticked algorithms (one for asynchronous
//! workers, who talk to a parameter server), or the study's worker counts, and the synchronous,
//! uncompressed twin a compressed or asynchronous run is measured against. The page runs them in
//! this order; the native lesson tests run the same plan.

use lab_sims::compress::Compression;

use super::{ClusterLab, ALGORITHMS};

/// What to train: (label, workers, algorithm index, compression, forced synchronous) per run.
pub type Plan = Vec<(String, usize, usize, Compression, bool)>;

pub fn plan(s: &ClusterLab, study: bool) -> Result<Plan, String> {
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
