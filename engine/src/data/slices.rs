//! How an image set travels to the browser: cut into slices of `PER_SLICE` images, each a
//! gzip-compressed image file (`{set}-{split}-{k}.bin.gz`), listed by a small manifest
//! (`{set}-{split}.json`). A run fetches only the slices holding the images it uses, so the
//! default vision run (the first 10,000 training images) waits for one slice, not six, and a
//! run's data never depends on how far a download has got.

use serde::{Deserialize, Serialize};

/// Images per slice: the vision lab's default training set is exactly one.
pub const PER_SLICE: usize = 10_000;

/// One slice as the manifest lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Slice {
    /// The file, relative to the manifest.
    pub file: String,
    /// Images it holds.
    pub images: usize,
    /// Its size compressed: what it costs over the wire.
    pub bytes: usize,
}

/// A split's manifest: its image count and its slices in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub images: usize,
    pub slices: Vec<Slice>,
}

impl Manifest {
    /// The manifest's file name for `set` ("mnist", "fashion") and `split` ("train", "test").
    pub fn file_name(set: &str, split: &str) -> String {
        format!("{set}-{split}.json")
    }

    /// Slice `k`'s file name.
    pub fn slice_name(set: &str, split: &str, k: usize) -> String {
        format!("{set}-{split}-{k}.bin.gz")
    }

    /// The first slices, as many as hold the first `limit` images (all of them when the split
    /// holds fewer; at least one, which says the images' shape even to a run that uses none).
    pub fn needed(&self, limit: usize) -> &[Slice] {
        let mut held = 0;
        let n = self
            .slices
            .iter()
            .take_while(|s| {
                let more = held < limit.max(1);
                held += s.images;
                more
            })
            .count();
        &self.slices[..n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        let slice = |k: usize, images| Slice {
            file: Manifest::slice_name("mnist", "train", k),
            images,
            bytes: 1,
        };
        Manifest {
            images: 25_000,
            slices: vec![slice(0, 10_000), slice(1, 10_000), slice(2, 5_000)],
        }
    }

    #[test]
    fn a_run_fetches_only_the_slices_its_images_are_in() {
        let m = manifest();
        let files = |limit| {
            m.needed(limit)
                .iter()
                .map(|s| s.file.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(files(500), ["mnist-train-0.bin.gz"]);
        assert_eq!(files(10_000), ["mnist-train-0.bin.gz"]);
        assert_eq!(files(10_001), ["mnist-train-0.bin.gz", "mnist-train-1.bin.gz"]);
        assert_eq!(m.needed(60_000).len(), 3);
        assert_eq!(m.needed(usize::MAX).len(), 3);
        assert_eq!(files(0), ["mnist-train-0.bin.gz"]);
    }

    #[test]
    fn the_manifest_reads_back() {
        let m = manifest();
        let text = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<Manifest>(&text).unwrap(), m);
    }
}
