//! The product kernels' tile shapes for this browser's GPU: timed once per adapter
//! (`engine::autotune::autotune`, small, medium and large products apart) and remembered in the browser
//! (`localStorage`), so later visits start on the faster tiles at once; a real GPU also times the
//! caps on the convolutions' weight gradient chunks. An emulated GPU
//! (SwiftShader, lavapipe: no real GPU) keeps 64 × 64 tiles untimed: they were the faster there
//! (or within 5 %) in every measurement (README, "Tile shapes per adapter"), and timing costs
//! seconds of compiles on such a device. `/bench` can time any device again (`tiles=time`) or
//! force a shape.

use std::cell::RefCell;
use std::rc::Rc;

use engine::autotune::{autotune, Tuning};
use engine::gpu::GpuContext;
use engine::tiles::TilePlan;

use crate::frame::now_ms;

/// The storage key for this adapter's choice (the version changes when the candidates do: v4
/// added the convolutions' chunks, v5 their cap of 512, v6 their narrow tiles).
fn key(ctx: &GpuContext) -> String {
    format!("lab-tiles-v6:{}", ctx.adapter.label())
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The choice remembered for this adapter, if any (and still a candidate).
fn remembered(ctx: &GpuContext) -> Option<TilePlan> {
    TilePlan::parse(&storage()?.get_item(&key(ctx)).ok()??)
}

thread_local! {
    /// How the last context's tiles were chosen, in words (`/bench` shows it).
    static HOW: RefCell<String> = const { RefCell::new(String::new()) };
    /// What the autotune timed, where it timed in this visit (`/hardware` shows it).
    static LAST: RefCell<Option<Tuning>> = const { RefCell::new(None) };
}

/// What the autotune timed in this visit, if it timed.
pub fn last_tuning() -> Option<Tuning> {
    LAST.with(|l| l.borrow().clone())
}

/// How the last context's tiles were chosen: "remembered for this GPU", the timings, …
pub fn how() -> String {
    HOW.with(|h| h.borrow().clone())
}

fn say(how: String) {
    HOW.with(|h| *h.borrow_mut() = how);
}

/// Sets the tiles a new context's kernels use: remembered, or timed now on a real GPU (three
/// compiles and a few dozen short passes, once per browser), or 64 × 64 on an emulated one.
pub async fn settle(ctx: &Rc<GpuContext>) {
    if let Some(t) = remembered(ctx) {
        ctx.tiles.set(t);
        say("remembered for this GPU".into());
    } else if ctx.emulated() && ctx.fit().subgroups {
        say("an emulated GPU: 64×64, untimed; dense products as quads of 4 lanes".into());
    } else if ctx.emulated() {
        say("an emulated GPU: 64×64, untimed".into());
    } else if let Err(e) = tune(ctx).await {
        say(format!("timing failed ({e}): 64×64"));
    }
}

/// Sets `tiles` on the context, as a page's setting forces it.
pub fn force(ctx: &GpuContext, tiles: TilePlan) {
    ctx.tiles.set(tiles);
    say(format!("set by the page: tiles={}", tiles.code()));
}

/// Times the candidates on this device now, keeps the faster and remembers it.
pub async fn tune(ctx: &Rc<GpuContext>) -> Result<Tuning, engine::error::Error> {
    let tuning = autotune(ctx, &now_ms).await?;
    if let Some(s) = storage() {
        // A browser refusing storage (private mode, full) only costs the timing next visit.
        let _ = s.set_item(&key(ctx), &tuning.best.code());
    }
    say(format!("timed now: {}", tuning.summary()));
    LAST.with(|l| *l.borrow_mut() = Some(tuning.clone()));
    Ok(tuning)
}
