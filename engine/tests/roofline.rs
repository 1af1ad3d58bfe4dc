//! The roofline's probes (`ops::probe`, `roofline`): each against its CPU twin on the GPU (every
//! lane of the compute probe walks to exactly 1.0, so each invocation's sum is 32; the copy
//! probe copies), their counts by hand, and a measurement that gives two positive roofs on the
//! CPU path and on the GPU (their size is a figure, never asserted).

use engine::kernel::{BufferTable, Elem, StepScalars};
use engine::ops::probe::{probe_flops_cpu, ProbeCopy, ProbeFlops, FLOPS_PER_ROUND};
use engine::roofline::{measure, Roofs};
use pollster::block_on;

use crate::common::{gpu, random, run_both, Init};

/// A trainer of `config` on 100 images of MNIST's shape whose pixels are bytes over 255, as the
/// data set's are (so the batch's gather reads them packed, a byte a pixel), on the CPU path.
fn on_digits(config: engine::train::TrainConfig) -> engine::train::Trainer {
    let data = engine::data::Dataset {
        x: vec![128.0 / 255.0; 100 * 784],
        y: vec![1; 100],
        dim: 784,
        classes: 10,
        targets: vec![],
    };
    block_on(engine::train::Trainer::with_data(config, data, None, 1)).unwrap()
}

#[test]
fn the_compute_probe_matches_its_twin_and_sums_to_32() {
    let ctx = gpu();
    for &(n, iters) in &[(1, 64), (300, 64), (1000, 200)] {
        let mut t = BufferTable::default();
        let out = t.add("out", Elem::F32, n);
        let got = run_both(
            &ctx,
            t,
            vec![Init::F32(vec![0.0; n])],
            || Box::new(ProbeFlops { out, n, iters }),
            StepScalars::default(),
            &[out],
        );
        assert_eq!(got[0].0, vec![32.0; n], "GPU");
        assert_eq!(got[0].1, vec![32.0; n], "CPU");
    }
    // Few rounds: not yet converged, the twin still agrees.
    let mut twin = vec![0.0; 9];
    probe_flops_cpu(9, 3, &mut twin);
    let mut t = BufferTable::default();
    let out = t.add("out", Elem::F32, 9);
    let got = run_both(
        &ctx,
        t,
        vec![Init::F32(vec![0.0; 9])],
        || Box::new(ProbeFlops { out, n: 9, iters: 3 }),
        StepScalars::default(),
        &[out],
    );
    crate::common::assert_close("3 rounds", &got[0].0, &twin, 1e-5, 1e-5);
    // 8 chains × 4 lanes × (a multiply and an add).
    assert_eq!(FLOPS_PER_ROUND, 64.0);
    use engine::kernel::Kernel;
    let k = ProbeFlops { out, n: 10, iters: 5 };
    assert_eq!((k.flops(), k.bytes()), (3_200.0, 40.0));
}

#[test]
fn the_copy_probe_copies_and_counts_its_bytes() {
    let ctx = gpu();
    for &(n, groups) in &[(1, 1), (1000, 1), (70_000, 3)] {
        let mut t = BufferTable::default();
        let src = t.add("src", Elem::F32, n);
        let dst = t.add("dst", Elem::F32, n);
        let got = run_both(
            &ctx,
            t,
            vec![Init::F32(random(n, 3)), Init::F32(vec![0.0; n])],
            || Box::new(ProbeCopy { src, dst, n, groups }),
            StepScalars::default(),
            &[dst],
        );
        assert_eq!(got[0].0, random(n, 3), "GPU");
        assert_eq!(got[0].1, random(n, 3), "CPU");
        use engine::kernel::Kernel;
        assert_eq!(ProbeCopy { src, dst, n, groups }.bytes(), 8.0 * n as f64);
    }
}

#[test]
fn the_ridge_is_where_the_roofs_meet() {
    // 1,000 GFLOP/s and 100 GB/s: 10 FLOPs a byte; a kernel of 2 FLOPs a byte reaches 200.
    let r = Roofs {
        gflops: 1000.0,
        gbs: 100.0,
    };
    assert_eq!(r.ridge(), 10.0);
    assert_eq!(r.attainable(2.0), 200.0);
    assert_eq!(r.attainable(50.0), 1000.0);
}

#[test]
fn measuring_gives_two_positive_roofs_on_both_paths() {
    for gpu in [None, Some(gpu())] {
        let on_gpu = gpu.is_some();
        let r = block_on(measure(gpu, 3, &engine::workloads::native_now_ms)).unwrap();
        eprintln!(
            "roofs (GPU {on_gpu}): {:.1} GFLOP/s, {:.1} GB/s, ridge {:.2} FLOPs/byte",
            r.gflops,
            r.gbs,
            r.ridge()
        );
        assert!(
            r.gflops.is_finite() && r.gflops > 0.0 && r.gbs.is_finite() && r.gbs > 0.0,
            "{r:?}"
        );
    }
}

/// W1's fused step (784-128-10, batch 64, SGD): its kernels' FLOPs and bytes by hand count, each
/// float 4 bytes, each value read or written once.
#[test]
fn the_steps_kernels_are_counted_by_hand() {
    let t = on_digits(engine::workloads::w1());
    let kernels = t.plan().kernels(engine::backend::Pass::Train);
    let find = |name: &str| {
        kernels
            .iter()
            .find(|k| k.name() == name)
            .unwrap_or_else(|| panic!("no kernel {name}"))
    };
    // The first layer's forward: the batch gathered (64 indices, 64 × 784 pixels a byte each and
    // 64 labels read; the 64 × 785 floats stored for the backward), W 784 × 128, Z 64 × 128 and
    // the bias.
    let first = find("fused:gather+matmul+bias+ReLU");
    assert_eq!(first.flops(), 2.0 * 64.0 * 784.0 * 128.0);
    let gather = 64.0 * (4.0 + 784.0 + 4.0) + 4.0 * 64.0 * 785.0;
    assert_eq!(
        first.bytes(),
        gather + 4.0 * (784.0 * 128.0 + 64.0 * 128.0 + 128.0)
    );
    // The output layer's: 64 × 128 by 128 × 10, into 64 × 10, its 10 biases.
    assert_eq!(
        find("fused:matmul+bias").bytes(),
        4.0 * (8_192.0 + 1_280.0 + 640.0 + 10.0)
    );
    // The loss: the logits read and their gradient written (64 × 10 each), the labels, two means.
    assert_eq!(
        find("fused:softmax_xent+batch_mean").bytes(),
        4.0 * (2.0 * 640.0 + 64.0 + 2.0)
    );
    // Plain SGD over 784·128 + 128 + 128·10 + 10 = 101,770 parameters: g and w read, w written;
    // w − η·g is a multiply and a subtraction: 1/6 of a FLOP a byte (the roofline lesson's).
    assert_eq!(find("sgd").bytes(), 12.0 * 101_770.0);
    assert_eq!(find("sgd").flops(), 2.0 * 101_770.0);
    assert_eq!(find("sgd").flops() / find("sgd").bytes(), 1.0 / 6.0);
}

/// Each optimizer's update, FLOPs and bytes a parameter, counted by hand from its formula (theory
/// §11.1: an operation on a per-parameter value counts 1, a square root too; a product of
/// scalars alone, such as η·λ or 1 − β, none), over 1,000 parameters.
#[test]
fn every_optimizers_update_is_counted_by_hand() {
    use engine::kernel::{BufId, Kernel};
    use engine::ops::adam::Adam;
    use engine::ops::adaptive::{Adaptive, AdaptiveRule};
    use engine::ops::lars::{LarsBuffers, LarsHyper, LarsNorms, LarsUpdate};
    use engine::ops::sgd::{Sgd, SgdMode};
    let n = 1_000;
    let b = BufId(0);
    let sgd = |mode, momentum| Sgd {
        grads: b,
        weights: b,
        velocity: b,
        n,
        momentum,
        mode,
    };
    let adaptive = |rule| Adaptive {
        grads: b,
        weights: b,
        accum: b,
        n,
        rule,
    };
    let lars = LarsBuffers {
        grads: b,
        weights: b,
        velocity: b,
        bounds: b,
        norms: b,
        n,
        segments: 2,
    };
    let h = LarsHyper {
        momentum: 0.9,
        weight_decay: 1e-4,
    };
    let adam = Adam {
        grads: b,
        weights: b,
        m: b,
        v: b,
        n,
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
        weight_decay: 0.0,
    };
    let per = |k: &dyn Kernel| (k.flops() / n as f64, k.bytes() / n as f64);
    // w − η·g: ×, −. Reads g, w; writes w.
    assert_eq!(per(&sgd(SgdMode::Plain, 0.0)), (2.0, 12.0));
    // v = μ·v − η·g: ×, ×, −; w + v: +. The velocity read and written too.
    assert_eq!(per(&sgd(SgdMode::Momentum, 0.9)), (4.0, 20.0));
    // As momentum, then w + μ·v − η·g: ×, ×, −, +.
    assert_eq!(per(&sgd(SgdMode::Nesterov, 0.9)), (7.0, 20.0));
    // A + g·g: ×, +; w − η·g / √(A + ε): ×, +, √, ÷, −.
    assert_eq!(per(&adaptive(AdaptiveRule::AdaGrad { eps: 1e-8 })), (7.0, 20.0));
    // β·A + (1 − β)·g·g: ×, ×, ×, +; w − η·g / (√A + ε): ×, √, +, ÷, −.
    assert_eq!(
        per(&adaptive(AdaptiveRule::RmsProp { beta: 0.9, eps: 1e-8 })),
        (9.0, 20.0)
    );
    // m: ×, ×, +; v: ×, ×, ×, +; m̂, v̂: ÷, ÷; √v̂ + ε: √, +; η·m̂ / (…): ×, ÷; w − …: −;
    // the decay η·λ·w (λ = 0 for Adam, still computed): ×, −. Reads g, w, m, v; writes w, m, v.
    assert_eq!(per(&adam), (16.0, 28.0));
    // The layer norms: w·w and g·g, each added to its sum; reads w and g.
    assert_eq!(per(&LarsNorms { b: lars, h }), (4.0, 8.0));
    // v = μ·v + η_l·(g + λ·w): ×, ×, +, ×, +; w − v: −. Reads g, w, v; writes w, v.
    assert_eq!(per(&LarsUpdate { b: lars, h }), (6.0, 20.0));
}

/// The sweep's products: n/6 FLOPs a byte by hand (2n³ FLOPs over A, B and C's 12n² bytes), each
/// timed on both paths.
#[test]
fn the_matmul_sweep_walks_up_in_intensity() {
    for gpu in [None, Some(gpu())] {
        let sweep = block_on(engine::roofline::matmul_sweep(
            gpu,
            &[6, 60, 120],
            2,
            &engine::workloads::native_now_ms,
        ))
        .unwrap();
        for (n, k) in &sweep {
            let n = *n as f64;
            assert_eq!((k.flops, k.bytes), (2.0 * n * n * n, 12.0 * n * n));
            assert!(k.ms >= 0.0);
        }
        assert_eq!(
            sweep.iter().map(|(_, k)| k.flops / k.bytes).collect::<Vec<_>>(),
            [1.0, 10.0, 20.0]
        );
    }
}

/// W2's first convolution (1 → 8 channels, 5 × 5, 28 × 28 → 24 × 24) and its first pool, by hand.
#[test]
fn the_cnn_kernels_are_counted_by_hand() {
    let config = engine::workloads::w2();
    let batch = config.batch as f64;
    let t = on_digits(config);
    let kernels = t.plan().kernels(engine::backend::Pass::Train);
    let conv = kernels
        .iter()
        .find(|k| k.name().starts_with("conv2d") && k.name().contains("forward"))
        .unwrap();
    // Each image: 784 inputs read, 8 · 25 weights and 8 biases, 8 · 576 outputs written; a
    // multiply-add per weight per output position.
    assert_eq!(conv.bytes(), 4.0 * (batch * 784.0 + 208.0 + batch * 4_608.0));
    assert_eq!(conv.flops(), 2.0 * batch * 4_608.0 * 25.0);
    // The max pool reads 8 × 24 × 24 a image and writes 8 × 12 × 12 values and as many argmaxes.
    let pool = kernels.iter().find(|k| k.name() == "pool:max_forward").unwrap();
    assert_eq!(pool.bytes(), 4.0 * batch * (4_608.0 + 2.0 * 1_152.0));
}

/// A fused kernel runs its teaching kernels' arithmetic (the same FLOPs) and moves fewer bytes:
/// W1's output layer, matmul then bias apart, writes Z (64 × 10) and reads and writes it again;
/// fused, once.
#[test]
fn fusion_keeps_the_flops_and_saves_the_intermediate_bytes() {
    let t = on_digits(engine::workloads::w1());
    for k in t.plan().kernels(engine::backend::Pass::Train) {
        if k.parts().is_empty() {
            continue;
        }
        let (flops, bytes): (f64, f64) = k
            .parts()
            .iter()
            .map(|p| (p.flops(), p.bytes()))
            .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        assert_eq!(k.flops(), flops, "{}", k.name());
        assert!(
            k.bytes() < bytes,
            "{}: {} fused against {bytes} apart",
            k.name(),
            k.bytes()
        );
        if k.name() == "fused:matmul+bias" {
            // Apart: 4 · (8,192 + 1,280 + 640) for the product, 4 · (2 · 640 + 10) for the bias.
            assert_eq!(bytes, 40_448.0 + 5_160.0);
            assert_eq!(bytes - k.bytes(), 4.0 * 2.0 * 640.0);
        }
    }
}

/// Every tile shape computes the same product (timed; its values are the product kernels' own
/// tests), one time per shape.
#[test]
fn the_tile_sweep_times_every_shape() {
    let sweep = block_on(engine::roofline::tile_sweep(
        gpu(),
        (64, 128, 784),
        2,
        &engine::workloads::native_now_ms,
    ))
    .unwrap();
    assert_eq!(sweep.len(), engine::tiles::TileShape::ALL.len());
    for (_, k) in &sweep {
        assert_eq!(k.flops, 2.0 * 64.0 * 128.0 * 784.0);
        assert!(k.ms >= 0.0);
    }
}

#[test]
fn a_kernels_time_is_gpu_time_within_the_hosts_clock() {
    use engine::backend::{Backend, Clock, Pass};
    use engine::roofline::{probe_plan, ProbeSizes};
    use engine::workloads::native_now_ms;
    let ctx = gpu();
    let plan = probe_plan(ProbeSizes::for_device(Some(&ctx)));
    let mut b = block_on(Backend::on(Some(ctx.clone()), plan)).unwrap();
    b.run(Pass::Train, &StepScalars::default());
    let reps = 3;
    let t0 = native_now_ms();
    let times = block_on(b.profile(Pass::Train, &StepScalars::default(), reps, &native_now_ms)).unwrap();
    let wall = native_now_ms() - t0;
    eprintln!(
        "timestamp queries: {}; kernels timed by {:?}",
        ctx.timestamps, times[0].clock
    );
    assert!(times.iter().all(|t| t.ms > 0.0 && t.ms.is_finite()), "{times:?}");
    // Timestamps, or the host's clock less a read-back: either way no more than the wall time.
    let total: f64 = times.iter().map(|t| t.ms * reps as f64).sum();
    assert!(total <= wall, "{total} ms of kernels in {wall} ms");
    if !ctx.timestamps {
        assert!(times.iter().all(|t| t.clock == Clock::Repeated));
    }
    let cpu = block_on(Backend::on(None, probe_plan(ProbeSizes::for_device(None))));
    let mut cpu = cpu.unwrap();
    let times = block_on(cpu.profile(Pass::Train, &StepScalars::default(), 1, &native_now_ms)).unwrap();
    assert!(times.iter().all(|t| t.clock == Clock::Cpu));
}
