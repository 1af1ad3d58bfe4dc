//! Embedding (`?embed=1`): one lab without the shell's chrome, sized by its host page, and a
//! `postMessage` API. The host's origin must be in the allow-list given in the embed URL
//! (`origins=https://a.example,https://b.example`); messages from any other origin, and malformed
//! ones, are ignored. The host may send
//!   {type: "lab-set-state", query: "<the lab's URL state>"}   (reloads the lab with those keys
//!   set over its state; its locks, `<name>_hide`, stay)
//!   {type: "lab-start"} · {type: "lab-pause"}                  (the lab's own buttons)
//! and receives {type: "lab-ack", of, ok}, and {type: "lab-metrics", lab, status, readouts,
//! metrics} when they change (`metrics`: every element marked `data-metric="name"`, by name, its
//! `data-metric-value` or else its text: the results a lesson reads, such as each optimizer's
//! measured rate), and {type: "lab-size", height} to size the frame (embed.js does). Every
//! message goes to the allowed origins only; a frame embedded without `origins` sends none.
//! `focus=<test id>` (a lesson section's `chart`, one of the registry's `charts`) shows that
//! figure first among the lab's views, so on a phone it sits right under the lesson's prediction.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, UrlSearchParams};

use crate::frame::{next_frame, now_ms};

/// The embed settings of this page's URL: None when not embedded.
fn settings() -> Option<Vec<String>> {
    let params = UrlSearchParams::new_with_str(&crate::browser::query()).ok()?;
    (params.get("embed").as_deref() == Some("1")).then(|| {
        params
            .get("origins")
            .unwrap_or_default()
            .split(',')
            .map(|o| o.trim().trim_end_matches('/').to_string())
            .filter(|o| o.starts_with("http://") || o.starts_with("https://"))
            .collect()
    })
}

/// One key of an embedded page's URL: None when not embedded or not given.
fn embed_param(key: &str) -> Option<String> {
    settings()?;
    UrlSearchParams::new_with_str(&crate::browser::query())
        .ok()?
        .get(key)
}

/// The lab an embed asks for (`lab=`, which embed.js adds): None when not embedded or unnamed.
pub fn asked_lab() -> Option<String> {
    embed_param("lab")
}

/// The chart an embed shows first (`focus=`): None when not embedded or not a test id's shape.
fn focus() -> Option<String> {
    embed_param("focus").filter(|f| {
        f.len() <= 48
            && f.starts_with(|c: char| c.is_ascii_lowercase())
            && f.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    })
}

/// Orders the figure holding `[data-testid=<id>]` (or the element itself) before its siblings,
/// and each box around it up to the lab's views likewise; a box whose children flow as blocks
/// (the landscape's panels) becomes a column so that order applies. False while the chart is
/// not on the page yet; checked again every time, as a page may draw its figures anew.
fn bring_first(id: &str) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let Some(el) = window
        .document()
        // Within the views: a control may share a chart's name (the parallelism lab's memory).
        .and_then(|d| {
            d.query_selector(&format!(".views [data-testid=\"{id}\"]"))
                .ok()
                .flatten()
        })
    else {
        return false;
    };
    let mut node = el.closest("figure").ok().flatten().unwrap_or(el);
    let done = |n: &web_sys::Element| {
        n.dyn_ref::<web_sys::HtmlElement>()
            .is_some_and(|h| h.style().get_property_value("order").is_ok_and(|o| o == "-1"))
    };
    if done(&node) {
        return true;
    }
    while let Some(parent) = node.parent_element() {
        if parent.tag_name().eq_ignore_ascii_case("main") {
            break;
        }
        let flows_as_blocks = window
            .get_computed_style(&parent)
            .ok()
            .flatten()
            .and_then(|s| s.get_property_value("display").ok())
            .is_some_and(|d| d == "block");
        if let Some(p) = parent
            .dyn_ref::<web_sys::HtmlElement>()
            .filter(|_| flows_as_blocks)
        {
            let _ = p.style().set_property("display", "flex");
            let _ = p.style().set_property("flex-direction", "column");
        }
        if let Some(n) = node.dyn_ref::<web_sys::HtmlElement>() {
            let _ = n.style().set_property("order", "-1");
        }
        node = parent;
    }
    true
}

/// Turns embedding on when the URL asks for it.
pub fn install() {
    let Some(origins) = settings() else { return };
    let Some(window) = web_sys::window() else { return };
    if let Some(body) = window.document().and_then(|d| d.body()) {
        let _ = body.class_list().add_1("embed");
    }
    let allowed = origins.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let origin = ev.origin();
        if !allowed.contains(&origin) {
            return; // not from an allowed host: ignored without a word
        }
        let (kind, ok) = handle(&ev.data(), &allowed);
        if let Some(kind) = kind {
            post(
                &serde_json::json!({ "type": "lab-ack", "of": kind, "ok": ok }),
                &origin,
            );
        }
    });
    let _ = window.add_event_listener_with_callback("message", on_message.as_ref().unchecked_ref());
    on_message.forget();
    // Before the app mounts, leptos has no executor yet: wasm-bindgen-futures runs it.
    wasm_bindgen_futures::spawn_local(report(origins));
}

/// Carries out one message; gives its type (None when it is not a lab message) and whether it
/// did anything.
fn handle(data: &JsValue, origins: &[String]) -> (Option<String>, bool) {
    let get = |key: &str| {
        js_sys::Reflect::get(data, &key.into())
            .ok()
            .and_then(|v| v.as_string())
    };
    let Some(kind) = get("type") else {
        return (None, false);
    };
    let ok = match kind.as_str() {
        "lab-set-state" => match get("query") {
            Some(q) if q.len() <= 4000 && !q.contains('#') => {
                let current = crate::browser::query().trim_start_matches('?').to_string();
                let shell = format!("embed=1&origins={}", origins.join(","));
                let search = lab_state::query::merge(&format!("{shell}&{current}"), &q);
                web_sys::window().is_some_and(|w| w.location().set_search(&search).is_ok())
            }
            _ => false,
        },
        "lab-start" => click("[data-lab-start]"),
        "lab-pause" => click("[data-lab-pause]"),
        _ => return (None, false),
    };
    (Some(kind), ok)
}

fn click(selector: &str) -> bool {
    let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(selector).ok().flatten())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return false;
    };
    if el.has_attribute("disabled") {
        return false;
    }
    el.click();
    true
}

fn post(message: &serde_json::Value, origin: &str) {
    let Some(parent) = web_sys::window().and_then(|w| w.parent().ok().flatten()) else {
        return;
    };
    if let Ok(v) = js_sys::JSON::parse(&message.to_string()) {
        let _ = parent.post_message(&v, origin);
    }
}

/// The lab's status line and readouts, as the host sees them.
fn metrics() -> serde_json::Value {
    let doc = web_sys::window().and_then(|w| w.document());
    let text = |sel: &str| {
        doc.as_ref()
            .and_then(|d| d.query_selector(sel).ok().flatten())
            .and_then(|e| e.text_content())
            .unwrap_or_default()
    };
    let mut readouts = serde_json::Map::new();
    if let Some(list) = doc
        .as_ref()
        .and_then(|d| d.query_selector_all(".readouts dt, .readouts dd").ok())
    {
        let items: Vec<String> = (0..list.length())
            .filter_map(|i| list.item(i).and_then(|n| n.text_content()))
            .collect();
        for pair in items.chunks(2) {
            if let [k, v] = pair {
                readouts.insert(k.trim().to_string(), v.trim().into());
            }
        }
    }
    let mut metrics = serde_json::Map::new();
    if let Some(list) = doc
        .as_ref()
        .and_then(|d| d.query_selector_all("[data-metric]").ok())
    {
        for el in (0..list.length())
            .filter_map(|i| list.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()))
        {
            if let Some(name) = el.get_attribute("data-metric") {
                // A value the element does not show as its text (a time in seconds beside a
                // run's label) is in `data-metric-value`.
                let value = el
                    .get_attribute("data-metric-value")
                    .or_else(|| el.text_content())
                    .unwrap_or_default();
                metrics.insert(name, value.trim().into());
            }
        }
    }
    let lab = web_sys::window()
        .and_then(|w| w.location().pathname().ok())
        .unwrap_or_default();
    // Running while its pause (or stop, or cancel) button is enabled; a page without one says
    // nothing, and a lesson then waits on its metrics alone.
    let running = doc
        .as_ref()
        .and_then(|d| d.query_selector("[data-lab-pause=\"true\"]").ok().flatten())
        .map(|b| !b.has_attribute("disabled"));
    serde_json::json!({
        "type": "lab-metrics", "lab": lab, "status": text("[data-lab-status]").trim(),
        "readouts": readouts, "metrics": metrics, "running": running,
    })
}

/// Every ~300 ms: the page's height (to size the frame) and the metrics, each to the allowed
/// hosts when it changed.
async fn report(origins: Vec<String>) {
    let (mut height, mut last) = (0, serde_json::Value::Null);
    let mut at = 0.0;
    // The chart to show first (some appear with their results).
    let focus = focus();
    loop {
        next_frame().await;
        if now_ms() - at < 300.0 {
            continue;
        }
        at = now_ms();
        if let Some(id) = &focus {
            bring_first(id);
        }
        let h = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            .map_or(0, |e| e.scroll_height());
        if h != height {
            height = h;
            // Like every other message, only to the allowed hosts (embed.js names its own page).
            for o in &origins {
                post(&serde_json::json!({ "type": "lab-size", "height": h }), o);
            }
        }
        let m = metrics();
        if m != last {
            for o in &origins {
                post(&m, o);
            }
            last = m;
        }
    }
}
