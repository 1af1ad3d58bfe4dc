//! What the lab's comparisons say, in words: sharpness and the top Hessian eigenvalue across
//! two batch sizes, and the ResNet's slice with and without skips.

/// What a comparison of two trained batches says about sharpness (Keskar et al. 2017; docs/theory.md
/// §4.4), from each run's (batch, sharpness, training loss): which is sharper as measured, whether
/// that agrees with Keskar et al.'s large-batch sharp minima, and a caution when the training losses
/// differ (sharpness is compared at equal training loss).
pub fn sharpness_verdict(a: (usize, f32, f32), b: (usize, f32, f32), target: f32) -> String {
    let (small, large) = if a.0 <= b.0 { (a, b) } else { (b, a) };
    let ratio = large.1 / small.1.max(f32::MIN_POSITIVE);
    let mut text = if large.1 > small.1 {
        format!(
            "Batch {} is sharper than batch {} ({:.4} vs {:.4}, ×{ratio:.1}): the large batch found the \
             sharper minimum, as Keskar et al. (2017) report.",
            large.0, small.0, large.1, small.1
        )
    } else {
        format!(
            "Batch {} is sharper than batch {} ({:.4} vs {:.4}): here the small batch found the sharper \
             minimum, contrary to Keskar et al. (2017). On networks this small the verdict changes with \
             the seed; their result holds for larger networks — try Keskar et al.'s setting.",
            small.0, large.0, small.1, large.1
        )
    };
    let (lo, hi) = (small.2.min(large.2), small.2.max(large.2));
    let unequal = if target > 0.0 {
        hi > target + 1e-3
    } else {
        hi > 1.25 * lo + 0.01
    };
    if unequal {
        text.push_str(&format!(
            " The training losses differ ({:.3} vs {:.3}): the comparison is not at equal loss \
             (a run stopped at its epoch budget{}).",
            small.2,
            large.2,
            if target > 0.0 {
                " before the target"
            } else {
                "; set a target loss"
            }
        ));
    }
    text
}

/// The ResNet with and without skips, each (non-convexity of its slice, training loss): Li et
/// al.'s finding, or what this run measured against it.
pub fn skips_verdict(with: (f32, f32), without: (f32, f32)) -> String {
    let found = if without.0 > with.0 {
        "the slice without skips is the less convex, as Li et al. (2018) found for deep networks: \
         the skips keep the loss surface smooth"
    } else {
        "here the slice with skips is the less convex, against Li et al. (2018): at this depth and \
         this training the difference is small; more blocks make it plain"
    };
    format!(
        "Non-convexity {:.3} with skips, {:.3} without: {found}. Trained the same steps, the network \
         without skips reached training loss {:.3} against {:.3} with them (He et al. 2016: deep \
         plain networks train worse).",
        with.0, without.0, without.1, with.1
    )
}

/// The two runs' top Hessian eigenvalues (batch, λ_max) compared: the curvature of the sharpest
/// direction, where the mean rise at a radius averages over random ones.
pub fn hessian_verdict(a: (usize, f32), b: (usize, f32)) -> String {
    let (small, large) = if a.0 <= b.0 { (a, b) } else { (b, a) };
    let ratio = large.1 / small.1.max(f32::MIN_POSITIVE);
    format!(
        "Sharpest direction: the top Hessian eigenvalue is {:.4} at batch {} and {:.4} at batch {} \
         (×{ratio:.2}); the {} batch's minimum curves faster along it.",
        small.1,
        small.0,
        large.1,
        large.0,
        if large.1 > small.1 { "large" } else { "small" }
    )
}
