//! The training lab's front end (leptos, client-side rendered). It shows and drives the engine;
//! all the math lives in `engine`.

mod bench;
mod browser;
mod draw;
mod fetch;
mod frame;
mod lab;
mod view;

fn main() {
    console_error_panic_hook::set_once();
    let path = web_sys::window()
        .and_then(|w| w.location().pathname().ok())
        .unwrap_or_default();
    if path.trim_end_matches('/').ends_with("/bench") {
        leptos::mount::mount_to_body(bench::BenchPage);
    } else {
        leptos::mount::mount_to_body(view::App);
    }
}
