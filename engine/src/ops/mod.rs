//! One op per file: its GPU kernel description and its plain-Rust CPU twin.

pub mod activation;
pub mod adam;
pub mod adaptive;
pub mod add;
pub mod batch_mean;
pub mod bias;
pub mod conv2d;
pub mod dropout;
pub mod finite;
pub mod fused;
pub mod gather;
pub mod gemm_cpu;
pub mod group_lasso;
pub mod lars;
pub mod loss_head;
pub mod mask;
pub mod matmul;
pub mod mse;
pub mod norm;
pub mod pool;
pub mod quantize;
pub mod regularize;
pub mod sgd;
pub mod softmax_xent;
pub mod spmm;
pub mod weight_offset;
