use super::*;

#[test]
fn init_schemes_have_their_standard_deviations() {
    let spec = ModelSpec::mlp(300, &[200], 2, Activation::Tanh);
    let c = spec.compile().unwrap();
    let l = &c.layers[0];
    let std = |scheme| {
        let p = spec.init_with(&c, 3, scheme);
        let w = &p[l.w_off..l.b_off];
        assert!(
            p[l.b_off..l.b_off + 200].iter().all(|&b| b == 0.0),
            "biases start at zero"
        );
        (w.iter().map(|v| v * v).sum::<f32>() / w.len() as f32).sqrt()
    };
    let (he, glorot) = ((2.0f32 / 300.0).sqrt(), (2.0f32 / 500.0).sqrt());
    assert!((std(Init::He) / he - 1.0).abs() < 0.02);
    assert!((std(Init::Glorot) / glorot - 1.0).abs() < 0.02);
    assert!(
        (std(Init::Auto) / glorot - 1.0).abs() < 0.02,
        "tanh follows: Glorot"
    );
    assert_eq!(std(Init::Zero), 0.0);
}

#[test]
fn mlp_layout_is_contiguous() {
    let spec = ModelSpec::mlp(2, &[8, 3], 2, Activation::Tanh);
    let c = spec.compile().unwrap();
    let dense: Vec<&CompiledLayer> = c.layers.iter().filter(|l| l.has_params()).collect();
    assert_eq!(dense.len(), 3);
    assert_eq!((dense[0].w_off, dense[0].b_off), (0, 16));
    assert_eq!(dense[1].w_off, 24);
    assert_eq!(c.n_params, (2 * 8 + 8) + (8 * 3 + 3) + (3 * 2 + 2));
    assert_eq!(c.classes(), 2);
    let p = spec.init(&c, 1);
    assert_eq!(p, spec.init(&c, 1));
    assert!(p[16..24].iter().all(|&b| b == 0.0));
}

#[test]
fn lenet_shapes() {
    let relu = Layer::Activation {
        kind: Activation::Relu,
    };
    let pool = Layer::Pool {
        kind: PoolKind::Max,
        size: 2,
        stride: 2,
    };
    let spec = ModelSpec {
        input: [1, 28, 28],
        layers: vec![
            Layer::Conv2d {
                filters: 8,
                kernel: 5,
                stride: 1,
                padding: 0,
            },
            relu.clone(),
            pool.clone(),
            Layer::Conv2d {
                filters: 16,
                kernel: 5,
                stride: 1,
                padding: 0,
            },
            relu,
            pool,
            Layer::Flatten,
            Layer::Dense { units: 10 },
        ],
    };
    let c = spec.compile().unwrap();
    let shapes: Vec<[usize; 3]> = c.layers.iter().map(|l| l.out_shape).collect();
    assert_eq!(shapes[0], [8, 24, 24]);
    assert_eq!(shapes[2], [8, 12, 12]);
    assert_eq!(shapes[5], [16, 4, 4]);
    assert_eq!(shapes[6], [256, 1, 1]);
    assert_eq!(c.n_params, (8 * 25 + 8) + (16 * 8 * 25 + 16) + (10 * 256 + 10));
}

#[test]
fn impossible_models_are_refused_with_the_layer_named() {
    let err = ModelSpec {
        input: [1, 4, 4],
        layers: vec![Layer::Conv2d {
            filters: 2,
            kernel: 7,
            stride: 1,
            padding: 0,
        }],
    }
    .compile()
    .unwrap_err();
    assert!(matches!(err, ModelError::Layer { number: 1, .. }), "{err:?}");
    assert!(err.to_string().starts_with("layer 1"), "{err}");
    assert!(matches!(
        ModelSpec::mlp(2, &[0], 2, Activation::Relu).compile(),
        Err(ModelError::Layer { number: 1, .. })
    ));
    // Zero classes: the output layer is a dense layer of no units.
    assert!(matches!(
        ModelSpec::mlp(2, &[], 0, Activation::Relu).compile(),
        Err(ModelError::Layer { number: 1, .. })
    ));
    assert!(
        ModelSpec::mlp(2, &[], 1, Activation::Relu).compile().is_ok(),
        "regression: one output"
    );
}
