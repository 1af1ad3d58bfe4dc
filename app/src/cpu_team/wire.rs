//! The messages between the leader and its helpers: plain JavaScript objects with typed arrays,
//! read and written by name.

use js_sys::{Object, Reflect};
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
