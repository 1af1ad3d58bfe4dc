//! The front end's display arithmetic that needs no browser. It lives apart from `app` so that its
//! tests build natively in seconds: the app's own native build recompiles the whole web stack.

pub mod chart_summary;
pub mod embed_code;
pub mod shading;
pub mod ticks;
pub mod time_left;
