//! The CPU path's work spread over the machine's cores: natively through rayon's pool (all cores,
//! or `RAYON_NUM_THREADS`), one piece after another in the browser, whose wasm has no threads on
//! stable Rust. Every split here is of independent pieces, or of partial sums added in a fixed
//! order, so results do not depend on how many threads ran them.

/// Runs `work(i, piece)` on each `len`-long piece of `out` (the last may be shorter).
pub fn for_each_piece<F>(out: &mut [f32], len: usize, work: F)
where
    F: Fn(usize, &mut [f32]) + Sync + Send,
{
    let len = len.max(1);
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        out.par_chunks_mut(len)
            .enumerate()
            .for_each(|(i, piece)| work(i, piece));
    }
    #[cfg(target_arch = "wasm32")]
    out.chunks_mut(len)
        .enumerate()
        .for_each(|(i, piece)| work(i, piece));
}

/// `work(i)` for i in 0..n, results in order.
pub fn map<T, F>(n: usize, work: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize) -> T + Sync + Send,
{
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        (0..n).into_par_iter().map(work).collect()
    }
    #[cfg(target_arch = "wasm32")]
    (0..n).map(work).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_buffer_once_in_order() {
        let mut v = vec![0.0; 10];
        for_each_piece(&mut v, 3, |i, piece| {
            piece.iter_mut().for_each(|x| *x += i as f32)
        });
        assert_eq!(v, [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0]);
        assert_eq!(map(4, |i| i * i), [0, 1, 4, 9]);
    }
}
