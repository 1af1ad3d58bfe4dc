//! Browser timing: wait for the next animation frame (so the page paints and answers clicks
//! between training chunks) and read a millisecond clock.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Resolves at the next `requestAnimationFrame`.
pub async fn next_frame() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let window = web_sys::window().expect("a window");
        let _ = window.request_animation_frame(&resolve);
    });
    let _ = JsFuture::from(promise).await;
}

pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console)]
    fn warn(s: &str);
}

pub fn log_warning(msg: &str) {
    warn(msg);
}
