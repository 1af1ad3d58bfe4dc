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

use super::wire::{f32s_into, field, set};
use super::HelperError;
use crate::frame::now_ms;

/// Control words: GO, the share the leader last posted (a counter); DONE, the share the helper
/// last finished; FAILED, 1 when that share failed (its reason follows as a message); STEP, the
/// run's step number for the share. A team split by hidden units (`hidden.rs`) also uses PART
/// (the helper's part of the logits is in `values` for this GO), SUM (the leader's sum is) and OP
/// (what GO asks: a step, or the helper's weights out or in).
const GO: u32 = 0;
pub const DONE: u32 = 1;
const FAILED: u32 = 2;
const STEP: u32 = 3;
pub const PART: u32 = 4;
const SUM: u32 = 5;
const OP: u32 = 6;
/// OP's values (as `worker.js` reads them).
pub const OP_STEP: i32 = 1;
pub const OP_WEIGHTS_OUT: i32 = 2;
pub const OP_WEIGHTS_IN: i32 = 3;
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
    pub fn post(&mut self, params: &[f32], rows: &[u32], step: u64) -> Result<(), HelperError> {
        if params.len() != self.values.length() as usize || rows.len() != self.rows.length() as usize {
            return Err(HelperError::ShareTooBig {
                params: params.len(),
                rows: rows.len(),
            });
        }
        self.values.copy_from(params);
        self.rows.copy_from(rows);
        self.posted = self.posted.wrapping_add(1).max(1);
        let word = |slot, v| Atomics::store(&self.control, slot, v).map(|_| ());
        word(STEP, step as i32)
            .and_then(|_| word(GO, self.posted))
            .and_then(|_| Atomics::notify(&self.control, GO).map(|_| ()))
            .map_err(HelperError::browser)
    }

    /// Spins up to `SPIN_MS` for control word `slot` (DONE, or PART mid-step) to reach the posted
    /// share: Some(true) reached, Some(false) failed (the helper sends why as a message; a
    /// helper that finished before reaching PART failed, and so did one whose last operation
    /// failed: a team split by hidden units does not wait for each step's end, `hidden.rs`),
    /// None not yet (the caller lets the page paint, looks for a dead helper's error, and polls
    /// again).
    pub fn poll_for(&self, slot: u32) -> Result<Option<bool>, HelperError> {
        let load = |slot| Atomics::load(&self.control, slot).map_err(HelperError::browser);
        let t0 = now_ms();
        while now_ms() - t0 < SPIN_MS {
            if load(slot)? == self.posted {
                return Ok(Some(load(FAILED)? == 0));
            }
            if slot != DONE && load(DONE)? == self.posted {
                return Ok(Some(false));
            }
        }
        Ok(None)
    }

    /// Posts operation `op` of a team split by hidden units: with OP_STEP the batch's rows go
    /// first (all of them: every shard reads the whole batch), with OP_WEIGHTS_IN the helper's
    /// weights (`weights`, its shard's).
    pub fn post_op(&mut self, op: i32, rows: &[u32], weights: &[f32], step: u64) -> Result<(), HelperError> {
        if rows.len() > self.rows.length() as usize || weights.len() > self.values.length() as usize {
            return Err(HelperError::StepTooBig);
        }
        if !rows.is_empty() {
            self.rows.copy_from(rows);
        }
        if !weights.is_empty() {
            self.values.subarray(0, weights.len() as u32).copy_from(weights);
        }
        self.posted = self.posted.wrapping_add(1).max(1);
        let word = |slot, v| Atomics::store(&self.control, slot, v).map(|_| ());
        word(OP, op)
            .and_then(|_| word(STEP, step as i32))
            .and_then(|_| word(GO, self.posted))
            .and_then(|_| Atomics::notify(&self.control, GO).map(|_| ()))
            .map_err(HelperError::browser)
    }

    /// The first `len` values the helper left in the buffer (its part of the logits, or its
    /// weights), into `out`.
    pub fn read_values(&self, len: usize, out: &mut Vec<f32>) {
        f32s_into(&self.values.subarray(0, len as u32), out);
    }

    /// Hands the helper the summed logits of the posted step.
    pub fn post_sum(&self, logits: &[f32]) -> Result<(), HelperError> {
        self.values.subarray(0, logits.len() as u32).copy_from(logits);
        Atomics::store(&self.control, SUM, self.posted)
            .and_then(|_| Atomics::notify(&self.control, SUM))
            .map(|_| ())
            .map_err(HelperError::browser)
    }

    /// The finished share's loss, accuracy and gradient into `part`.
    pub fn read(&self, part: &mut ShareGradient) {
        part.loss = self.result.get_index(0);
        part.accuracy = self.result.get_index(1);
        f32s_into(&self.values, &mut part.grads);
    }
}
