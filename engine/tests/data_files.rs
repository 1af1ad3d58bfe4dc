//! The MNIST / Fashion-MNIST files that setup writes to `data/` load with the engine's
//! loader and hold what they should. (Setup runs before the tests; without the files this test
//! says so and checks nothing.)

use std::path::PathBuf;

use engine::data::images::ImageSet;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
}

#[test]
fn prepared_image_sets_load_with_expected_shapes_and_balanced_labels() {
    let dir = data_dir();
    if !dir.join("mnist-train.bin").exists() {
        eprintln!("data/ is missing: run scripts/setup.sh to prepare it (skipping)");
        return;
    }
    for (file, count) in [
        ("mnist-train.bin", 60_000),
        ("mnist-test.bin", 10_000),
        ("fashion-train.bin", 60_000),
        ("fashion-test.bin", 10_000),
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let set = ImageSet::parse(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            (set.len(), set.rows, set.cols, set.classes),
            (count, 28, 28, 10),
            "{file}"
        );
        let mut per_class = [0usize; 10];
        for &l in &set.labels {
            per_class[l as usize] += 1;
        }
        // Every class is present in a sensible share (MNIST is only roughly balanced).
        for (c, &n) in per_class.iter().enumerate() {
            assert!(
                n * 10 > count * 8 / 10 && n * 10 < count * 12 / 10,
                "{file}: class {c} has {n}"
            );
        }
        // Images are not blank: the mean pixel of a digit or garment is well above zero.
        let mean = set.image(0).iter().map(|&p| p as f32).sum::<f32>() / 784.0;
        assert!(mean > 10.0, "{file}: first image looks blank");
        let d = set.to_dataset(100);
        assert_eq!((d.len(), d.dim), (100, 784));
        assert!(d.x.iter().all(|&v| (0.0..=1.0).contains(&v)));
    }
}
