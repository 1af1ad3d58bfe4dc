//! The team's shared-memory link, where the page is cross-origin isolated (it may then make a
//! `SharedArrayBuffer`): each helper gets one buffer holding a few control words, its share's
//! rows, the weights going out and the gradient coming back. A step is then a write into the
//! buffer and an atomic store, and the helper, spinning or waiting on the control word
//! (`Atomics.wait`, `worker.js`), starts at once, where a message would queue behind the
//! worker's event loop both ways. Messages (`Team`'s other link) remain for pages that are not
//! isolated; both give the same step.
//!
//! Layout, in bytes: control words (i32) at 0, loss and accuracy (f32) at 32, the weights (the
//! gradient after the share) at `HEADER`, then the share's rows (u32).

use js_sys::{Atomics, Float32Array, Int32Array, Object, SharedArrayBuffer, Uint32Array};
use wasm_bindgen::JsValue;

use engine::train::ShareGradient;

use super::wire::{field, set};
use crate::frame::now_ms;

/// Control words: GO, the share the leader last posted (a counter); DONE, the share the helper
/// last finished; FAILED, 1 when that share failed (its reason follows as a message); STEP, the
/// run's step number for the share.
const GO: u32 = 0;
const DONE: u32 = 1;
const FAILED: u32 = 2;
const STEP: u32 = 3;
/// Bytes before the weights: 8 control words, then loss and accuracy.
const HEADER: u32 = 64;
const RESULT: u32 = 32;

/// The leader's spin on DONE before it gives the page a frame and looks again: a share
/// normally ends about when the leader's own does, and a frame (16 ms) would cost more than a
/// small model's whole step.
const SPIN_MS: f64 = 250.0;

/// Whether this page may share memory with its workers.
pub fn available() -> bool {
    field(&js_sys::global(), "crossOriginIsolated").as_bool() == Some(true)
}

/// One helper's buffer, seen from the leader.
pub struct SharedLink {
    buffer: SharedArrayBuffer,
    control: Int32Array,
    result: Float32Array,
    values: Float32Array,
    rows: Uint32Array,
    /// The share last posted (GO).
    posted: i32,
}

impl SharedLink {
    /// A buffer for `params` weights and shares of `rows` rows.
    pub fn new(params: usize, rows: usize) -> SharedLink {
        let bytes = HEADER + 4 * (params + rows) as u32;
        let buffer = SharedArrayBuffer::new(bytes);
        let control = Int32Array::new_with_byte_offset_and_length(&buffer, 0, 8);
        let result = Float32Array::new_with_byte_offset_and_length(&buffer, RESULT, 2);
        let values = Float32Array::new_with_byte_offset_and_length(&buffer, HEADER, params as u32);
        let rows =
            Uint32Array::new_with_byte_offset_and_length(&buffer, HEADER + 4 * params as u32, rows as u32);
        SharedLink {
            buffer,
            control,
            result,
            values,
            rows,
            posted: 0,
        }
    }

    /// What the helper's `init` message carries so that it serves shares from this buffer.
    pub fn describe(&self) -> JsValue {
        let d = Object::new();
        set(&d, "buffer", &self.buffer);
        set(&d, "params", &self.values.length().into());
        set(&d, "rows", &self.rows.length().into());
        d.into()
    }

    /// Posts a share: the weights, its rows and the step, then GO (after the writes, so the
    /// helper that sees GO sees them).
    pub fn post(&mut self, params: &[f32], rows: &[u32], step: u64) -> Result<(), String> {
        if params.len() != self.values.length() as usize || rows.len() != self.rows.length() as usize {
            return Err(format!(
                "a share of {} weights and {} rows does not fit the shared buffer",
                params.len(),
                rows.len()
            ));
        }
        self.values.copy_from(params);
        self.rows.copy_from(rows);
        self.posted = self.posted.wrapping_add(1).max(1);
        let word = |slot, v| Atomics::store(&self.control, slot, v).map(|_| ());
        word(STEP, step as i32)
            .and_then(|_| word(GO, self.posted))
            .and_then(|_| Atomics::notify(&self.control, GO).map(|_| ()))
            .map_err(|e| format!("{e:?}"))
    }

    /// Spins up to `SPIN_MS` for the posted share: Some(true) done, Some(false) failed (the
    /// helper sends why as a message), None not yet (the caller lets the page paint, looks for
    /// a dead helper's error, and polls again).
    pub fn poll(&self) -> Result<Option<bool>, String> {
        let load = |slot| Atomics::load(&self.control, slot).map_err(|e| format!("{e:?}"));
        let t0 = now_ms();
        while now_ms() - t0 < SPIN_MS {
            if load(DONE)? == self.posted {
                return Ok(Some(load(FAILED)? == 0));
            }
        }
        Ok(None)
    }

    /// The finished share's loss, accuracy and gradient into `part`.
    pub fn read(&self, part: &mut ShareGradient) {
        part.loss = self.result.get_index(0);
        part.accuracy = self.result.get_index(1);
        part.grads.resize(self.values.length() as usize, 0.0);
        self.values.copy_to(&mut part.grads);
    }
}
