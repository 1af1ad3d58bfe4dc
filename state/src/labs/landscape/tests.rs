use super::*;

#[test]
fn round_trips_through_the_url() {
    let s = Landscape {
        network: Network::Cnn,
        data: Data::Fashion,
        batch: 64,
        compare: 512,
        plane: Plane::Random,
        res: 25,
        epochs: 2,
        ..Default::default()
    };
    let (back, notices) = Landscape::from_query(&s.to_query());
    assert_eq!((back, notices), (s, vec![]));
    assert_eq!(Landscape::default().to_query(), "");
    assert_eq!(Landscape::from_query("").0, Landscape::default());
}

#[test]
fn carries_a_playground_network_whole() {
    let (pg, _) = Playground::from_query("dataset=spiral&hidden=6,6&batch=32&learning_rate=0.1");
    let s = Landscape {
        network: Network::Playground,
        playground: pg.clone(),
        batch: 32,
        epochs: 30,
        ..Default::default()
    };
    let (back, notices) = Landscape::from_query(&s.to_query());
    assert_eq!(notices, Vec::<String>::new());
    assert_eq!(back.playground, pg);
    assert_eq!(
        back.batch, 32,
        "the playground's batch unless the URL says otherwise"
    );
    assert_eq!(
        back.to_config(32),
        TrainConfig {
            batch: 32,
            ..pg.to_config()
        }
    );
}

#[test]
fn the_verdict_names_the_sharper_batch() {
    let v = sharpness_verdict((256, 0.0169, 0.05), (4, 0.0112, 0.09), 0.1);
    assert!(
        v.starts_with("Batch 256 is sharper than batch 4 (0.0169 vs 0.0112, ×1.5)"),
        "{v}"
    );
    assert!(v.contains("as Keskar et al."), "{v}");
    assert!(!v.contains("differ"), "{v}");
    let v = sharpness_verdict((4, 0.02, 0.1), (256, 0.01, 0.4), 0.1);
    assert!(
        v.contains("contrary to Keskar") && v.contains("losses differ"),
        "{v}"
    );
}

#[test]
fn the_hessian_verdict_names_the_faster_curving_batch() {
    let v = hessian_verdict((256, 4.0), (16, 2.0));
    assert!(
        v.contains("2.0000 at batch 16 and 4.0000 at batch 256 (×2.00)"),
        "{v}"
    );
    assert!(v.contains("the large batch's"), "{v}");
    assert!(hessian_verdict((4, 3.0), (256, 1.5)).contains("the small batch's"));
}

#[test]
fn bad_values_keep_defaults_with_notices() {
    let (s, notices) = Landscape::from_query("net=toy&data=mnist&res=99&batch=abc&compare=7&zoom=2");
    assert_eq!(s.network, Network::Mlp, "images need the image network");
    assert_eq!((s.res, s.batch, s.compare), (41, 4, 256));
    assert_eq!(notices.len(), 5, "{notices:?}");
    let (s, notices) = Landscape::from_query("net=cnn&data=spiral");
    assert_eq!((s.network, s.data), (Network::Cnn, Data::Mnist));
    assert_eq!(notices.len(), 1);
}

#[test]
fn configs_train_what_the_labels_say() {
    let s = Landscape {
        network: Network::Mlp,
        data: Data::Mnist,
        ..Default::default()
    };
    let c = s.to_config(64);
    assert_eq!(c.batch, 64);
    assert!(matches!(c.data, DataConfig::Images(ref i) if i.set == "mnist" && i.train_limit == IMAGE_TRAIN));
    assert!(matches!(c.model, ModelConfig::Mlp { ref hidden, .. } if hidden == &vec![32]));
    let toy = Landscape::default().to_config(16);
    assert!(matches!(toy.data, DataConfig::Toy(ref t) if t.kind == ToyKind::Circle));
    assert_eq!(
        Landscape {
            compare: 0,
            ..Default::default()
        }
        .batches(),
        vec![4]
    );
}

/// The ResNet pair's lighter measurement (a minute on the CPU path); every other network keeps
/// the full line and λ_max.
#[test]
fn the_resnet_pair_skips_the_power_iteration_and_shortens_the_line() {
    let (resnet, _) = Landscape::from_query("net=resnet&data=mnist");
    assert_eq!((resnet.line_intervals(), resnet.measures_hessian()), (12, false));
    let toy = Landscape::default();
    assert_eq!((toy.line_intervals(), toy.measures_hessian()), (40, true));
}
