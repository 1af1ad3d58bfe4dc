//! The landscape lab's comparison of a small and a large batch (docs/theory.md §4.4), with the
//! lab's own loop `train_to_loss`: with the defaults (circle, 2-8-8-2 tanh, SGD 0.1; batch 4
//! against 256) both reach training loss 0.05 and the verdict names the sharper as measured; in
//! Keskar et al.'s setting (the image MLP on MNIST, batch 16 against 256, loss 0.05) the large
//! batch's minimum is the sharper, as they report, by the mean rise and by the top Hessian
//! eigenvalue alike. Needs `public/data` (setup) for the second.

use engine::data::Dataset;
use engine::train::{DataConfig, Trainer};
use lab_sims::hessian::top_eigenvalue_over;
use lab_sims::landscape::{sharpness, train_to_loss, SHARPNESS_DIRECTIONS, SHARPNESS_RADIUS};
use lab_state::lab::LabState;
use lab_state::landscape::{keskar_setting, sharpness_verdict, Landscape, IMAGE_EVAL};

/// Trains each batch of `lab` to its target; (batch, sharpness, loss) and the top Hessian
/// eigenvalue per batch.
fn compare(lab: &Landscape) -> (Vec<(usize, f32, f32)>, Vec<f32>) {
    // The batches train independently: one thread each, so the test run's cores stay busy.
    let measure = |batch: usize| {
        let config = lab.to_config(batch);
        // The data as the page loads it (`fetch::data`: the config's own split of its points).
        let (train, test) = config.data.load(crate::lessons::read_data).unwrap();
        let rows = match &config.data {
            DataConfig::Toy(_) => train.len().min(test.as_ref().map_or(train.len(), Dataset::len)),
            _ => IMAGE_EVAL,
        };
        let eval = train.head(rows);
        let mut t =
            pollster::block_on(Trainer::with_evaluation(config, train.clone(), None, 1, rows)).unwrap();
        let budget = lab.epochs * train.len() / batch;
        let run = pollster::block_on(train_to_loss(&mut t, &eval, lab.target, budget, |_| async {
            true
        }))
        .unwrap();
        assert!(
            run.reached,
            "batch {batch}: loss {} after {} steps",
            run.loss, run.steps
        );
        assert!(run.checkpoints.len() >= 2 && run.checkpoints.len() <= 62);
        let sharp = pollster::block_on(sharpness(
            &mut t,
            &eval,
            (SHARPNESS_RADIUS, SHARPNESS_DIRECTIONS, 7),
            || async {},
        ))
        .unwrap();
        let started = std::time::Instant::now();
        let w = pollster::block_on(t.params()).unwrap();
        let top =
            pollster::block_on(top_eigenvalue_over(&t.config, &eval, &w, None, 7, || async {})).unwrap();
        eprintln!(
                "batch {batch}: {} steps, loss {:.3}, sharpness {sharp:.4}, λ_max {:.4} ({} products over {} samples, {:.1} s)",
                run.steps, run.loss, top.eigenvalue, top.iterations, top.samples, started.elapsed().as_secs_f32()
            );
        ((batch, sharp, run.loss), top.eigenvalue)
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = lab
            .batches()
            .into_iter()
            .map(|b| scope.spawn(move || measure(b)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).unzip()
    })
}

#[test]
fn the_defaults_compare_at_equal_loss_and_say_which_is_sharper() {
    // The course's sharpness lesson locks the defaults (its first two sections).
    let sections = crate::lessons::sections("landscape-sharpness");
    let (lab, notices) = Landscape::from_query(&sections[0].state);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(lab.batches(), Landscape::default().batches());
    let (m, lambda) = compare(&lab);
    sections[0].assert_claim("landscape-sharpness", f64::from(m[1].1 / m[0].1));
    sections[1].assert_claim("landscape-sharpness", f64::from(lambda[1] / lambda[0]));
    let verdict = sharpness_verdict(m[0], m[1], lab.target);
    eprintln!("{verdict}");
    let (sharper, flatter) = if m[1].1 > m[0].1 {
        (m[1].0, m[0].0)
    } else {
        (m[0].0, m[1].0)
    };
    assert!(
        verdict.starts_with(&format!("Batch {sharper} is sharper than batch {flatter}")),
        "{verdict}"
    );
    assert!(!verdict.contains("losses differ"), "{verdict}");
}

#[test]
fn in_keskar_et_al_s_setting_the_large_batch_is_sharper() {
    let section = &crate::lessons::sections("landscape-sharpness")[2];
    let (lab, notices) = Landscape::from_query(&section.state);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(
        lab.to_config(16),
        keskar_setting().to_config(16),
        "the lesson locks Keskar et al.'s setting"
    );
    let (m, lambda) = compare(&lab);
    section.assert_claim("landscape-sharpness", f64::from(m[1].1 / m[0].1));
    let verdict = sharpness_verdict(m[0], m[1], lab.target);
    eprintln!("{verdict}");
    assert!(
        verdict.starts_with("Batch 256 is sharper than batch 16"),
        "{verdict}"
    );
    assert!(m[1].1 > 1.3 * m[0].1, "{m:?}");
    // The sharpest direction agrees: batch 256's top Hessian eigenvalue is the larger.
    assert!(lambda[1] > 1.3 * lambda[0], "λ_max {lambda:?}");
}

/// Li et al.'s skip-connection figure as the lab maps it (`net=resnet&data=mnist`): the ResNet-26 and its
/// twin without skips, each trained the same steps and sliced along random filter-normalized
/// directions; the twin's slice is the less convex (docs/theory.md §4.6), and it trains worse.
#[test]
fn without_skips_the_resnets_slice_is_less_convex() {
    use lab_sims::curvature::slice_convexity;
    use lab_sims::landscape::{filter_normalized_direction, slice};
    let section = &crate::lessons::sections("landscape-skips")[0];
    let (lab, notices) = Landscape::from_query(&section.state);
    let plain = Landscape::from_query("net=resnet&data=mnist").0;
    assert_eq!(
        Landscape {
            hide: plain.hide.clone(),
            ..lab.clone()
        },
        plain,
        "the lesson locks the button's setting"
    );
    assert!(notices.is_empty(), "{notices:?}");
    // The two networks train independently: one thread each.
    let map = |run: &lab_state::landscape::Run| {
        let train = run.config.data.load(crate::lessons::read_data).unwrap().0;
        let rows = lab.image_eval_rows();
        let eval = train.head(rows);
        let started = std::time::Instant::now();
        let mut t = pollster::block_on(Trainer::with_evaluation(
            run.config.clone(),
            train.clone(),
            None,
            1,
            rows,
        ))
        .unwrap();
        let budget = lab.epochs * train.len() / run.batch;
        let trained = pollster::block_on(train_to_loss(&mut t, &eval, lab.target, budget, |_| async {
            true
        }))
        .unwrap();
        let w = pollster::block_on(t.params()).unwrap();
        let (d1, d2) = (
            filter_normalized_direction(&t.compiled, &w, 1),
            filter_normalized_direction(&t.compiled, &w, 2),
        );
        let grid = pollster::block_on(slice(&mut t, &w, &d1, &d2, 1.0, lab.res, &eval, |_| async {
            true
        }))
        .unwrap();
        let c = slice_convexity(&grid, lab.res, 1.0);
        let loss = pollster::block_on(lab_sims::landscape::loss_at(&mut t, &w, &eval)).unwrap();
        eprintln!(
            "{}: {} steps, loss {loss:.3}, non-convexity {:.3} (share {:.2}), {:.0} s",
            run.label,
            trained.steps,
            c.nonconvexity,
            c.nonconvex_share,
            started.elapsed().as_secs_f32()
        );
        (c.nonconvexity, loss)
    };
    let runs = lab.runs();
    let measured: Vec<(f32, f32)> = std::thread::scope(|scope| {
        let handles: Vec<_> = runs.iter().map(|run| scope.spawn(|| map(run))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    section.assert_claim("landscape-skips", f64::from(measured[1].0 / measured[0].0));
    assert!(
        measured[1].1 > measured[0].1,
        "the twin without skips trains worse: {measured:?}"
    );
}
