//! The CPU path on every core. Wasm built with stable Rust has no threads, so each extra core
//! runs a Web Worker holding its own replica of the model (the app's wasm module, instantiated
//! again; `worker.js`). Every step the leader (this thread, itself a replica) deals the batch into
//! equal shares, sends each helper the weights and its share's rows, computes its own share, and
//! applies the mean of the shares' gradients (`engine::train::split`): the same step as one core
//! takes, to float rounding. In a cross-origin isolated page the weights, rows and gradients go
//! through memory shared with each helper (`shared`); elsewhere (an embed in a page that sends
//! no COOP/COEP headers) through messages that transfer their arrays rather than copy them.
//! A one-hidden-layer MLP trained with plain SGD in an isolated page splits by hidden units
//! instead (`hidden`): each replica holds its own hidden units' weights and only the logits
//! travel.

mod auto;
mod error;
mod handle;
mod helper;
mod hidden;
mod script;
mod shared;
mod wire;

pub use auto::Cores;
pub use error::{HelperError, TeamError};

use handle::Helper;
use js_sys::{Array, Float32Array, Object, Uint32Array};
use script::{glue_url, worker_url};
use shared::SharedLink;

use engine::error::Error;
use engine::plan::LOG_CAPACITY;
use engine::train::{replicas_for, ShareGradient, StepMetrics, StepRunner, TrainConfig, TrainError, Trainer};
use wire::set;

/// Shares each replica computes before the team trains (`Team::warm_up`).
const WARM_UP_SHARES: usize = 3;

/// What the helpers' copies of the training data may take together.
const HELPER_DATA_BUDGET: usize = 512 << 20;

/// A run's steps split over this thread and `helpers.len()` Web Workers.
pub struct Team {
    helpers: Vec<Helper>,
    local: Trainer,
    parts: Vec<ShareGradient>,
    /// The weights sent out each step (kept between steps).
    params: Vec<f32>,
    /// Split by hidden units rather than by batch rows (`hidden.rs`).
    hidden: Option<hidden::Hidden>,
}

/// The browser's logical cores (`navigator.hardwareConcurrency`; 1 where it does not say).
pub fn cores() -> usize {
    web_sys::window()
        .map(|w| w.navigator().hardware_concurrency() as usize)
        .unwrap_or(1)
        .max(1)
}

impl Team {
    /// A team of up to `wanted` replicas for `trainer`'s run (as many as divide its batch into
    /// equal shares: `engine::train::replicas_for`), or why it trains on one core.
    pub async fn start(trainer: &Trainer, wanted: usize) -> Result<Team, TeamError> {
        if let Some(why) = trainer.split_blocker() {
            return Err(TeamError::Blocked(why));
        }
        // Each helper holds its own copy of the data (its samples, and the packed copy its plan
        // reads): on a big set, fewer helpers rather than more memory than the page can have.
        let data = &trainer.data;
        let copy_bytes = (data.x.len() * 5 / 4 + data.y.len() + data.targets.len()) * 4;
        let wanted = wanted.min(1 + (HELPER_DATA_BUDGET / copy_bytes.max(1)).max(1));
        let n = replicas_for(trainer.config.batch, wanted);
        if n < 2 {
            return Err(TeamError::Unsplittable {
                batch: trainer.config.batch,
                min: engine::train::MIN_SHARE_ROWS,
                wanted,
            });
        }
        // Each replica's config, and its shard where the team splits by hidden units.
        let by_hidden = hidden::usable(trainer, shared::available());
        let replicas: Vec<(TrainConfig, Option<engine::train::HiddenShard>)> = (0..n)
            .map(|i| match by_hidden {
                true => trainer.hidden_shard(n, i).map(|(c, s)| (c, Some(s))),
                false => Ok((trainer.share_config(n), None)),
            })
            .collect::<Result<_, _>>()?;
        let (glue, script) = (glue_url()?, worker_url()?);
        let n_params = trainer.compiled.n_params;
        let logits = trainer.config.batch * trainer.compiled.classes();
        let mut helpers = Vec::with_capacity(n - 1);
        for (share, shard) in &replicas[1..] {
            let config = serde_json::to_string(share)?;
            let mut helper = Helper::spawn(&script)?;
            if let Some(shard) = shard {
                let values = shard.param_count().max(logits);
                helper.link = Some(SharedLink::new(values, trainer.config.batch));
            } else if shared::available() {
                helper.link = Some(SharedLink::new(n_params, share.batch));
            }
            let init = Object::new();
            let (x, y, targets) = (
                Float32Array::from(data.x.as_slice()),
                Uint32Array::from(data.y.as_slice()),
                Float32Array::from(data.targets.as_slice()),
            );
            set(&init, "kind", &"init".into());
            set(&init, "glue", &glue.as_str().into());
            set(&init, "module", &wasm_bindgen::module());
            set(&init, "config", &config.as_str().into());
            set(&init, "x", &x);
            set(&init, "y", &y);
            set(&init, "targets", &targets);
            set(&init, "dim", &(data.dim as f64).into());
            set(&init, "classes", &(data.classes as f64).into());
            if let Some(link) = &helper.link {
                set(&init, "shared", &link.describe());
            }
            if let Some(shard) = shard {
                let json = serde_json::to_string(shard)?;
                set(&init, "hidden", &json.into());
            }
            let transfer = Array::of3(&x.buffer(), &y.buffer(), &targets.buffer());
            helper
                .worker
                .post_message_with_transfer(&init, &transfer)
                .map_err(|e| TeamError::NotPosted(HelperError::browser(e)))?;
            helpers.push(helper);
        }
        let local = Trainer::with_data(replicas[0].0.clone(), trainer.data.clone(), None, 1).await?;
        for h in &mut helpers {
            h.reply().await.map_err(TeamError::NotStarted)?;
        }
        let mut team = Team {
            helpers,
            local,
            parts: vec![ShareGradient::default(); n],
            params: Vec::new(),
            hidden: by_hidden.then(|| hidden::Hidden::new(replicas.into_iter().flat_map(|r| r.1).collect())),
        };
        team.warm_up(trainer).await?;
        Ok(team)
    }

    /// One split step of `trainer`'s run.
    async fn step(&mut self, trainer: &mut Trainer) -> Result<StepMetrics, TrainError> {
        trainer
            .params_into(&mut self.params)
            .await
            .map_err(TrainError::Device)?;
        let shares = trainer.deal_batch(self.helpers.len() + 1);
        self.compute_shares(trainer.step(), &shares).await?;
        trainer.finish_split(&self.parts)
    }

    /// Every replica's gradient of its share at `self.params`, into `self.parts`.
    async fn compute_shares(&mut self, step: u64, shares: &[Vec<u32>]) -> Result<(), TrainError> {
        let params = &self.params;
        for (h, rows) in self.helpers.iter_mut().zip(&shares[1..]) {
            h.post(params, rows, step).map_err(replica_failed)?;
        }
        // This thread's share runs while the helpers compute theirs.
        self.local.set_params(params).map_err(TrainError::Device)?;
        let (own, others) = self.parts.split_first_mut().expect("a team has replicas");
        self.local
            .share_gradient(&shares[0], step, own)
            .await
            .map_err(TrainError::Device)?;
        for (h, part) in self.helpers.iter_mut().zip(others) {
            h.gradient(part).await.map_err(replica_failed)?;
        }
        Ok(())
    }

    /// Puts the team's weights in `trainer` where the team holds newer ones (split by hidden
    /// units, the shards keep the weights between steps): before the trainer steps alone, and
    /// before the page reads it.
    pub async fn sync(&mut self, trainer: &mut Trainer) -> Result<(), TrainError> {
        match self.hidden {
            Some(_) => self.gather(trainer).await,
            None => Ok(()),
        }
    }

    /// How the weights and gradients travel: "shared memory" or "messages".
    pub fn link(&self) -> &'static str {
        if self.helpers.iter().all(|h| h.link.is_some()) {
            "shared memory"
        } else {
            "messages"
        }
    }

    /// Runs a few shares on every replica without training: a worker's wasm starts on V8's
    /// baseline code and is optimized only once it has run a while, and a team timed on cold
    /// helpers would look slower than it is.
    async fn warm_up(&mut self, trainer: &Trainer) -> Result<(), TrainError> {
        if self.hidden.is_some() {
            // Steps on the first rows, on whatever weights the shards start with: the run's are
            // handed out before its first step.
            let rows: Vec<u32> = (0..trainer.config.batch as u32).collect();
            for _ in 0..WARM_UP_SHARES {
                self.shards_step(&rows, trainer.step()).await?;
            }
            return Ok(());
        }
        trainer
            .params_into(&mut self.params)
            .await
            .map_err(TrainError::Device)?;
        let share = trainer.config.batch / (self.helpers.len() + 1);
        let shares: Vec<Vec<u32>> = (0..=self.helpers.len())
            .map(|i| (i * share..(i + 1) * share).map(|r| r as u32).collect())
            .collect();
        for _ in 0..WARM_UP_SHARES {
            self.compute_shares(trainer.step(), &shares).await?;
        }
        Ok(())
    }
}

fn replica_failed(why: HelperError) -> TrainError {
    TrainError::Device(Error::Replica(why.to_string()))
}

impl StepRunner for Team {
    async fn train(&mut self, trainer: &mut Trainer, steps: usize) -> Result<Vec<StepMetrics>, TrainError> {
        let mut out = Vec::with_capacity(steps);
        for _ in 0..steps.clamp(1, LOG_CAPACITY) {
            out.push(match self.hidden {
                Some(_) => self.hidden_step(trainer).await?,
                None => self.step(trainer).await?,
            });
        }
        Ok(out)
    }

    fn replicas(&self) -> usize {
        self.helpers.len() + 1
    }

    fn exchange(&self) -> Option<&'static str> {
        Some(self.link())
    }

    fn split(&self) -> Option<&'static str> {
        Some(match self.hidden {
            Some(_) => "hidden units",
            None => "batch rows",
        })
    }
}
