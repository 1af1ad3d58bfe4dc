//! Every chart downloads as a PNG and as a CSV of the numbers it draws. Pages hand each chart's
//! table to `set_table` when they draw it (keyed by the canvas's test id) — or, for a chart
//! redrawn every frame, a way to build it at the click (`provide`), so drawing stays cheap;
//! `install` gives every `<figure>` with a canvas a small "PNG" / "CSV" toolbar, also on figures
//! drawn later.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::frame::{next_frame, now_ms};

/// Builds a chart's CSV; None while nothing is drawn.
type TableBuilder = Rc<dyn Fn() -> Option<String>>;

thread_local! {
    static TABLES: RefCell<HashMap<String, TableBuilder>> = RefCell::new(HashMap::new());
}

/// The numbers behind the chart drawn on canvas `id`, as CSV with a header line.
pub fn set_table(id: &str, csv: String) {
    provide(id, move || Some(csv.clone()));
}

/// Builds chart `id`'s CSV when asked (None: nothing drawn yet).
pub fn provide(id: &str, table: impl Fn() -> Option<String> + 'static) {
    TABLES.with(|t| t.borrow_mut().insert(id.to_string(), Rc::new(table)));
}

/// `set_table` for the canvas being drawn (its test id names the table).
pub fn table_of(canvas: &web_sys::HtmlCanvasElement, csv: String) {
    if let Some(id) = canvas.get_attribute("data-testid") {
        set_table(&id, csv);
    }
}

fn table(id: &str) -> Option<String> {
    // The builder is taken out of the map first: it may borrow page state, never the map.
    let build = TABLES.with(|t| t.borrow().get(id).cloned())?;
    build()
}

/// CSV from a header (comma-separated words) and rows of displayable cells, quoted where a
/// cell holds a comma or a quote.
pub fn csv<R, C>(header: &str, rows: R) -> String
where
    R: IntoIterator<Item = C>,
    C: IntoIterator,
    C::Item: std::fmt::Display,
{
    engine::table::to_csv(&engine::table::header(header), rows)
}

/// Keeps every figure's toolbar in place, twice a second, for as long as the page lives.
pub fn install() {
    wasm_bindgen_futures::spawn_local(async {
        let mut at = 0.0;
        loop {
            next_frame().await;
            if now_ms() - at > 500.0 {
                at = now_ms();
                equip_figures();
            }
        }
    });
}

fn equip_figures() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(canvases) = doc.query_selector_all("figure canvas[data-testid]") else {
        return;
    };
    for i in 0..canvases.length() {
        let Some(canvas) = canvases
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        else {
            continue;
        };
        let Some(figure) = canvas.closest("figure").ok().flatten() else {
            continue;
        };
        let id = canvas.get_attribute("data-testid").unwrap_or_default();
        let marker = format!("[data-figure-tools=\"{id}\"]");
        if figure.query_selector(&marker).ok().flatten().is_some() {
            continue;
        }
        if let Some(tools) = toolbar(&doc, &id, &canvas) {
            let _ = figure.append_child(&tools);
        }
    }
}

/// "PNG" and "CSV" buttons for one canvas.
fn toolbar(
    doc: &web_sys::Document,
    id: &str,
    canvas: &web_sys::HtmlCanvasElement,
) -> Option<web_sys::Element> {
    let tools = doc.create_element("div").ok()?;
    tools.set_class_name("figure-tools");
    let _ = tools.set_attribute("data-figure-tools", id);
    let png = button(
        doc,
        "PNG",
        &format!("{id}-png"),
        &format!("download this chart as a PNG image ({id}.png)"),
    )?;
    let (name, c) = (id.to_string(), canvas.clone());
    let on_png = Closure::<dyn Fn()>::new(move || browser::download_canvas(&format!("{name}.png"), &c));
    png.set_onclick(Some(on_png.as_ref().unchecked_ref()));
    on_png.forget();
    let csv = button(
        doc,
        "CSV",
        &format!("{id}-csv"),
        &format!("download the numbers of this chart as CSV ({id}.csv)"),
    )?;
    let name = id.to_string();
    let on_csv = Closure::<dyn Fn()>::new(move || match table(&name) {
        Some(t) => browser::download(&format!("{name}.csv"), "text/csv", &t),
        None => crate::banner::raise(format!("{name}: nothing drawn yet, so no numbers to download")),
    });
    csv.set_onclick(Some(on_csv.as_ref().unchecked_ref()));
    on_csv.forget();
    tools.append_child(&png).ok()?;
    tools.append_child(&csv).ok()?;
    Some(tools)
}

fn button(doc: &web_sys::Document, label: &str, test_id: &str, title: &str) -> Option<web_sys::HtmlElement> {
    let b = doc
        .create_element("button")
        .ok()?
        .dyn_into::<web_sys::HtmlElement>()
        .ok()?;
    b.set_text_content(Some(label));
    b.set_title(title);
    let _ = b.set_attribute("aria-label", title);
    let _ = b.set_attribute("data-testid", test_id);
    let _ = b.set_attribute("type", "button");
    Some(b)
}
