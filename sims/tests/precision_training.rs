//! Training in reduced precision (docs/theory.md §7): exact equalities (a power-of-two loss scale
//! in fp32 changes nothing), the two backends alike, the dynamic scaler's skipped step, and the
//! master copy's reason (updates lost in an fp16 master, kept in an fp32 one).

use crate::common;

use engine::optim::Optimizer;
use engine::precision::{lost_updates, LossScaling, Precision, Preset};
use engine::train::{ModelConfig, TrainConfig, Trainer};

pub(crate) fn mnist_mlp(
    precision: Precision,
    optimizer: Optimizer,
    learning_rate: f32,
) -> (TrainConfig, engine::data::Dataset) {
    let (data, train, _) = common::mnist(512, 0);
    let config = TrainConfig {
        data,
        model: ModelConfig::Mlp {
            hidden: vec![32],
            activation: engine::ops::activation::Activation::Relu,
        },
        optimizer,
        learning_rate,
        batch: 32,
        precision,
        ..Default::default()
    };
    (config, train)
}

pub(crate) fn trainer(config: &TrainConfig, data: &engine::data::Dataset, gpu: bool) -> Trainer {
    let ctx = gpu.then(common::gpu);
    pollster::block_on(Trainer::with_data(config.clone(), data.clone(), ctx, 1)).unwrap()
}

fn losses(t: &mut Trainer, steps: usize) -> Vec<f32> {
    pollster::block_on(t.train(steps))
        .unwrap()
        .iter()
        .map(|m| m.loss)
        .collect()
}

/// Scaling the loss by 2^10 and the gradients back by 2^-10 is exact in fp32: the run is the
/// plain run, bit for bit, on both backends (and the scaler's own code paths run).
#[test]
fn a_power_of_two_loss_scale_in_fp32_changes_nothing() {
    for gpu in [false, true] {
        let (plain, data) = mnist_mlp(Precision::default(), Optimizer::adam(), 0.003);
        let mut scaled_config = plain.clone();
        scaled_config.precision.loss_scaling = LossScaling::Static { scale: 1024.0 };
        let (mut a, mut b) = (trainer(&plain, &data, gpu), trainer(&scaled_config, &data, gpu));
        assert_eq!(losses(&mut a, 30), losses(&mut b, 30));
        let (wa, wb) = (
            pollster::block_on(a.params()).unwrap(),
            pollster::block_on(b.params()).unwrap(),
        );
        assert!(wa == wb, "{}: the weights differ", a.backend_name());
    }
}

/// Every preset trains alike on the GPU and the CPU: the same roundings of nearly the same
/// values (the products' sums may differ in their last bit, and a value on a rounding boundary
/// then goes the other way).
#[test]
fn each_preset_trains_alike_on_gpu_and_cpu() {
    for preset in [
        Preset::NaiveFp16,
        Preset::MixedFp16,
        Preset::MixedBf16,
        Preset::Fp8,
    ] {
        // SGD: naive fp16's Adam state underflows and diverges (the lab's lesson), SGD trains.
        let (config, data) = mnist_mlp(preset.precision(), Optimizer::Sgd, 0.1);
        let (mut g, mut c) = (trainer(&config, &data, true), trainer(&config, &data, false));
        let (lg, lc) = (losses(&mut g, 40), losses(&mut c, 40));
        for (i, (a, b)) in lg.iter().zip(&lc).enumerate() {
            assert!(
                (a - b).abs() <= 2e-2 * b.abs().max(0.1),
                "{}: step {}: GPU {a}, CPU {b}",
                preset.name(),
                i + 1
            );
        }
        assert_eq!(g.loss_scale(), c.loss_scale(), "{}", preset.name());
        assert!(
            lc[39] < lc[0],
            "{}: the loss went from {} to {}",
            preset.name(),
            lc[0],
            lc[39]
        );
    }
}

/// At a loss scale of 2^40 fp16 gradients overflow: the dynamic scaler skips the update (the
/// weights stay as they were, bit for bit), halves the scale, and records the step.
#[test]
fn an_overflowing_step_is_skipped_and_the_scale_halves() {
    for gpu in [false, true] {
        let precision = Precision {
            loss_scaling: LossScaling::Dynamic {
                initial: 2f32.powi(40),
                interval: 1000,
            },
            ..Preset::MixedFp16.precision()
        };
        let (config, data) = mnist_mlp(precision, Optimizer::adam(), 0.003);
        let mut t = trainer(&config, &data, gpu);
        let before = pollster::block_on(t.params()).unwrap();
        losses(&mut t, 1);
        let after = pollster::block_on(t.params()).unwrap();
        assert!(before == after, "a skipped step moved the weights");
        assert_eq!((t.skipped_steps(), t.loss_scale()), (1, 2f32.powi(39)));
        let e = t.scale_events()[0];
        assert!(e.overflow && e.scale == 2f32.powi(40) && e.step == 1);
        // The scale keeps halving until the gradients fit, then training moves.
        losses(&mut t, 40);
        assert!(t.loss_scale() < 2f32.powi(30), "scale {}", t.loss_scale());
        assert!(pollster::block_on(t.params()).unwrap() != before);
        assert!(t.scale_events().iter().rev().take(5).all(|e| !e.overflow));
    }
}

/// E4M3 saturates: a gradient past ±448 is stored as ±448, never ±∞. The scaler counts a stored
/// ±448 as an overflow (as FP8 recipes do), so at a scale of 2^40 the step is skipped and the scale
/// halves, on both backends (the count's kernel against its CPU twin); without that count the
/// scale would only grow while most gradients were clipped.
#[test]
fn a_saturated_e4m3_gradient_is_an_overflow_to_the_scaler() {
    for gpu in [false, true] {
        let precision = Precision {
            gradients: engine::precision::Format::E4m3,
            loss_scaling: LossScaling::Dynamic {
                initial: 2f32.powi(40),
                interval: 1000,
            },
            ..Preset::Fp32.precision()
        };
        let (config, data) = mnist_mlp(precision, Optimizer::adam(), 0.003);
        let mut t = trainer(&config, &data, gpu);
        let before = pollster::block_on(t.params()).unwrap();
        losses(&mut t, 1);
        assert!(
            pollster::block_on(t.params()).unwrap() == before,
            "a saturated step moved the weights (gpu: {gpu})"
        );
        assert_eq!(
            (t.skipped_steps(), t.loss_scale()),
            (1, 2f32.powi(39)),
            "gpu: {gpu}"
        );
    }
}

/// The overflow count by hand: ±∞ and NaN always; at or past a saturating format's largest
/// magnitude only when the format saturates.
#[test]
fn the_overflow_count_by_hand() {
    use engine::ops::finite::overflowed_cpu;
    let x = [1.0, -448.0, 448.0, 447.9, f32::INFINITY, f32::NAN, -1e30, 0.0];
    assert_eq!(overflowed_cpu(&x, None), 2);
    assert_eq!(overflowed_cpu(&x, Some(448.0)), 5);
}

/// Micikevicius et al.'s reason for an fp32 master copy: an update η·g under half a gap of the
/// weight's format is lost. With SGD at η = 10⁻³ most updates are ≈ 10⁻⁷–10⁻⁶, below fp16's half
/// gap at the weights' size (≈ 10⁻⁵ at 0.05) and far above fp32's (≈ 10⁻⁹): an fp16 master
/// loses most of them, an fp32 master (mixed precision) almost none.
#[test]
fn an_fp16_master_loses_small_updates_that_an_fp32_master_keeps() {
    let mut shares = Vec::new();
    for preset in [Preset::NaiveFp16, Preset::MixedFp16, Preset::Fp32] {
        let (config, data) = mnist_mlp(preset.precision(), Optimizer::Sgd, 1e-3);
        let mut t = trainer(&config, &data, false);
        losses(&mut t, 3);
        let before = pollster::block_on(t.params()).unwrap();
        losses(&mut t, 1);
        let after = pollster::block_on(t.params()).unwrap();
        let grads = pollster::block_on(t.last_gradients()).unwrap();
        shares.push(lost_updates(&before, &after, &grads));
    }
    eprintln!("updates lost: naive fp16, mixed fp16, fp32: {shares:?}");
    let [naive, mixed, fp32] = shares[..] else {
        unreachable!()
    };
    assert!(naive > 0.5, "fp16 master: {naive} of the updates lost");
    assert!(mixed < 0.01 && fp32 < 0.01, "fp32 master: {mixed}, fp32: {fp32}");
}

/// What flushed is counted before rounding (docs/theory.md §7.4): in fp16, the gradients stored
/// as 0 are exactly those whose scaled fp32 sum lay at or under half fp16's smallest subnormal
/// (2⁻²⁵, counted by hand), on both backends; the recorded share is theirs, and such a weight's
/// update counts as lost. This MLP's gradients sit inside fp16's range, so a loss scale of 2⁻¹⁶
/// pushes part of them under it.
#[test]
fn flushed_gradients_are_counted_before_rounding_and_their_updates_as_lost() {
    let mut fp16 = Preset::MixedFp16.precision();
    fp16.loss_scaling = LossScaling::Static {
        scale: 2f32.powi(-16),
    };
    for gpu in [false, true] {
        let (config, data) = mnist_mlp(fp16, Optimizer::Sgd, 1e-3);
        let mut t = trainer(&config, &data, gpu);
        losses(&mut t, 2);
        let unrounded = pollster::block_on(t.unrounded_gradients()).unwrap();
        let stored = pollster::block_on(t.last_gradients()).unwrap();
        let (mut nonzero, mut flushed) = (0usize, 0usize);
        for (u, g) in unrounded.iter().zip(&stored) {
            if *u != 0.0 {
                nonzero += 1;
                let under = u.abs() <= 2f32.powi(-25);
                assert_eq!(*g == 0.0, under, "{u:e} stored as {g:e}");
                flushed += usize::from(under);
            }
        }
        let by_hand = flushed as f64 / nonzero as f64;
        let shares = engine::precision::range_shares(&unrounded, 1.0, fp16.gradients);
        eprintln!("gpu {gpu}: {flushed} of {nonzero} gradients flushed");
        assert!(flushed > 0, "some of MNIST's unscaled gradients flush in fp16");
        assert!((shares.underflow - by_hand).abs() < 1e-12);
        // Their updates are lost: the fp32 master did not move where the stored gradient was 0.
        let before = pollster::block_on(t.params()).unwrap();
        losses(&mut t, 1);
        let after = pollster::block_on(t.params()).unwrap();
        let unrounded = pollster::block_on(t.unrounded_gradients()).unwrap();
        let stored = pollster::block_on(t.last_gradients()).unwrap();
        let lost_by_flush = unrounded
            .iter()
            .zip(&stored)
            .filter(|(u, g)| **u != 0.0 && **g == 0.0)
            .count();
        let lost = lost_updates(&before, &after, &unrounded);
        let with_gradient = unrounded.iter().filter(|u| **u != 0.0).count();
        assert!(
            lost * with_gradient as f64 >= lost_by_flush as f64 - 0.5,
            "{lost} of {with_gradient} includes {lost_by_flush}"
        );
    }
}

// The precision lab's lesson with its defaults (naive fp16 fails where mixed precision, bf16 and
// fp8 match fp32) is asserted through the lab's own configs in state/tests/precision_lab.rs.

/// The lab's run record: its steps in calls with checks between them train exactly as one plain
/// call does (the same losses, bit for bit), and each check's histograms count every weight
/// gradient of its layer once.
#[test]
fn a_recorded_run_equals_a_plain_run_and_its_checks_count_every_gradient() {
    let (config, data) = mnist_mlp(Preset::MixedFp16.precision(), Optimizer::adam(), 0.003);
    let mut plain = trainer(&config, &data, false);
    let want = losses(&mut plain, 30);
    let mut t = trainer(&config, &data, false);
    let head = data.head(100);
    let r = pollster::block_on(lab_sims::precision_run::run(
        &mut t,
        "mixed",
        (30, 7, 10),
        (&head, None),
        |_: &lab_sims::precision_run::PrecisionRun| async { true },
    ))
    .unwrap();
    assert_eq!(r.losses, want);
    // The first step, then every tenth.
    assert_eq!(
        r.checks.iter().map(|c| c.step).collect::<Vec<_>>(),
        [1, 10, 20, 30]
    );
    // The last check's accuracy is the trained model's on those samples.
    let (_, now) = pollster::block_on(t.evaluate(&head)).unwrap();
    assert_eq!(r.checks[3].accuracy, now);
    let sizes: Vec<u64> = t
        .compiled
        .layers
        .iter()
        .filter(|l| l.has_params())
        .map(|l| (l.b_off + l.out_shape[0] - l.w_off) as u64)
        .collect();
    for c in &r.checks {
        let counted: Vec<u64> = c
            .histograms
            .iter()
            .map(|h| h.counts.iter().sum::<u64>() + h.zeros + h.non_finite)
            .collect();
        assert_eq!(counted, sizes, "step {}", c.step);
        let s = c.gradient_shares;
        assert!((s.underflow + s.subnormal + s.normal + s.overflow - 1.0).abs() < 1e-9);
    }
    // fp16 weights + fp32 master: 2 + 4 bytes a weight; Adam's two fp32 moments.
    let n = t.compiled.n_params as u64;
    assert_eq!(
        (r.bytes.weights, r.bytes.master, r.bytes.optimizer_state),
        (2 * n, 4 * n, 8 * n)
    );
}

/// The step export of a reduced-precision step names each tensor's format, and its numbers are
/// what it says: naive fp16's weights and gradients are all fp16 values; mixed fp16's gradients
/// are, its fp32 master weights are not.
#[test]
fn the_step_export_states_each_tensors_format_and_its_numbers_keep_it() {
    use engine::precision::Format;
    let all_in = |tensors: &[engine::export::Tensor], f: Format| {
        tensors
            .iter()
            .flat_map(|t| t.values.iter())
            .all(|v| f.round(*v, engine::precision::Rounding::Nearest, 0) == *v)
    };
    for (preset, master_fp16) in [(Preset::NaiveFp16, true), (Preset::MixedFp16, false)] {
        let (config, data) = mnist_mlp(preset.precision(), Optimizer::Sgd, 0.1);
        let mut t = trainer(&config, &data, false);
        losses(&mut t, 3);
        let step = pollster::block_on(engine::export::export_step(&mut t)).unwrap();
        let f = step.formats.as_ref().expect("a reduced step states its formats");
        assert_eq!((f.gradients.as_str(), f.loss_scale), ("fp16", 1.0));
        assert_eq!(f.master, if master_fp16 { "fp16" } else { "fp32" });
        assert!(
            all_in(&step.gradients, Format::F16),
            "{}: gradients are fp16 values",
            preset.name()
        );
        assert_eq!(
            all_in(&step.parameters_after, Format::F16),
            master_fp16,
            "{}",
            preset.name()
        );
    }
    let (config, data) = mnist_mlp(Precision::default(), Optimizer::Sgd, 0.1);
    let step = pollster::block_on(engine::export::export_step(&mut trainer(&config, &data, false))).unwrap();
    assert!(step.formats.is_none());
}

/// The same lesson on the LeNet-like CNN (W2's model, Adam 0.001, batch 64, 500 steps on 10,000
/// images): naive fp16 does not diverge here but loses accuracy; mixed fp16 and bf16 stay within a
/// point of fp32.
#[test]
fn on_the_cnn_naive_fp16_loses_accuracy_where_mixed_precision_does_not() {
    let (data_config, train, test) = common::mnist(10_000, 2_000);
    let test = test.unwrap();
    let w2 = lab_sims::bench::WORKLOADS
        .iter()
        .find(|w| w.name == "W2")
        .unwrap();
    let run = |preset: Preset| {
        let config = TrainConfig {
            data: data_config.clone(),
            optimizer: Optimizer::adam(),
            learning_rate: 0.001,
            batch: 64,
            shuffle: true,
            precision: preset.precision(),
            ..(w2.config)()
        };
        let mut t = trainer(&config, &train, false);
        for _ in 0..2 {
            pollster::block_on(t.train(250)).unwrap();
        }
        pollster::block_on(t.evaluate(&test)).unwrap().1
    };
    let [fp32, naive, mixed, bf16] = [
        Preset::Fp32,
        Preset::NaiveFp16,
        Preset::MixedFp16,
        Preset::MixedBf16,
    ]
    .map(run);
    eprintln!("CNN test accuracy: fp32 {fp32}, naive fp16 {naive}, mixed fp16 {mixed}, bf16 {bf16}");
    assert!(naive < fp32 - 0.005, "naive fp16 {naive} against fp32 {fp32}");
    assert!((mixed - fp32).abs() < 0.01 && (bf16 - fp32).abs() < 0.01);
}
