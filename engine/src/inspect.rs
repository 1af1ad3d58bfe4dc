//! Looking inside a trained classifier: the confusion matrix, per-class accuracy and the
//! misclassified samples from its predicted probabilities; the first convolution's filters; and a
//! hand-drawn digit prepared the way MNIST's were (fitted into 20×20, centred by its centre of
//! mass in 28×28).

use serde::{Deserialize, Serialize};

use crate::model::{Compiled, Layer};

/// A misclassified sample.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Miss {
    pub index: usize,
    pub label: usize,
    pub predicted: usize,
    /// The probability given to the wrong class.
    pub confidence: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub classes: usize,
    /// confusion[label · classes + predicted]: samples of class `label` predicted as `predicted`.
    pub confusion: Vec<u32>,
    /// Accuracy on each class's samples (NaN where a class has none).
    pub per_class: Vec<f32>,
    pub accuracy: f32,
    /// Every misclassified sample, most confident first.
    pub misclassified: Vec<Miss>,
}

impl Evaluation {
    /// The most frequent mistake: (true class, predicted class, count), the first of equals in
    /// row-major order; None when nothing was misclassified.
    pub fn most_confused(&self) -> Option<(usize, usize, u32)> {
        let n = self.classes;
        (0..n * n)
            .filter(|i| i / n != i % n && self.confusion[*i] > 0)
            .fold(None, |best: Option<(usize, usize, u32)>, i| match best {
                Some(b) if b.2 >= self.confusion[i] => Some(b),
                _ => Some((i / n, i % n, self.confusion[i])),
            })
    }
}

/// The index of the largest value (the first of equals).
pub fn argmax(v: &[f32]) -> usize {
    (0..v.len()).fold(0, |b, c| if v[c] > v[b] { c } else { b })
}

/// Scores predictions (`classes` probabilities per sample, in order) against the labels.
pub fn evaluation(probs: &[f32], labels: &[u32], classes: usize) -> Evaluation {
    let mut confusion = vec![0u32; classes * classes];
    let mut misclassified = Vec::new();
    for (i, (p, &y)) in probs.chunks(classes).zip(labels).enumerate() {
        let (y, predicted) = (y as usize, argmax(p));
        confusion[y * classes + predicted] += 1;
        if predicted != y {
            misclassified.push(Miss {
                index: i,
                label: y,
                predicted,
                confidence: p[predicted],
            });
        }
    }
    misclassified.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    let per_class = (0..classes)
        .map(|c| {
            let row = &confusion[c * classes..(c + 1) * classes];
            let total: u32 = row.iter().sum();
            row[c] as f32 / total as f32
        })
        .collect();
    let n = labels.len().min(probs.len() / classes.max(1));
    let correct: u32 = (0..classes).map(|c| confusion[c * classes + c]).sum();
    Evaluation {
        classes,
        confusion,
        per_class,
        accuracy: correct as f32 / n.max(1) as f32,
        misclassified,
    }
}

/// The first convolution's filters: (filters, channels, kernel, weights in [filter][channel][row][col]).
pub fn first_filters(c: &Compiled, params: &[f32]) -> Option<(usize, usize, usize, Vec<f32>)> {
    let l = c
        .layers
        .iter()
        .find(|l| matches!(l.layer, Layer::Conv2d { .. }))?;
    let s = l.w_shape();
    Some((s[0], s[1], s[2], params[l.w_off..l.w_off + l.w_len].to_vec()))
}

/// How smooth the filters are: the correlation between each weight and its right-hand and lower
/// neighbours, pooled over every filter and channel (`k × k` each, in `w`), each kernel's mean
/// removed first. Independent random weights give about 0, smooth strokes and blobs approach 1,
/// a checkerboard gives −1. A constant kernel has nothing to correlate and counts for nothing.
pub fn filter_smoothness(k: usize, w: &[f32]) -> f32 {
    let (mut ab, mut aa, mut bb) = (0.0f64, 0.0f64, 0.0f64);
    for kernel in w.chunks_exact(k * k) {
        let mean = kernel.iter().map(|&x| x as f64).sum::<f64>() / (k * k) as f64;
        let at = |r: usize, c: usize| kernel[r * k + c] as f64 - mean;
        for r in 0..k {
            for c in 0..k {
                let pairs = [
                    (c + 1 < k).then(|| at(r, c + 1)),
                    (r + 1 < k).then(|| at(r + 1, c)),
                ];
                for b in pairs.into_iter().flatten() {
                    let a = at(r, c);
                    (ab, aa, bb) = (ab + a * b, aa + a * a, bb + b * b);
                }
            }
        }
    }
    if aa == 0.0 || bb == 0.0 {
        return 0.0;
    }
    (ab / (aa * bb).sqrt()) as f32
}

/// A drawing (`w × h` intensities from 0 to 1, row by row) prepared like MNIST's digits: cropped
/// to its ink, scaled so its longer side is 20 pixels (area averaging), and placed in 28×28 with its
/// centre of mass in the middle. An empty drawing gives an empty image.
pub fn mnist_digit(pixels: &[f32], w: usize, h: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; 28 * 28];
    let ink = |x: usize, y: usize| pixels[y * w + x];
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for y in 0..h {
        for x in 0..w {
            if ink(x, y) > 0.05 {
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1));
            }
        }
    }
    if x0 >= x1 {
        return out;
    }
    let (bw, bh) = ((x1 - x0) as f32, (y1 - y0) as f32);
    let scale = 20.0 / bw.max(bh);
    let (sw, sh) = (
        ((bw * scale).round() as usize).max(1),
        ((bh * scale).round() as usize).max(1),
    );
    // Area-average the box into sw × sh.
    let mut small = vec![0.0f32; sw * sh];
    for (j, row) in small.chunks_mut(sw).enumerate() {
        for (i, v) in row.iter_mut().enumerate() {
            let (ax, bx) = (x0 as f32 + i as f32 / scale, x0 as f32 + (i + 1) as f32 / scale);
            let (ay, by) = (y0 as f32 + j as f32 / scale, y0 as f32 + (j + 1) as f32 / scale);
            let (mut sum, mut n) = (0.0, 0.0);
            for y in ay.floor() as usize..(by.ceil() as usize).min(h) {
                for x in ax.floor() as usize..(bx.ceil() as usize).min(w) {
                    sum += ink(x, y);
                    n += 1.0;
                }
            }
            *v = if n > 0.0 { sum / n } else { 0.0 };
        }
    }
    let total: f32 = small.iter().sum::<f32>().max(1e-6);
    let cx: f32 = small
        .iter()
        .enumerate()
        .map(|(k, v)| (k % sw) as f32 * v)
        .sum::<f32>()
        / total;
    let cy: f32 = small
        .iter()
        .enumerate()
        .map(|(k, v)| (k / sw) as f32 * v)
        .sum::<f32>()
        / total;
    let (ox, oy) = ((13.5 - cx).round() as i64, (13.5 - cy).round() as i64);
    for (k, v) in small.iter().enumerate() {
        let (x, y) = ((k % sw) as i64 + ox, (k / sw) as i64 + oy);
        if (0..28).contains(&x) && (0..28).contains(&y) {
            out[y as usize * 28 + x as usize] = v.clamp(0.0, 1.0);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confusion_counts_and_misses() {
        // Three classes; samples: 0→0, 0→1, 1→1, 2→0 (confident), 2→2.
        let probs = [
            0.8, 0.1, 0.1, 0.3, 0.6, 0.1, 0.1, 0.8, 0.1, 0.9, 0.05, 0.05, 0.1, 0.1, 0.8,
        ];
        let e = evaluation(&probs, &[0, 0, 1, 2, 2], 3);
        assert_eq!(e.confusion, vec![1, 1, 0, 0, 1, 0, 1, 0, 1]);
        assert_eq!(e.per_class, vec![0.5, 1.0, 0.5]);
        assert!((e.accuracy - 0.6).abs() < 1e-6);
        assert_eq!(
            e.misclassified
                .iter()
                .map(|m| (m.index, m.label, m.predicted))
                .collect::<Vec<_>>(),
            vec![(3, 2, 0), (1, 0, 1)],
            "most confident first"
        );
        // Two mistakes of one each: the first in row-major order; then 2→0 made twice wins.
        assert_eq!(e.most_confused(), Some((0, 1, 1)));
        let more = evaluation(
            &[probs.as_slice(), &[0.9, 0.05, 0.05]].concat(),
            &[0, 0, 1, 2, 2, 2],
            3,
        );
        assert_eq!(more.most_confused(), Some((2, 0, 2)));
        let perfect = evaluation(&[0.9, 0.1, 0.2, 0.8], &[0, 1], 2);
        assert_eq!(perfect.most_confused(), None);
    }

    #[test]
    fn a_drawing_is_fitted_and_centred() {
        // A 10×40 bar in the corner of a 200×200 drawing.
        let (w, h) = (200, 200);
        let mut pixels = vec![0.0f32; w * h];
        for y in 5..45 {
            for x in 3..13 {
                pixels[y * w + x] = 1.0;
            }
        }
        let d = mnist_digit(&pixels, w, h);
        let rows: Vec<usize> = (0..28).filter(|y| (0..28).any(|x| d[y * 28 + x] > 0.5)).collect();
        let cols: Vec<usize> = (0..28).filter(|x| (0..28).any(|y| d[y * 28 + x] > 0.5)).collect();
        assert_eq!(rows.len(), 20, "the longer side is 20 pixels");
        assert_eq!(cols.len(), 5);
        let mid = |v: &[usize]| (v[0] + v[v.len() - 1]) as f32 / 2.0;
        assert!((mid(&rows) - 13.5).abs() <= 1.0 && (mid(&cols) - 13.5).abs() <= 1.0);
        assert!(mnist_digit(&vec![0.0; 100], 10, 10).iter().all(|&v| v == 0.0));
    }
}
