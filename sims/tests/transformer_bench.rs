//! Workload T1 (the attention lab's transformer on the benchmark page and in the comparison with
//! jax-js): the file another library trains from holds the lab's own initial weights and the
//! batches its run draws, and the GFLOP/s figure counts the step's products as a hand count does.

use engine::data::Dataset;
use engine::transformer::TinyTransformer;
use lab_sims::attention::bench::{export, step_flops};
use lab_sims::attention::{AttentionPlan, Task};

fn plan() -> AttentionPlan {
    AttentionPlan {
        task: Task::Copy,
        p: 10,
        train_fraction: 0.5,
        len: 4,
        width: 32,
        heads: 2,
        hidden: 64,
        blocks: 2,
        batch: 8,
        layer_norm: false,
        steps: 3,
        every: 1,
        lr: 0.003,
        decays: vec![0.0],
        seed: 3,
        example: 0,
    }
}

/// Step `s`'s batch of the file as a set of `batch` rows.
fn batch_of(file: &serde_json::Value, s: usize, plan: &AttentionPlan) -> Dataset {
    let numbers = |v: &serde_json::Value| -> Vec<u32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_u64().unwrap() as u32)
            .collect()
    };
    Dataset {
        x: numbers(&file["ids"][s]).into_iter().map(|t| t as f32).collect(),
        y: numbers(&file["labels"][s]),
        dim: plan.seq(),
        classes: plan.p + 1,
        targets: Vec::new(),
    }
}

#[test]
fn the_t1_file_holds_the_weights_and_batches_the_labs_run_trains_from() {
    let plan = plan();
    let file = pollster::block_on(export(&plan, 2)).unwrap();
    let (train, _) = plan.data();
    let optimizer = AttentionPlan::optimizer(0.0);
    let rows: Vec<usize> = (0..plan.batch).collect();
    pollster::block_on(async {
        // The file's weights and first batch in another model: the batch's loss before any
        // step is the lab's first step's.
        let params: Vec<f32> = (file["params"].as_array().unwrap().iter())
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        let mut other = TinyTransformer::new(plan.config(), optimizer, plan.seed + 1, None)
            .await
            .unwrap();
        other.set_params(&params);
        let (first, _) = other
            .loss_and_gradient(&batch_of(&file, 0, &plan), &rows)
            .await
            .unwrap();
        // The lab's run, step by step, the file's next batch measured (no update) between them.
        let mut lab = TinyTransformer::new(plan.config(), optimizer, plan.seed, None)
            .await
            .unwrap();
        let step1 = lab.train(&train, 1, plan.lr).await.unwrap();
        let (second, _) = lab
            .loss_and_gradient(&batch_of(&file, 1, &plan), &rows)
            .await
            .unwrap();
        let step2 = lab.train(&train, 1, plan.lr).await.unwrap();
        assert_eq!((first, second), (step1[0], step2[0]));
    });
    let names: Vec<&str> = file["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[..4], ["table", "pos", "block0.qkv", "block0.out"]);
    assert_eq!(file["tensors"][5]["decayed"], false, "block0.b1 is a bias");
}

#[test]
fn t1s_step_flops_are_a_hand_count() {
    let c = plan().config();
    // Per block and sequence of 8 tokens, width 32, hidden 64, 2 heads of 16: Q|K|V 2·8·32·96,
    // the projection 2·8·32·32, the MLP 2·(2·8·32·64), the scores and weighted values
    // 2·(2·2·8·8·16); the head 2·32·11 at the last position; the backward twice the forward.
    let block = 49_152.0 + 16_384.0 + 65_536.0 + 8_192.0;
    assert_eq!(step_flops(&c), 3.0 * (2.0 * block + 704.0));
}
