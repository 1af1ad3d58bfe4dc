//! Group lasso on a dense layer's neurons (`shaders/group_lasso.wgsl`): λ Σ_o ‖W_o‖₂ over the
//! rows of W, its gradient λ·w/‖W_o‖₂ added to each weight's (docs/theory.md §10.5).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone)]
pub struct GroupLasso {
    pub weights: BufId,
    pub grads: BufId,
    /// The layer's W: `outputs` rows of `inputs` from `w_off`.
    pub w_off: usize,
    pub inputs: usize,
    pub outputs: usize,
    pub lambda: f32,
}

/// g_o ← g_o + λ·W_o/‖W_o‖₂ for every row o (an all-zero row unchanged), summed as the shader
/// sums: in order, in f32.
pub fn group_lasso_cpu(
    w: &[f32],
    g: &mut [f32],
    (w_off, inputs, outputs): (usize, usize, usize),
    lambda: f32,
) {
    for o in 0..outputs {
        let row = w_off + o * inputs..w_off + (o + 1) * inputs;
        let sq = w[row.clone()].iter().fold(0.0f32, |s, v| s + v * v);
        if sq == 0.0 {
            continue;
        }
        let scale = lambda / sq.sqrt();
        for i in row {
            g[i] += scale * w[i];
        }
    }
}

impl Kernel for GroupLasso {
    fn shader(&self) -> Shader {
        wgsl!("group_lasso.wgsl", "main")
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default()
            .u("w_off", self.w_off as u32)
            .u("inputs", self.inputs as u32)
            .u("outputs", self.outputs as u32)
            .f("lambda", self.lambda)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.weights), (2, self.grads)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.outputs, 64)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut g = bufs.take_f32(self.grads);
        let geometry = (self.w_off, self.inputs, self.outputs);
        group_lasso_cpu(bufs.f32(self.weights), &mut g, geometry, self.lambda);
        bufs.put_f32(self.grads, g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gradient_is_the_penaltys_by_finite_differences() {
        // Two rows of three from offset 1; a third row all zero.
        let w = [9.0, 3.0, 0.0, 4.0, -1.0, 2.0, 2.0, 0.0, 0.0, 0.0];
        let mut g = [0.0f32; 10];
        group_lasso_cpu(&w, &mut g, (1, 3, 3), 0.5);
        // By hand: row 0 has norm 5, so 0.5·(3, 0, 4)/5; row 1 norm 3, 0.5·(−1, 2, 2)/3.
        let want = [
            0.0,
            0.3,
            0.0,
            0.4,
            -0.5 / 3.0,
            1.0 / 3.0,
            1.0 / 3.0,
            0.0,
            0.0,
            0.0,
        ];
        for (a, b) in g.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{g:?}");
        }
        // And the penalty's central differences agree.
        let penalty = |w: &[f64]| {
            0.5 * ((w[1] * w[1] + w[2] * w[2] + w[3] * w[3]).sqrt()
                + (w[4] * w[4] + w[5] * w[5] + w[6] * w[6]).sqrt())
        };
        let w64: Vec<f64> = w.iter().map(|v| f64::from(*v)).collect();
        for i in 1..7 {
            let (mut up, mut down) = (w64.clone(), w64.clone());
            up[i] += 1e-6;
            down[i] -= 1e-6;
            let fd = (penalty(&up) - penalty(&down)) / 2e-6;
            assert!(
                (fd - f64::from(g[i])).abs() < 1e-5,
                "weight {i}: {fd} against {}",
                g[i]
            );
        }
    }
}
