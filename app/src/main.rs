//! The training lab's front end (leptos, client-side rendered). It shows and drives the engine;
//! all the math lives in `engine`.

mod draw;
mod frame;
mod lab;
mod view;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(view::App);
}
