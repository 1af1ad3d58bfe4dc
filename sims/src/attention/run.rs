//! One run of the attention lab: the transformer trained at one weight decay, measured before
//! its first step and after every `every` steps — training and test accuracy, the test loss,
//! the weights' norm, the example's attention and (copy) how much the last block attends to the
//! token to copy. A loss that is not finite stops the run with its step named.

use std::future::Future;
use std::rc::Rc;

use engine::data::Dataset;
use engine::error::Error;
use engine::gpu::GpuContext;
use engine::transformer::TinyTransformer;

use super::record::{AttentionRun, Point};
use super::{AttentionPlan, Task};

/// Training rows measured at each point (all of modular's pairs; the first of the copies).
pub const TRAIN_MEASURED: usize = 1024;

/// The example's tokens and its answer.
pub fn example(plan: &AttentionPlan, test: &Dataset) -> (Vec<usize>, usize) {
    let row = plan.example.min(test.len().saturating_sub(1));
    (
        test.point(row).iter().map(|t| *t as usize).collect(),
        test.y[row] as usize,
    )
}

/// The rows one forward pass reads for the attention: the example, then the first test rows.
fn probe_rows(plan: &AttentionPlan, test: &Dataset) -> Vec<usize> {
    let example = plan.example.min(test.len() - 1);
    std::iter::once(example)
        .chain((0..test.len()).filter(|r| *r != example))
        .take(plan.batch)
        .collect()
}

/// Where row `row` of a copy or sort set's answer first stood: position `row mod len` of a copy
/// (`copying` shows that many of its tokens); a sort's answer token's first place among the
/// originals.
fn answer_position(plan: &AttentionPlan, test: &Dataset, row: usize) -> usize {
    match plan.task {
        Task::Sort => {
            let tokens = &test.point(row)[..plan.len];
            let answer = test.y[row] as f32;
            tokens.iter().position(|t| *t == answer).unwrap_or(0)
        }
        _ => row % plan.len,
    }
}

/// The example's squares, and (copy, sort) the answer attention over the probed rows.
fn read_maps(
    plan: &AttentionPlan,
    test: &Dataset,
    maps: &[Vec<f32>],
    rows: &[usize],
) -> (Vec<Vec<f32>>, Option<f64>) {
    let (seq, heads) = (plan.seq(), plan.heads);
    let square = seq * seq;
    let patterns = maps
        .iter()
        .flat_map(|m| m[..heads * square].chunks(square).map(<[f32]>::to_vec))
        .collect();
    let answer = plan.task.repeats().then(|| {
        let last = maps.last().map_or(&[][..], Vec::as_slice);
        let total: f64 = rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let at = (seq - 1) * seq + answer_position(plan, test, *row);
                (0..heads)
                    .map(|h| f64::from(last[(i * heads + h) * square + at]))
                    .fold(0.0, f64::max)
            })
            .sum();
        total / rows.len() as f64
    });
    (patterns, answer)
}

async fn measure(
    model: &mut TinyTransformer,
    plan: &AttentionPlan,
    (train, test): (&Dataset, &Dataset),
    step: usize,
) -> Result<(Point, Vec<Vec<f32>>), Error> {
    let (train_accuracy, train_loss) = model.evaluate(train).await?;
    let (test_accuracy, test_loss) = model.evaluate(test).await?;
    let weight_norm = (model.params().await?.iter())
        .map(|p| f64::from(*p).powi(2))
        .sum::<f64>()
        .sqrt();
    let rows = probe_rows(plan, test);
    let maps = model.attention_maps(test, &rows).await?;
    let (patterns, answer_attention) = read_maps(plan, test, &maps, &rows);
    let point = Point {
        step,
        train_loss,
        train_accuracy,
        test_accuracy,
        test_loss,
        weight_norm,
        answer_attention,
    };
    Ok((point, patterns))
}

/// Trains `plan`'s model at weight decay `decay` on `train`, measured on `test`; after each
/// measurement `progress(run so far)` says whether to go on (false: cancelled, the run kept).
pub async fn run<F: Future<Output = bool>>(
    plan: &AttentionPlan,
    decay: f32,
    gpu: Option<Rc<GpuContext>>,
    (train, test): (&Dataset, &Dataset),
    mut progress: impl FnMut(&AttentionRun) -> F,
) -> Result<AttentionRun, Error> {
    let mut model =
        TinyTransformer::new(plan.config(), AttentionPlan::optimizer(decay), plan.seed, gpu).await?;
    let measured = train.head(TRAIN_MEASURED);
    let sets = (&measured, test);
    let (first, patterns) = measure(&mut model, plan, sets, 0).await?;
    let mut run = AttentionRun {
        decay,
        points: vec![first],
        patterns,
        stopped: None,
    };
    let mut done = 0;
    while done < plan.steps {
        if !progress(&run).await {
            run.stopped = Some(format!("cancelled at step {done}"));
            return Ok(run);
        }
        let steps = plan.every.clamp(1, plan.steps - done);
        let losses = model.train(train, steps, plan.lr).await?;
        if let Some(bad) = losses.iter().position(|l| !l.is_finite()) {
            run.stopped = Some(format!(
                "the loss was not finite at step {} (lower the learning rate)",
                done + bad + 1
            ));
            return Ok(run);
        }
        done += steps;
        let (point, patterns) = measure(&mut model, plan, sets, done).await?;
        run.points.push(point);
        run.patterns = patterns;
    }
    progress(&run).await;
    Ok(run)
}
