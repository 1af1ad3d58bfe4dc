//! Token and position embeddings (`ops::embedding`): the kernels against their CPU twins on the
//! GPU, a small case by hand, and the sinusoidal positions by their formula.

use engine::kernel::{BufferTable, Elem, Kernel, StepScalars};
use engine::ops::embedding::{
    embed_cpu, embed_positions_grad_cpu, embed_table_grad_cpu, sinusoidal, Embed, EmbedGeom,
    EmbedPositionsGrad, EmbedTableGrad,
};

use crate::common::{assert_close, gpu, random, run_multi, Init};

#[test]
fn embeddings_match_their_twins_on_the_gpu() {
    let ctx = gpu();
    for (tokens, seq, width, vocab) in [(1, 1, 1, 1), (12, 3, 5, 7), (130, 13, 16, 97)] {
        for accumulate in [false, true] {
            // The table and the positions in one buffer after two other values, as a model's
            // parameters hold them; their gradients alike.
            let (table_off, pos_off) = (2, 2 + vocab * width);
            let n = pos_off + seq * width;
            let g = EmbedGeom {
                tokens,
                seq,
                width,
                vocab,
                table_off,
                pos_off,
            };
            let mut t = BufferTable::default();
            let ids = t.add("ids", Elem::U32, tokens);
            let params = t.add("params", Elem::F32, n);
            let x = t.add("x", Elem::F32, tokens * width);
            let grads = t.add("grads", Elem::F32, n);
            let inits = vec![
                Init::U32((0..tokens).map(|n| ((n * 7 + 3) % vocab) as u32).collect()),
                Init::F32(random(n, 1)),
                Init::F32(vec![0.0; tokens * width]),
                Init::F32(random(n, 3)),
            ];
            // The forward's output stands in for the gradient the backward kernels read.
            let kernels = || -> Vec<Box<dyn Kernel>> {
                vec![
                    Box::new(Embed {
                        g,
                        ids,
                        table: params,
                        positions: params,
                        x,
                    }),
                    Box::new(EmbedTableGrad {
                        g,
                        ids,
                        d_x: x,
                        d_table: grads,
                        accumulate,
                    }),
                    Box::new(EmbedPositionsGrad {
                        g,
                        d_x: x,
                        d_positions: grads,
                    }),
                ]
            };
            let got = run_multi(&ctx, t, inits, kernels, StepScalars::default(), &[x, grads]);
            for (name, (gpu, cpu)) in ["x", "grads"].iter().zip(&got) {
                assert_close(&format!("{g:?} {accumulate} {name}"), gpu, cpu, 1e-5, 1e-5);
            }
            // The two values before the table are no one's: left as they were.
            assert_eq!(&got[1].1[..2], &random(n, 3)[..2]);
        }
    }
}

#[test]
fn embeddings_by_hand() {
    // Vocabulary 3, width 2, sequences of 2: ids (2, 0 | 2, 1).
    let g = EmbedGeom {
        tokens: 4,
        seq: 2,
        width: 2,
        vocab: 3,
        table_off: 0,
        pos_off: 0,
    };
    let ids = [2, 0, 2, 1];
    let table = [0.0, 1.0, 10.0, 11.0, 20.0, 21.0];
    let positions = [0.5, 0.25, 0.125, 0.0625];
    let mut x = vec![0.0; 8];
    embed_cpu(&g, &ids, &table, &positions, &mut x);
    assert_eq!(x, [20.5, 21.25, 0.125, 1.0625, 20.5, 21.25, 10.125, 11.0625]);
    // Gradient rows 1, 2, 3, 4 (each [r, 10 r]): token 2 gets rows 1 and 3, token 0 row 2, token 1
    // row 4; position 0 rows 1 and 3, position 1 rows 2 and 4. Accumulating adds to the table's 1s.
    let d_x = [1.0, 10.0, 2.0, 20.0, 3.0, 30.0, 4.0, 40.0];
    let (mut d_table, mut d_positions) = (vec![1.0; 6], vec![0.0; 4]);
    embed_table_grad_cpu(&g, (&ids, &d_x), true, &mut d_table);
    embed_positions_grad_cpu(&g, &d_x, &mut d_positions);
    assert_eq!(d_table, [3.0, 21.0, 5.0, 41.0, 5.0, 41.0]);
    assert_eq!(d_positions, [4.0, 40.0, 6.0, 60.0]);
}

#[test]
fn sinusoidal_positions_by_their_formula() {
    let pe = sinusoidal(2, 4);
    // t = 0: sin 0, cos 0 in each pair; t = 1: angle 1 for the first pair, 1/100 for the second.
    let want = [
        0.0,
        1.0,
        0.0,
        1.0,
        1f32.sin(),
        1f32.cos(),
        0.01f32.sin(),
        0.01f32.cos(),
    ];
    assert_close("pe", &pe, &want, 1e-7, 0.0);
}
