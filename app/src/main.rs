//! The training lab's front end (leptos, client-side rendered). It shows and drives the engine;
//! all the math lives in `engine`.

mod banner;
mod bench;
mod browser;
mod cluster;
mod controls;
mod cpu_team;
mod draw;
mod embed;
mod fetch;
mod figures;
mod frame;
mod gpu;
mod gpu_tiles;
mod home;
mod job;
mod landscape;
mod layout;
mod lessons;
mod optimizers;
mod parallelism;
mod playground;
mod precision;
mod recorded;
mod scaling;
mod session;
mod share;
mod vision;

fn main() {
    console_error_panic_hook::set_once();
    // In a CPU-team helper (a Web Worker) the module only answers messages (`cpu_team`).
    if web_sys::window().is_none() {
        return;
    }
    let path = web_sys::window()
        .and_then(|w| w.location().pathname().ok())
        .unwrap_or_default();
    let path = path.trim_end_matches('/');
    embed::install();
    figures::install();
    // Every lab can lose its GPU on purpose (the playground replaces it with its own).
    gpu::install_loss_hook();
    // The wasm memory, for soak scripts that watch it grow (`e2e/soak.mjs`).
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &"__labWasmMemory".into(), &wasm_bindgen::memory());
    }
    if path.ends_with("/bench") {
        leptos::mount::mount_to_body(bench::BenchPage);
    } else if path.ends_with("/landscape") {
        leptos::mount::mount_to_body(landscape::LandscapePage);
    } else if path.ends_with("/scaling") {
        leptos::mount::mount_to_body(scaling::ScalingPage);
    } else if path.ends_with("/cluster") {
        leptos::mount::mount_to_body(cluster::ClusterPage);
    } else if path.ends_with("/labs") {
        leptos::mount::mount_to_body(home::HomePage);
    } else if path.ends_with("/vision") {
        leptos::mount::mount_to_body(vision::VisionPage);
    } else if path.ends_with("/precision") {
        leptos::mount::mount_to_body(precision::PrecisionPage);
    } else if path.ends_with("/parallelism") {
        leptos::mount::mount_to_body(parallelism::ParallelismPage);
    } else if path.ends_with("/optimizers") {
        leptos::mount::mount_to_body(optimizers::OptimizersPage);
    } else {
        leptos::mount::mount_to_body(playground::App);
    }
    // Charts still empty once the page is up say what will appear there.
    wasm_bindgen_futures::spawn_local(draw::placeholders());
}
