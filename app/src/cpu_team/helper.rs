//! The helper's side of the CPU team, run in a Web Worker (`worker.js`) by the app's own wasm:
//! it builds one replica from the leader's first message, then answers each step's share with
//! its loss, accuracy and gradient.

use std::cell::RefCell;

use engine::data::Dataset;
use engine::train::{HiddenShard, ShareGradient, TrainConfig, Trainer};
use js_sys::{Float32Array, Object, Uint32Array};
use wasm_bindgen::prelude::*;

use super::error::ReplicaError;
use super::wire::{f32s_into, field, number, set, u32s_into};

thread_local! {
    /// This worker's replica and the share result it reuses step after step.
    static REPLICA: RefCell<Option<Replica>> = const { RefCell::new(None) };
}

/// This worker's replica, the share result and the weights it reuses step after step.
struct Replica {
    trainer: Trainer,
    part: ShareGradient,
    params: Vec<f32>,
    /// The batch's rows and the summed logits of a step split by hidden units, reused.
    rows: Vec<u32>,
    logits: Vec<f32>,
    /// Where its weights sit in the model's, in a team split by hidden units.
    hidden: Option<HiddenShard>,
}

/// Handles one message from the leader (`worker.js` passes each on): `init` builds the replica,
/// `step` computes a share's gradient. Errors come back as the rejection's message.
#[wasm_bindgen]
pub async fn cpu_team_helper(message: JsValue) -> Result<JsValue, JsValue> {
    let kind = field(&message, "kind").as_string().unwrap_or_default();
    let reply = Object::new();
    match kind.as_str() {
        "init" => {
            let trainer = replica(&message)
                .await
                .map_err(|e| JsValue::from_str(&e.to_string()))?;
            let hidden = match field(&message, "hidden").as_string() {
                Some(json) => Some(
                    serde_json::from_str(&json)
                        .map_err(|e| JsValue::from_str(&format!("the shard does not read: {e}")))?,
                ),
                None => None,
            };
            let replica = Replica {
                trainer,
                part: ShareGradient::default(),
                params: Vec::new(),
                rows: Vec::new(),
                logits: Vec::new(),
                hidden,
            };
            REPLICA.with(|r| *r.borrow_mut() = Some(replica));
            set(&reply, "ready", &JsValue::TRUE);
        }
        "step" => {
            // Taken out while it runs, so no borrow is held across an await.
            let mut r = REPLICA
                .with(|r| r.borrow_mut().take())
                .ok_or_else(|| JsValue::from_str("the helper has no replica yet"))?;
            let params = Float32Array::from(field(&message, "params"));
            f32s_into(&params, &mut r.params);
            let rows = Uint32Array::from(field(&message, "rows")).to_vec();
            let step = number(&message, "step") as u64;
            let outcome = match r.trainer.set_params(&r.params) {
                Ok(()) => r.trainer.share_gradient(&rows, step, &mut r.part).await,
                Err(e) => Err(e),
            };
            if outcome.is_ok() {
                set(&reply, "loss", &r.part.loss.into());
                set(&reply, "accuracy", &r.part.accuracy.into());
                // Back in the array the weights came in (transferred, not copied).
                params.copy_from(&r.part.grads);
                set(&reply, "grads", &params);
            }
            REPLICA.with(|slot| *slot.borrow_mut() = Some(r));
            outcome.map_err(|e| JsValue::from_str(&e.to_string()))?;
        }
        "outputs" | "finish" | "weights-out" | "weights-in" => {
            let mut r = REPLICA
                .with(|r| r.borrow_mut().take())
                .ok_or_else(|| JsValue::from_str("the helper has no replica yet"))?;
            let outcome = hidden_op(&mut r, &kind, &message).await;
            REPLICA.with(|slot| *slot.borrow_mut() = Some(r));
            return outcome.map_err(|e| JsValue::from_str(&e.to_string()));
        }
        other => return Err(JsValue::from_str(&format!("unknown message '{other}'"))),
    }
    Ok(reply.into())
}

/// The replica an `init` message describes: its config (a share of the batch) and the data.
async fn replica(message: &JsValue) -> Result<Trainer, ReplicaError> {
    let config: TrainConfig = serde_json::from_str(&field(message, "config").as_string().unwrap_or_default())
        .map_err(ReplicaError::Settings)?;
    let data = Dataset {
        x: Float32Array::from(field(message, "x")).to_vec(),
        y: Uint32Array::from(field(message, "y")).to_vec(),
        targets: Float32Array::from(field(message, "targets")).to_vec(),
        dim: number(message, "dim") as usize,
        classes: number(message, "classes") as usize,
    };
    Ok(Trainer::with_data(config, data, None, 1).await?)
}

/// A team split by hidden units (`hidden.rs`): `outputs` writes this shard's part of the logits
/// for the batch's rows into `values` (the shared buffer) and answers how many there are,
/// `finish` takes their sum from the first `count` of `values` and ends the step (its loss and
/// accuracy back), `weights-out` answers this shard's weights and `weights-in` sets them.
async fn hidden_op(r: &mut Replica, kind: &str, message: &JsValue) -> Result<JsValue, ReplicaError> {
    let shard = r.hidden.clone().ok_or(ReplicaError::NoShard)?;
    let step = number(message, "step") as u64;
    let t = &mut r.trainer;
    match kind {
        "outputs" => {
            u32s_into(&Uint32Array::from(field(message, "rows")), &mut r.rows);
            t.shard_outputs(&r.rows, &mut r.params).await?;
            let values = Float32Array::from(field(message, "values"));
            if r.params.len() > values.length() as usize {
                return Err(ReplicaError::LogitsTooBig);
            }
            values.subarray(0, r.params.len() as u32).copy_from(&r.params);
            Ok(JsValue::from(r.params.len() as u32))
        }
        "finish" => {
            let count = number(message, "count") as u32;
            let values = Float32Array::from(field(message, "values"));
            f32s_into(&values.subarray(0, count), &mut r.logits);
            let m = t.shard_finish(&r.logits, &shard, step).await?;
            let reply = Object::new();
            set(&reply, "loss", &m.loss.into());
            set(&reply, "accuracy", &m.accuracy.into());
            Ok(reply.into())
        }
        "weights-out" => {
            t.params_into(&mut r.params).await?;
            Ok(Float32Array::from(r.params.as_slice()).into())
        }
        _ => {
            let values = Float32Array::from(field(message, "params"));
            f32s_into(&values.subarray(0, shard.param_count() as u32), &mut r.params);
            t.set_params(&r.params)?;
            Ok(JsValue::UNDEFINED)
        }
    }
}
