//! Every kernel's uniform words against its shader's `struct Params`, read by naga from the
//! WGSL: the same names in the same order at 4-byte steps, the same types (u32 or f32), nothing
//! written past the struct; and every storage binding a kernel names exists in the shader with
//! the element type of the buffer bound there. The two sides are written by hand, so this is
//! what keeps them in step.

use std::collections::BTreeSet;

use engine::backend::Pass;
use engine::data::toy::{ToyConfig, ToyKind};
use engine::kernel::{DeviceFit, Elem, Kernel, StepScalars};
use engine::model::Layer;
use engine::ops::pool::PoolKind;
use engine::optim::Optimizer;
use engine::plan::{Loss, Regularization};
use engine::precision::{Precision, Preset, Rounding};
use engine::tiles::{TilePlan, TileShape};
use engine::train::{DataConfig, ModelConfig, TrainConfig, Trainer};
use naga::{AddressSpace, Module, ScalarKind, TypeInner};

/// The element type of a naga type: a scalar, or the scalar of a runtime array (atomics count).
fn elem_of(module: &Module, ty: naga::Handle<naga::Type>) -> Option<Elem> {
    let scalar = match &module.types[ty].inner {
        TypeInner::Scalar(s) | TypeInner::Atomic(s) => *s,
        TypeInner::Array { base, .. } => return elem_of(module, *base),
        _ => return None,
    };
    match (scalar.kind, scalar.width) {
        (ScalarKind::Uint, 4) => Some(Elem::U32),
        (ScalarKind::Float, 4) => Some(Elem::F32),
        _ => None,
    }
}

/// Problems with one kernel, as sentences; empty when it agrees with its shader. `parsed` keeps
/// each shader source's module: thousands of kernels share a few dozen sources.
fn check(
    kernel: &dyn Kernel,
    plan: &engine::plan::Plan,
    parsed: &mut std::collections::HashMap<&'static str, Module>,
) -> Vec<String> {
    let shader = kernel.shader();
    let module = parsed.entry(shader.source).or_insert_with(|| {
        naga::front::wgsl::parse_str(shader.source)
            .unwrap_or_else(|e| panic!("{}: {}", shader.file, e.emit_to_string(shader.source)))
    });
    let module: &Module = module;
    let at = |binding: u32| {
        module.global_variables.iter().map(|(_, g)| g).find(|g| {
            g.binding
                .as_ref()
                .is_some_and(|b| b.group == 0 && b.binding == binding)
        })
    };
    let name = kernel.name();
    let mut problems = Vec::new();
    let uniform = at(0).expect("binding 0 is the uniform");
    assert_eq!(uniform.space, AddressSpace::Uniform, "{name}: binding 0");
    let TypeInner::Struct { members, span } = &module.types[uniform.ty].inner else {
        panic!("{name}: the uniform is not a struct");
    };
    let words = kernel.params(&StepScalars::default());
    let fields = words.fields().to_vec();
    if fields.len() * 4 > *span as usize {
        problems.push(format!(
            "{name}: {} words written, the struct has {span} bytes",
            fields.len()
        ));
    }
    for (i, (field, elem)) in fields.iter().enumerate() {
        let Some(m) = members.get(i) else { break };
        let member = m.name.as_deref().unwrap_or("?");
        if member != *field || m.offset != 4 * i as u32 || elem_of(module, m.ty) != Some(*elem) {
            problems.push(format!(
                "{name}: word {i} is {field} ({elem:?}), the shader has {member} ({:?}) at byte {}",
                elem_of(module, m.ty),
                m.offset
            ));
        }
    }
    for (binding, buf) in kernel.bindings() {
        let Some(g) = at(binding) else {
            problems.push(format!("{name}: binding {binding} is not in the shader"));
            continue;
        };
        let spec = &plan.table.specs[buf.0];
        if !matches!(g.space, AddressSpace::Storage { .. }) || elem_of(module, g.ty) != Some(spec.elem) {
            problems.push(format!(
                "{name}: binding {binding} ({}) holds {:?}, the shader reads {:?}",
                spec.name,
                spec.elem,
                elem_of(module, g.ty)
            ));
        }
    }
    problems
}

fn toy(kind: ToyKind) -> DataConfig {
    DataConfig::Toy(ToyConfig {
        kind,
        points: 64,
        ..ToyConfig::default()
    })
}

/// Configs that between them use every kernel: every optimizer, both losses, regression,
/// regularization, dropout, conv and both pools, a pruning mask and group lasso, and the landscape evaluation.
fn configs() -> Vec<TrainConfig> {
    let mut out: Vec<TrainConfig> = Optimizer::all()
        .into_iter()
        .map(|optimizer| TrainConfig {
            optimizer,
            data: toy(ToyKind::Spiral),
            ..Default::default()
        })
        .collect();
    out.push(TrainConfig {
        loss: Loss::Mse,
        regularization: Regularization {
            l1: 1e-3,
            l2: 1e-3,
            group: 0.0,
        },
        data: toy(ToyKind::Plane),
        ..Default::default()
    });
    out.push(TrainConfig {
        data: toy(ToyKind::Spiral),
        masked: true,
        regularization: Regularization {
            l1: 0.0,
            l2: 0.0,
            group: 1e-3,
        },
        ..Default::default()
    });
    // Reduced precision: the rounded weight copy, stores, loss scaling and the overflow count.
    for preset in [Preset::MixedFp16, Preset::NaiveFp16] {
        out.push(TrainConfig {
            data: toy(ToyKind::Spiral),
            precision: Precision {
                rounding: Rounding::Stochastic,
                ..preset.precision()
            },
            ..Default::default()
        });
    }
    for pool in [PoolKind::Max, PoolKind::Avg] {
        out.push(TrainConfig {
            data: DataConfig::Images(engine::train::ImageConfig {
                set: "mnist".into(),
                train_limit: 64,
                test_limit: 0,
            }),
            model: ModelConfig::Layers {
                layers: vec![
                    Layer::Conv2d {
                        filters: 2,
                        kernel: 3,
                        stride: 1,
                        padding: 1,
                    },
                    Layer::Activation {
                        kind: engine::ops::activation::Activation::Relu,
                    },
                    Layer::Pool {
                        kind: pool,
                        size: 2,
                        stride: 2,
                    },
                    Layer::Dropout { rate: 0.25 },
                    Layer::BatchNorm { momentum: 0.1 },
                    Layer::Residual {
                        layers: vec![
                            Layer::Conv2d {
                                filters: 3,
                                kernel: 3,
                                stride: 2,
                                padding: 1,
                            },
                            Layer::LayerNorm,
                        ],
                        projection: true,
                    },
                    Layer::Residual {
                        layers: vec![Layer::Activation {
                            kind: engine::ops::activation::Activation::Tanh,
                        }],
                        projection: false,
                    },
                    Layer::Flatten,
                    Layer::Dense { units: 10 },
                ],
            },
            ..Default::default()
        });
    }
    out
}

#[test]
fn every_kernel_writes_the_uniform_its_shader_declares() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut seen = BTreeSet::new();
    let mut used = BTreeSet::new();
    let mut sources = Vec::new();
    let mut problems = Vec::new();
    let mut parsed = std::collections::HashMap::new();
    for config in configs() {
        let (train, _) = config
            .data
            .load(|name| std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e}")))
            .expect("data (run scripts/setup.sh)");
        let trainer =
            pollster::block_on(Trainer::with_evaluation(config, train, None, 16, 16)).expect("a trainer");
        let plan = trainer.plan();
        // The fused step, prediction and the landscape, and the unfused step (the teaching kernels).
        let lists = [Pass::Train, Pass::Predict, Pass::Evaluate].map(|pass| plan.kernels(pass));
        for k in lists.into_iter().flatten().chain(&plan.train) {
            // Each kernel as every tile shape makes it (the product kernels' shaders differ), on a
            // real GPU and on an emulated one (the split shape's two loops), with subgroups or
            // without (the quads), and on a real GPU with the convolutions' narrow tiles.
            let fits = TileShape::ALL.into_iter().flat_map(|t| {
                [
                    (t, 0, false, false),
                    (t, 0, false, true),
                    (t, 2, false, false),
                    (t, 2, true, false),
                ]
            });
            for (tiles, parallel_workgroups, subgroups, conv_narrow) in fits {
                let mut k = k.boxed_copy();
                k.fit_device(DeviceFit {
                    parallel_workgroups,
                    tiles: TilePlan {
                        conv_narrow,
                        ..TilePlan::uniform(tiles)
                    },
                    subgroups,
                });
                seen.insert(k.name());
                let shader = k.shader();
                // Another shape's product names its module apart ("matmul_small"), not a file;
                // so do the convolutions' narrow tiles ("conv2d_ahead_narrow").
                if tiles == TileShape::default() && !conv_narrow {
                    used.insert(shader.file.trim_end_matches(".wgsl").to_string());
                }
                sources.push(shader.source);
                problems.extend(check(k.as_ref(), plan, &mut parsed));
            }
        }
    }
    // The sparse (CSR) forward pass runs outside a trainer's plan: a small pruned MLP's.
    let mlp = engine::model::ModelSpec::mlp(5, &[4], 3, engine::ops::activation::Activation::Relu)
        .compile()
        .unwrap();
    let weights: Vec<f32> = (0..mlp.n_params).map(|i| (i % 3) as f32).collect();
    let sparse = pollster::block_on(engine::sparse::SparseMlp::new(&mlp, &weights, 2, None)).unwrap();
    // So do the roofline's probes.
    let probes = engine::roofline::probe_plan(engine::roofline::ProbeSizes::for_device(None));
    // And the attention and embedding kernels, not yet in a trainer's plan.
    let sequences = sequence_plan();
    for plan in [sparse.plan(), &probes, &sequences] {
        for k in &plan.train {
            seen.insert(k.name());
            used.insert(k.shader().file.trim_end_matches(".wgsl").to_string());
            sources.push(k.shader().source);
            problems.extend(check(k.as_ref(), plan, &mut parsed));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The configs reach every shader file in shaders/ (a new one is checked once a config uses
    // it): as a kernel's own file, or as shared code put before one (the tile loop, the
    // activations).
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shaders");
    let mut files = BTreeSet::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        if !used.contains(&name) && sources.iter().any(|s| s.contains(&text)) {
            used.insert(name.clone());
        }
        files.insert(name);
    }
    assert_eq!(files, used, "kernels seen: {seen:?}");
}

/// A plan of the transformer's kernels (embedding, attention and their backward passes), the
/// gradient's clipping and AdamW's decay of a slice.
fn sequence_plan() -> engine::plan::Plan {
    use engine::kernel::BufferTable;
    use engine::ops::attention::{AttentionBackward, AttentionForward, AttentionGeom};
    use engine::ops::clip::{ClipGrads, GradNorm};
    use engine::ops::embedding::{Embed, EmbedGeom, EmbedPositionsGrad, EmbedTableGrad};
    let g = AttentionGeom {
        batch: 2,
        seq: 3,
        heads: 2,
        head_dim: 2,
        causal: true,
    };
    let e = EmbedGeom {
        tokens: 6,
        seq: 3,
        width: 4,
        vocab: 5,
        table_off: 0,
        pos_off: 0,
    };
    let mut t = BufferTable::default();
    let ids = t.add("ids", Elem::U32, 6);
    let table = t.add("table", Elem::F32, 20);
    let positions = t.add("positions", Elem::F32, 12);
    let x = t.add("x", Elem::F32, 24);
    let qkv = t.add("qkv", Elem::F32, 72);
    let out = t.add("out", Elem::F32, 24);
    let probs = t.add("probs", Elem::F32, g.scores_len());
    let d_scores = t.add("d_scores", Elem::F32, g.scores_len());
    let d_qkv = t.add("d_qkv", Elem::F32, 72);
    let clip = t.add("clip", Elem::F32, 2);
    let mut kernels: Vec<Box<dyn Kernel>> = vec![
        Box::new(Embed {
            g: e,
            ids,
            table,
            positions,
            x,
        }),
        Box::new(AttentionForward { g, qkv, out, probs }),
        Box::new(EmbedTableGrad {
            g: e,
            ids,
            d_x: x,
            d_table: table,
            accumulate: true,
        }),
        Box::new(EmbedPositionsGrad {
            g: e,
            d_x: x,
            d_positions: positions,
        }),
        Box::new(GradNorm {
            grads: x,
            clip,
            n: 24,
            max_norm: 1.0,
        }),
        Box::new(ClipGrads {
            grads: x,
            clip,
            n: 24,
        }),
        Box::new(engine::ops::decay::DecaySlice {
            weights: table,
            off: 4,
            n: 8,
            decay: 0.1,
        }),
    ];
    kernels.splice(
        2..2,
        AttentionBackward::pair(g, (qkv, probs, out), (d_scores, d_qkv)),
    );
    engine::plan::Plan::of_kernels(t, kernels)
}
