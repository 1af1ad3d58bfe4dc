//! The training lab's front end (leptos, client-side rendered). It shows and drives the engine;
//! all the math lives in `engine`.

mod author;
mod banner;
mod browser;
mod chart_text;
mod controls;
mod cpu_team;
mod draw;
mod embed;
mod error;
mod fetch;
mod figures;
mod frame;
mod gpu;
mod gpu_tiles;
mod home;
mod job;
mod layout;
mod lessons;
mod recorded;
mod session;
mod share;

// Every lab of the registry: its folder `labs/<id>/` as module `<id>`, and `mount_lab` (build.rs).
include!(concat!(env!("OUT_DIR"), "/labs.rs"));

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
    mount_page(path.rsplit('/').next().unwrap_or_default());
    // Charts still empty once the page is up say what will appear there.
    wasm_bindgen_futures::spawn_local(draw::placeholders());
}

/// Mounts the page at the path's last part: `/labs`, or the lab the registry routes there (the
/// playground at the site's root, whatever sub-path that is). An embed names its lab (`lab=`,
/// from embed.js): a name the registry does not know gets a page that says so.
fn mount_page(last: &str) {
    use leptos::mount::mount_to_body;
    if last == "labs" {
        return mount_to_body(home::HomePage);
    }
    if last == "author" {
        return mount_to_body(author::AuthorPage);
    }
    if let Some(asked) = embed::asked_lab() {
        if lab_state::registry::by_id(&asked).is_none() {
            return mount_to_body(move || home::NoSuchLab(home::NoSuchLabProps { name: asked }));
        }
    }
    let lab = lab_state::registry::by_route(last).map_or("playground", |l| l.id.as_str());
    if !mount_lab(lab) {
        mount_lab("playground");
    }
}
