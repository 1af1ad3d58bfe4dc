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

/// Gives the page a frame once about 50 ms of work have passed since the last: the CPU path does
/// not yield on its own.
pub struct Pacer {
    last: std::cell::Cell<f64>,
}

impl Pacer {
    pub fn new() -> Self {
        Self {
            last: std::cell::Cell::new(now_ms()),
        }
    }

    /// After a chunk of work: a frame when one is due; whether to go on (not cancelled).
    pub async fn go_on(&self, cancel: &std::cell::Cell<bool>) -> bool {
        if now_ms() - self.last.get() > 50.0 {
            next_frame().await;
            self.last.set(now_ms());
        }
        !cancel.get()
    }
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

/// Training steps per second of wall time over about the last second: what a student sees
/// happen, frames and readbacks included (the time inside `train` alone overstates it).
#[derive(Default)]
pub struct RateMeter {
    /// (time in ms, step) at each chunk's end, the oldest first.
    marks: std::collections::VecDeque<(f64, u64)>,
}

impl RateMeter {
    /// Notes that the run reached `step` now; the rate so far, once two marks are apart.
    pub fn mark(&mut self, step: u64) -> Option<f64> {
        let now = now_ms();
        self.marks.push_back((now, step));
        while self.marks.len() > 2 && now - self.marks[1].0 > 1000.0 {
            self.marks.pop_front();
        }
        let (t0, s0) = *self.marks.front()?;
        (now - t0 > 50.0).then(|| (step - s0) as f64 * 1000.0 / (now - t0))
    }

    /// Forgets the marks (a pause: the gap is not training time).
    pub fn clear(&mut self) {
        self.marks.clear();
    }
}

/// Counts the frames the page paints while a job runs — its frame rate and the longest gap
/// between two frames, which is what a student feels as responsiveness.
pub struct FrameMeter {
    /// (frames, longest gap in ms, start, running)
    state: std::rc::Rc<std::cell::Cell<(usize, f64, f64, bool)>>,
}

impl FrameMeter {
    pub fn start() -> Self {
        let state = std::rc::Rc::new(std::cell::Cell::new((0usize, 0.0f64, now_ms(), true)));
        let meter = state.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let mut last = now_ms();
            while meter.get().3 {
                next_frame().await;
                let now = now_ms();
                let (n, longest, start, running) = meter.get();
                meter.set((n + 1, longest.max(now - last), start, running));
                last = now;
            }
        });
        Self { state }
    }

    /// Frames per second so far and the longest gap in milliseconds.
    pub fn read(&self) -> (f64, f64) {
        let (n, longest, start, _) = self.state.get();
        (n as f64 / ((now_ms() - start) / 1000.0).max(1e-3), longest)
    }
}

impl Drop for FrameMeter {
    fn drop(&mut self) {
        let (n, longest, start, _) = self.state.get();
        self.state.set((n, longest, start, false));
    }
}
