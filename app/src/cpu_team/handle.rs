//! The leader's handle on one helper (a Web Worker, `worker.js`): starting it, posting a share,
//! and waiting for its answer, through messages or the shared buffer (`shared.rs`).

use futures::channel::mpsc::{unbounded, UnboundedReceiver};
use futures::StreamExt;
use js_sys::{Array, Float32Array, Object, Uint32Array};
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

use engine::train::ShareGradient;

use super::shared::{self, SharedLink};
use super::wire::{f32s_into, field, number, set};
use super::HelperError;

/// How long a helper may take over one share before the team gives up on it (far beyond any
/// share of the labs' models; a worker that died without a word never answers).
const SILENT_MS: f64 = 60_000.0;

/// One Web Worker and the replies it sends, in order.
pub(super) struct Helper {
    pub(super) worker: Worker,
    /// The array that carries the weights out and the gradient back, moved to the helper and
    /// back every step so that no step allocates one (fresh 400 kB arrays each step cost more
    /// in allocation and garbage collection than the copies themselves).
    pub(super) carrier: Option<Float32Array>,
    /// The shared buffer its shares go through, in a cross-origin isolated page (else messages).
    pub(super) link: Option<SharedLink>,
    /// Its replies: in shared memory only the first (ready) and errors.
    pub(super) replies: UnboundedReceiver<Result<JsValue, HelperError>>,
    // Kept alive as long as the worker may call them.
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl Drop for Helper {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

impl Helper {
    pub(super) fn spawn(script: &str) -> Result<Helper, HelperError> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(script, &options)
            .map_err(|e| HelperError::NoWorker(format!("{e:?}")))?;
        let (tx, replies) = unbounded();
        let on_message = {
            let tx = tx.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                let data = e.data();
                let error = field(&data, "error");
                let _ = tx.unbounded_send(match error.as_string() {
                    Some(why) => Err(HelperError::Said(why)),
                    None => Ok(data),
                });
            })
        };
        let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
            let _ = tx.unbounded_send(Err(HelperError::Said(e.message())));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Helper {
            worker,
            carrier: None,
            link: None,
            replies,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Sends the helper a share: the weights, its rows and the step number.
    pub(super) fn post(&mut self, params: &[f32], rows: &[u32], step: u64) -> Result<(), HelperError> {
        if let Some(link) = &mut self.link {
            return link.post(params, rows, step);
        }
        let message = Object::new();
        // Its own copy of the weights, transferred (moved) to it.
        let weights = match self.carrier.take() {
            Some(c) if c.length() as usize == params.len() => c,
            _ => Float32Array::new_with_length(params.len() as u32),
        };
        weights.copy_from(params);
        set(&message, "kind", &"step".into());
        set(&message, "params", &weights);
        set(&message, "rows", &Uint32Array::from(rows));
        set(&message, "step", &(step as f64).into());
        self.worker
            .post_message_with_transfer(&message, &Array::of1(&weights.buffer()))
            .map_err(HelperError::browser)
    }

    /// The posted share's loss, accuracy and gradient, into `part`.
    pub(super) async fn gradient(&mut self, part: &mut ShareGradient) -> Result<(), HelperError> {
        if self.link.is_some() {
            return self.shared_gradient(part).await;
        }
        let reply = self.reply().await?;
        part.loss = number(&reply, "loss") as f32;
        part.accuracy = number(&reply, "accuracy") as f32;
        let grads = Float32Array::from(field(&reply, "grads"));
        f32s_into(&grads, &mut part.grads);
        self.carrier = Some(grads);
        Ok(())
    }

    /// `gradient` through shared memory: spins on the helper's DONE word, between spins letting
    /// the page paint and taking any message, which now can only say the helper failed. A helper
    /// silent for `SILENT_MS` (its worker gone without a word) fails the share.
    pub(super) async fn shared_gradient(&mut self, part: &mut ShareGradient) -> Result<(), HelperError> {
        self.shared_wait(shared::DONE).await?;
        self.link().read(part);
        Ok(())
    }

    pub(super) fn link(&self) -> &SharedLink {
        self.link.as_ref().expect("a shared link")
    }

    pub(super) fn link_mut(&mut self) -> &mut SharedLink {
        self.link.as_mut().expect("a shared link")
    }

    /// Waits for the helper's control word `slot` to reach the posted share (see
    /// `shared_gradient`).
    pub(super) async fn shared_wait(&mut self, slot: u32) -> Result<(), HelperError> {
        let since = crate::frame::now_ms();
        loop {
            match self.link().poll_for(slot)? {
                Some(true) => return Ok(()),
                Some(false) => return Err(self.reply().await.err().unwrap_or(HelperError::ShareFailed)),
                None => crate::frame::next_frame().await,
            }
            if let Ok(message) = self.replies.try_recv() {
                return Err(message.err().unwrap_or(HelperError::Unexpected));
            }
            if crate::frame::now_ms() - since > SILENT_MS {
                return Err(HelperError::Silent(SILENT_MS / 1000.0));
            }
        }
    }

    /// The helper's next reply, or why it failed.
    pub(super) async fn reply(&mut self) -> Result<JsValue, HelperError> {
        self.replies.next().await.unwrap_or(Err(HelperError::Gone))
    }
}
