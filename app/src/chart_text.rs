//! Every chart's text alternative, for a reader who cannot see the canvas: an accessible name
//! saying what it shows (its own label, else its caption's first sentence), a summary of what it
//! shows now (its CSV read by `engine::table`, put in words by `plot_text::chart_summary`), and a
//! "Table" toggle that lays the same numbers out as an HTML table. `figures` calls `equip` for each chart it finds and `refresh`
//! every couple of seconds.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use plot_text::chart_summary;

/// Rows the table view shows; the CSV download has them all.
const TABLE_ROWS: usize = 200;

/// Gives canvas `id` in `figure` its name, its summary element and its table view (once).
pub fn equip(
    doc: &web_sys::Document,
    figure: &web_sys::Element,
    id: &str,
    canvas: &web_sys::HtmlCanvasElement,
) {
    if canvas
        .get_attribute("aria-label")
        .is_none_or(|l| l.trim().is_empty())
    {
        let _ = canvas.set_attribute("aria-label", &name_of(figure, canvas, id));
    }
    // A canvas the keyboard drives keeps its own role; the others are pictures.
    if canvas.get_attribute("role").is_none() && canvas.get_attribute("tabindex").is_none() {
        let _ = canvas.set_attribute("role", "img");
    }
    let summary_id = format!("{id}-summary");
    if let Ok(p) = doc.create_element("p") {
        p.set_id(&summary_id);
        p.set_class_name("sr-only chart-summary");
        p.set_text_content(Some(&empty_text(canvas)));
        let _ = figure.append_child(&p);
        let _ = canvas.set_attribute("aria-describedby", &summary_id);
    }
    if let Ok(holder) = doc.create_element("div") {
        holder.set_id(&format!("{id}-table"));
        holder.set_class_name("chart-table");
        let _ = holder.set_attribute("hidden", "");
        let _ = holder.set_attribute("data-testid", &format!("{id}-table"));
        // It scrolls, so the keyboard must be able to reach it.
        let _ = holder.set_attribute("tabindex", "0");
        let _ = holder.set_attribute("role", "region");
        let _ = holder.set_attribute("aria-label", &format!("{id}: the numbers as a table"));
        let _ = figure.append_child(&holder);
    }
}

/// The "Table" button of canvas `id`'s toolbar: shows or hides its numbers as a table.
pub fn table_button(
    doc: &web_sys::Document,
    id: &str,
    table: impl Fn() -> Option<String> + 'static,
) -> Option<web_sys::HtmlElement> {
    let b = doc
        .create_element("button")
        .ok()?
        .dyn_into::<web_sys::HtmlElement>()
        .ok()?;
    b.set_text_content(Some("Table"));
    b.set_title("show this chart's numbers as a table");
    let _ = b.set_attribute("type", "button");
    let _ = b.set_attribute("data-testid", &format!("{id}-table-toggle"));
    let _ = b.set_attribute("aria-controls", &format!("{id}-table"));
    let _ = b.set_attribute("aria-expanded", "false");
    let (name, button) = (id.to_string(), b.clone());
    let on_click = Closure::<dyn Fn()>::new(move || {
        let Some(holder) = element(&format!("{name}-table")) else {
            return;
        };
        let open = holder.has_attribute("hidden");
        let _ = button.set_attribute("aria-expanded", if open { "true" } else { "false" });
        if open {
            let _ = holder.remove_attribute("hidden");
            fill_table(&holder, &name, table().as_deref().and_then(read_table).as_ref());
        } else {
            let _ = holder.set_attribute("hidden", "");
        }
    });
    b.set_onclick(Some(on_click.as_ref().unchecked_ref()));
    on_click.forget();
    Some(b)
}

/// Brings canvas `id`'s summary (and its table, while shown) up to date with `csv`.
pub fn refresh(id: &str, canvas: &web_sys::HtmlCanvasElement, csv: Option<&str>) {
    // The chart's name tells which of a shared table's columns it plots.
    let name = canvas.get_attribute("aria-label").unwrap_or_default();
    let table = csv.and_then(read_table);
    let text = table
        .as_ref()
        .and_then(|(header, rows)| chart_summary::summarize(header, rows, &name))
        .unwrap_or_else(|| empty_text(canvas));
    if let Some(p) = element(&format!("{id}-summary")) {
        if p.text_content().as_deref() != Some(text.as_str()) {
            p.set_text_content(Some(&text));
        }
    }
    if let Some(holder) = element(&format!("{id}-table")) {
        if !holder.has_attribute("hidden") {
            fill_table(&holder, id, table.as_ref());
        }
    }
}

/// A chart's CSV as its header and rows, read by `engine::table` (the reader the CSV's writer
/// pairs with: quoted cells come back whole).
fn read_table(csv: &str) -> Option<(Vec<String>, Vec<Vec<String>>)> {
    let header = engine::table::header(csv.lines().next()?)
        .into_iter()
        .map(String::from)
        .collect();
    Some((header, engine::table::read_rows(csv).ok()?))
}

fn fill_table(holder: &web_sys::Element, id: &str, table: Option<&(Vec<String>, Vec<Vec<String>>)>) {
    let Some((header, all)) = table else {
        holder.set_text_content(Some("Nothing drawn yet."));
        return;
    };
    let (rows, total) = (&all[..all.len().min(TABLE_ROWS)], all.len());
    let shown = if total > rows.len() {
        format!("the first {} of {total} rows; the CSV has them all", rows.len())
    } else {
        format!("{total} rows")
    };
    let mut html = format!(
        "<table><caption>{}: {}</caption><thead><tr>",
        escape(id),
        escape(&shown)
    );
    for h in header {
        html += &format!("<th scope=\"col\">{}</th>", escape(h));
    }
    html += "</tr></thead><tbody>";
    for r in rows {
        html += "<tr>";
        for c in r {
            html += &format!("<td>{}</td>", escape(c));
        }
        html += "</tr>";
    }
    html += "</tbody></table>";
    holder.set_inner_html(&html);
}

/// What the chart shows, for its accessible name.
fn name_of(figure: &web_sys::Element, canvas: &web_sys::HtmlCanvasElement, id: &str) -> String {
    let caption = figure
        .query_selector("figcaption")
        .ok()
        .flatten()
        .and_then(|c| c.text_content())
        .map(|t| first_sentence(&t))
        .filter(|t| !t.is_empty());
    let empty = canvas
        .get_attribute("data-empty")
        .map(|t| t.split_once(": ").map_or(t.clone(), |(_, what)| what.to_string()));
    caption.or(empty).unwrap_or_else(|| format!("chart {id}"))
}

fn first_sentence(text: &str) -> String {
    let text = text.trim();
    match text.find(". ") {
        Some(end) => text[..end].to_string(),
        None => text.trim_end_matches('.').to_string(),
    }
}

fn empty_text(canvas: &web_sys::HtmlCanvasElement) -> String {
    let hint = canvas.get_attribute("data-empty").unwrap_or_default();
    format!("Nothing drawn yet. {hint}").trim().to_string()
}

fn element(id: &str) -> Option<web_sys::Element> {
    web_sys::window()?.document()?.get_element_by_id(id)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Bytes in words for labels and tables (decimal units: 1 kB = 1,000 B).
pub fn bytes(b: f64) -> String {
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.2} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{b:.0} B")
    }
}
