//! The messages between the leader and its helpers: plain JavaScript objects with typed arrays,
//! read and written by name.

use js_sys::{Float32Array, Object, Reflect, Uint32Array};
use wasm_bindgen::JsValue;

/// `object[name]` (undefined when absent).
pub fn field(object: &JsValue, name: &str) -> JsValue {
    Reflect::get(object, &name.into()).unwrap_or(JsValue::UNDEFINED)
}

/// `object[name]` as a number (NaN when absent or not a number).
pub fn number(object: &JsValue, name: &str) -> f64 {
    field(object, name).as_f64().unwrap_or(f64::NAN)
}

/// `object[name] = value`.
pub fn set(object: &Object, name: &str, value: &JsValue) {
    let _ = Reflect::set(object, &name.into(), value);
}

/// The whole of `array` into `out`, which keeps its allocation from one step to the next.
pub fn f32s_into(array: &Float32Array, out: &mut Vec<f32>) {
    out.resize(array.length() as usize, 0.0);
    array.copy_to(out);
}

/// The whole of `array` into `out`, which keeps its allocation from one step to the next.
pub fn u32s_into(array: &Uint32Array, out: &mut Vec<u32>) {
    out.resize(array.length() as usize, 0);
    array.copy_to(out);
}
