//! `lab split-bench`: W1's training step on the CPU on one core, and split over two threads the
//! two ways the engine knows: by batch rows (`Trainer::share_gradient`, each thread's gradient
//! of all the weights, then their mean) and by hidden units (`HiddenShard`, each thread its own
//! weights, only the logits exchanged). Natively, so the threads can be real ones; the browser's
//! CPU team runs the same engine calls in Web Workers.

use std::path::Path;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::Instant;

use engine::data::Dataset;
use engine::train::{ShareGradient, TrainConfig, Trainer};

use crate::io::load_data;

#[derive(clap::Args)]
pub struct SplitArgs {
    /// Steps timed (after 100 untimed)
    #[arg(long, default_value_t = 1000, value_name = "N")]
    steps: usize,
}

/// What the leader sends a batch-rows helper: the weights, its share's rows, the step.
type Share = (Vec<f32>, Vec<u32>, u64);
/// What it sends a hidden-units helper: the batch's rows, or the summed logits; the step.
type Phase = (Vec<u32>, Vec<f32>, u64);

/// Steps run before timing starts.
const WARM_STEPS: usize = 100;

pub fn split_bench(a: &SplitArgs, dir: &Path) -> anyhow::Result<()> {
    let config = lab_sims::bench::w1();
    let (data, _) = load_data(dir, &config)?;
    let total = a.steps + WARM_STEPS;
    let one = one_core(&config, &data, total)?;
    let batch = by_batch(&config, &data, total)?;
    let hidden = by_hidden_units(&config, &data, total)?;
    for (split, ms) in [("one core", one), ("batch rows", batch), ("hidden units", hidden)] {
        let line = serde_json::json!({
            "workload": "W1",
            "split": split,
            "threads": if split == "one core" { 1 } else { 2 },
            "msPerStep": ms,
            "samplesPerSec": config.batch as f64 / ms * 1e3,
            "speedup": one / ms,
        });
        println!("{line}");
    }
    Ok(())
}

fn trainer(config: TrainConfig, data: &Dataset) -> anyhow::Result<Trainer> {
    Ok(pollster::block_on(Trainer::with_data(
        config,
        data.clone(),
        None,
        1,
    ))?)
}

/// Milliseconds per step over the `steps` timed since `start`.
fn per_step(start: Instant, steps: usize) -> f64 {
    start.elapsed().as_secs_f64() * 1e3 / steps as f64
}

/// Waits for the other thread's next value, spinning as the browser's team does.
fn spin<T>(r: &Receiver<T>) -> anyhow::Result<T> {
    loop {
        match r.try_recv() {
            Ok(v) => return Ok(v),
            Err(std::sync::mpsc::TryRecvError::Empty) => std::hint::spin_loop(),
            Err(_) => return Err(anyhow::anyhow!("the helper thread stopped")),
        }
    }
}

fn one_core(config: &TrainConfig, data: &Dataset, total: usize) -> anyhow::Result<f64> {
    let mut t = trainer(config.clone(), data)?;
    let mut start = Instant::now();
    for step in 0..total {
        if step == WARM_STEPS {
            start = Instant::now();
        }
        pollster::block_on(t.train(1))?;
    }
    Ok(per_step(start, total - WARM_STEPS))
}

/// Runs `serve` on a helper thread (building its own trainer there) while `lead` runs here.
fn with_helper<M: Send + 'static, R: Send + 'static>(
    serve: impl FnOnce(Receiver<Option<M>>, Sender<R>) -> anyhow::Result<()> + Send + 'static,
    lead: impl FnOnce(&Sender<Option<M>>, &Receiver<R>) -> anyhow::Result<f64>,
) -> anyhow::Result<f64> {
    let (to_helper, helper_in) = channel();
    let (helper_out, from_helper) = channel();
    let helper = std::thread::spawn(move || serve(helper_in, helper_out));
    let ms = lead(&to_helper, &from_helper);
    let _ = to_helper.send(None);
    helper
        .join()
        .map_err(|_| anyhow::anyhow!("the helper thread panicked"))??;
    ms
}

fn by_batch(config: &TrainConfig, data: &Dataset, total: usize) -> anyhow::Result<f64> {
    let mut whole = trainer(config.clone(), data)?;
    let share = whole.share_config(2);
    let (helper_config, helper_data) = (share.clone(), data.clone());
    let mut local = trainer(share, data)?;
    with_helper(
        move |input: Receiver<Option<Share>>, output| {
            let mut t = trainer(helper_config, &helper_data)?;
            let mut part = ShareGradient::default();
            while let Some((params, rows, step)) = spin(&input)? {
                t.set_params(&params)?;
                pollster::block_on(t.share_gradient(&rows, step, &mut part))?;
                let _ = output.send(part.clone());
            }
            Ok(())
        },
        |to_helper, from_helper| {
            let (mut parts, mut params) = (vec![ShareGradient::default(); 2], Vec::new());
            let mut start = Instant::now();
            for step in 0..total {
                if step == WARM_STEPS {
                    start = Instant::now();
                }
                pollster::block_on(whole.params_into(&mut params))?;
                let shares = whole.deal_batch(2);
                let sent = (params.clone(), shares[1].clone(), whole.step());
                to_helper.send(Some(sent))?;
                local.set_params(&params)?;
                pollster::block_on(local.share_gradient(&shares[0], whole.step(), &mut parts[0]))?;
                parts[1] = spin(from_helper)?;
                whole.finish_split(&parts)?;
            }
            Ok(per_step(start, total - WARM_STEPS))
        },
    )
}

fn by_hidden_units(config: &TrainConfig, data: &Dataset, total: usize) -> anyhow::Result<f64> {
    let mut whole = trainer(config.clone(), data)?;
    let params = pollster::block_on(whole.params())?;
    let (config, shard) = whole.hidden_shard(2, 0)?;
    let mut local = trainer(config, data)?;
    local.set_params(&shard.take(&params))?;
    let (helper_config, own) = whole.hidden_shard(2, 1)?;
    let helper_data = data.clone();
    with_helper(
        // The helper gets the batch's rows, answers with its part of the logits, then gets their
        // sum and finishes its step.
        move |input: Receiver<Option<Phase>>, output| {
            let mut t = trainer(helper_config, &helper_data)?;
            t.set_params(&own.take(&params))?;
            let mut part = Vec::new();
            while let Some((rows, _, step)) = spin(&input)? {
                pollster::block_on(t.shard_outputs(&rows, &mut part))?;
                let _ = output.send(part.clone());
                let Some((_, logits, _)) = spin(&input)? else {
                    break;
                };
                pollster::block_on(t.shard_finish(&logits, &own, step))?;
            }
            Ok(())
        },
        |to_helper, from_helper| {
            let mut part = Vec::new();
            let mut start = Instant::now();
            for step in 0..total as u64 {
                if step == WARM_STEPS as u64 {
                    start = Instant::now();
                }
                let rows = whole.next_batch_rows();
                to_helper.send(Some((rows.clone(), Vec::new(), step)))?;
                pollster::block_on(local.shard_outputs(&rows, &mut part))?;
                let other = spin(from_helper)?;
                part.iter_mut().zip(&other).for_each(|(a, b)| *a += b);
                to_helper.send(Some((Vec::new(), part.clone(), step)))?;
                pollster::block_on(local.shard_finish(&part, &shard, step))?;
            }
            Ok(per_step(start, total - WARM_STEPS))
        },
    )
}
