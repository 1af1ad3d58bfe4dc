//! The drawing pad: ink follows the mouse, releasing it sends the digit to the session to be
//! classified; below it, the class probabilities.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use leptos::prelude::*;

use engine::inspect::mnist_digit;

use super::model::Command;
use super::{View, PAD};
use crate::session::Mailbox;
use crate::share::hidden;

pub fn pad(
    v: View,
    session: Mailbox<Command>,
    class_names: impl Fn() -> &'static [&'static str; 10] + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let ink = Rc::new(RefCell::new(vec![0.0f32; PAD * PAD]));
    let drawing = Rc::new(Cell::new(false));
    let canvas = v.canvases.pad;
    let paint = {
        let ink = ink.clone();
        move |x: f64, y: f64| {
            let mut buf = ink.borrow_mut();
            let r = 10.0;
            for py in (y - r).max(0.0) as usize..((y + r) as usize).min(PAD) {
                for px in (x - r).max(0.0) as usize..((x + r) as usize).min(PAD) {
                    let d = ((px as f64 - x).powi(2) + (py as f64 - y).powi(2)).sqrt();
                    let v = (1.3 - d / r).clamp(0.0, 1.0) as f32;
                    let cell = &mut buf[py * PAD + px];
                    *cell = cell.max(v);
                }
            }
            if let Some(ctx) = canvas.get_untracked().and_then(|c| crate::draw::context(&c)) {
                ctx.set_fill_style_str("#111");
                ctx.begin_path();
                let _ = ctx.arc(x, y, r * 0.9, 0.0, std::f64::consts::TAU);
                ctx.fill();
            }
        }
    };
    let down = {
        let (drawing, paint) = (drawing.clone(), paint.clone());
        move |ev: leptos::ev::MouseEvent| {
            drawing.set(true);
            if let Some(c) = canvas.get_untracked() {
                let (x, y) = crate::browser::canvas_point(&c, &ev);
                paint(x, y);
            }
        }
    };
    let moved = {
        let drawing = drawing.clone();
        move |ev: leptos::ev::MouseEvent| {
            if let (true, Some(c)) = (drawing.get(), canvas.get_untracked()) {
                let (x, y) = crate::browser::canvas_point(&c, &ev);
                paint(x, y);
            }
        }
    };
    let up = {
        let (ink, session) = (ink.clone(), session.clone());
        move |_| {
            if drawing.replace(false) {
                session.send(Command::Classify {
                    input: mnist_digit(&ink.borrow(), PAD, PAD),
                    note: "your drawing, fitted to 20×20 and centred like MNIST's digits".into(),
                });
            }
        }
    };
    let clear = move |_| {
        ink.borrow_mut().iter_mut().for_each(|v| *v = 0.0);
        if let Some(ctx) = canvas.get_untracked().and_then(|c| crate::draw::context(&c)) {
            ctx.set_fill_style_str("#ffffff");
            ctx.fill_rect(0.0, 0.0, PAD as f64, PAD as f64);
        }
        v.probs.set(Vec::new());
    };
    view! {
        <figure class:hidden=hidden("pad")>
            <canvas node_ref=canvas data-testid="vision-pad" width=PAD.to_string() height=PAD.to_string() class="pad"
                on:mousedown=down on:mousemove=moved on:mouseup=up.clone() on:mouseleave=up></canvas>
            <div class="buttons">
                <button data-testid="vision-clear" on:click=clear>"Clear"</button>
                <button data-testid="vision-next" disabled=move || !v.has_model.get() on:click=move |_| session.send(Command::NextTest)>"Next test image"</button>
            </div>
            <p class="small muted" data-testid="vision-pad-note">{move || v.pad_note.get()}</p>
            <div class="probs" data-testid="vision-probs">
                {move || {
                    let p = v.probs.get();
                    let best = if p.is_empty() { usize::MAX } else { engine::inspect::argmax(&p) };
                    class_names().iter().enumerate().map(|(k, name)| {
                        let x = p.get(k).copied().unwrap_or(0.0);
                        view! {
                            <div class="prob" class:best=k == best>
                                <span class="name">{*name}</span>
                                <span class="bar" style=format!("width: {:.0}px", x * 120.0)></span>
                                <span data-testid=format!("vision-prob-{k}")>{format!("{:.1} %", x * 100.0)}</span>
                            </div>
                        }
                    }).collect_view()
                }}
            </div>
            <figcaption>"Draw a digit (press, drag, release), or step through test images: the class probabilities and the feature maps follow."</figcaption>
        </figure>
    }
}
