//! The attention lab's lesson (its "what to try", app/src/attention/lesson.rs), asserted natively
//! through the lab's own settings and the loop the page runs (app/src/attention/run.rs): with
//! the defaults the 2-block transformer learns to copy unseen sequences and a last-block head
//! looks the answer up (seeds 1 to 3 on the CPU path, seed 1 on lavapipe, the WebGPU path);
//! the "memorizing" preset fits its training pairs while test accuracy stays near chance
//! (seeds 1 and 2). The course's attention lessons read these same runs.

use std::rc::Rc;

use engine::gpu::GpuContext;
use lab_sims::attention::record::AttentionRecord;
use lab_sims::attention::run::{example, run};
use lab_state::attention::AttentionLab;
use lab_state::lab::LabState;
use pollster::block_on;

/// The experiment a link's settings describe, as the page trains it: a run per weight decay.
pub fn experiment(query: &str, gpu: Option<Rc<GpuContext>>) -> AttentionRecord {
    let (s, notices) = AttentionLab::from_query(query);
    assert!(notices.is_empty(), "{query}: {notices:?}");
    let plan = s.plan();
    let (train, test) = plan.data();
    let (tokens, answer) = example(&plan, &test);
    let mut record = AttentionRecord::new(plan.clone(), tokens, answer);
    for decay in &plan.decays {
        let r = block_on(run(&plan, *decay, gpu.clone(), (&train, &test), |_| async { true })).unwrap();
        assert_eq!(r.stopped, None, "{query}");
        record.runs.push(r);
    }
    record
}

fn metric(r: &AttentionRecord, name: &str) -> f64 {
    r.metric(name).unwrap_or_else(|| panic!("no metric {name}"))
}

#[test]
fn with_the_defaults_the_model_copies_unseen_sequences_by_looking_the_answer_up() {
    let records: Vec<(String, AttentionRecord)> = std::thread::scope(|scope| {
        let cpu: Vec<_> = (1..=3u64)
            .map(|seed| scope.spawn(move || (format!("seed {seed}, CPU path"), experiment(&format!("seed={seed}"), None))))
            .collect();
        let mut out: Vec<_> = cpu.into_iter().map(|h| h.join().unwrap()).collect();
        let gpu = Rc::new(block_on(GpuContext::new()).expect("a GPU adapter (lavapipe)"));
        out.push(("seed 1, lavapipe".into(), experiment("seed=1", Some(gpu))));
        out
    });
    for (label, r) in &records {
        let run = &r.runs[0];
        let first = &run.points[0];
        let curve: Vec<(usize, f32, f64)> = run.points.iter().map(|p| (p.step, p.test_accuracy, p.answer_attention.unwrap())).collect();
        eprintln!("({label}) {curve:?}; verdict: {}", r.verdict().unwrap());
        assert!(first.test_accuracy < 0.25, "{label}: chance at the start");
        assert!(metric(r, "test-acc-0") >= 99.0, "{label}: copies unseen sequences");
        assert!(first.answer_attention.unwrap() < 0.5, "{label}: no lookup at the start");
        assert!(metric(r, "answer-attention") > 90.0, "{label}: a head looks the answer up");
    }
}

#[test]
fn the_memorizing_preset_fits_its_pairs_and_stays_near_chance_on_the_others() {
    let grok = AttentionLab::preset("memorize").unwrap();
    let records: Vec<AttentionRecord> = std::thread::scope(|scope| {
        let runs: Vec<_> = (1..=2u64)
            .map(|seed| {
                let query = format!("{}&seed={seed}", lab_state::attention::PRESETS[2].2);
                scope.spawn(move || experiment(&query, None))
            })
            .collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(grok.p, 23);
    for r in &records {
        let run = &r.runs[0];
        let curve: Vec<(usize, f32, f32, f32)> = run.points.iter().map(|p| (p.step, p.train_accuracy, p.test_accuracy, p.test_loss)).collect();
        eprintln!("(seed {}) {curve:?}", r.plan.seed);
        assert!(metric(r, "fit-step-0") <= 500.0, "fits within 500 steps");
        assert!(metric(r, "test-acc-0") < 15.0, "near chance on the unseen pairs");
    }
}
