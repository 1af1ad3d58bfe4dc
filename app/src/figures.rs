//! Every chart downloads as a PNG and as a CSV of the numbers it draws. Pages hand each chart's
//! table to `set_table` when they draw it (keyed by the canvas's test id) — or, for a chart
//! redrawn every frame, a way to build it at the click (`provide`), so drawing stays cheap;
//! `install` gives every `<figure>` with a canvas a small "PNG" / "CSV" toolbar, also on figures
//! drawn later, and its text alternative (`chart_text`): a name, a summary and a table view.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::frame::{next_frame, now_ms};
use crate::{browser, chart_text};

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
        let (mut equipped_at, mut summarized_at) = (0.0, 0.0);
        loop {
            next_frame().await;
            if now_ms() - equipped_at > 500.0 {
                equipped_at = now_ms();
                equip_figures();
            }
            // Building every chart's CSV costs a little; a summary a second old is still now.
            if now_ms() - summarized_at > SUMMARY_EVERY_MS {
                summarized_at = now_ms();
                for_each_chart(|_, _, id, canvas| chart_text::refresh(id, canvas, table(id).as_deref()));
            }
        }
    });
}

/// How often each chart's summary is rebuilt from its table.
const SUMMARY_EVERY_MS: f64 = 1500.0;

fn equip_figures() {
    for_each_chart(|doc, figure, id, canvas| {
        let marker = format!("[data-figure-tools=\"{id}\"]");
        if figure.query_selector(&marker).ok().flatten().is_some() {
            return;
        }
        if let Some(tools) = toolbar(doc, id, canvas) {
            let _ = figure.append_child(&tools);
            chart_text::equip(doc, figure, id, canvas);
        }
    });
}

/// Calls `f` with each chart on the page: a canvas with a test id inside a `<figure>`.
fn for_each_chart(
    mut f: impl FnMut(&web_sys::Document, &web_sys::Element, &str, &web_sys::HtmlCanvasElement),
) {
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
        f(&doc, &figure, &id, &canvas);
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
    let name = id.to_string();
    let show = chart_text::table_button(doc, id, move || table(&name))?;
    tools.append_child(&png).ok()?;
    tools.append_child(&csv).ok()?;
    tools.append_child(&show).ok()?;
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
