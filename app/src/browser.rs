//! Small browser chores: the URL's query (read it, and rewrite it without a reload), file
//! downloads, and reading an uploaded file.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

pub fn query() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Replaces the query in the address bar (no reload, no history entry), so the link always
/// reproduces what the page shows.
pub fn set_query(query: &str) {
    let Some(window) = web_sys::window() else { return };
    let path = window.location().pathname().unwrap_or_default();
    // An embedded lab keeps its embedding keys while its state changes.
    let kept = web_sys::UrlSearchParams::new_with_str(&window.location().search().unwrap_or_default())
        .map(|p| {
            lab_state::query::SHELL_KEYS
                .iter()
                .filter_map(|k| {
                    p.get(k)
                        .map(|v| format!("{k}={}", js_sys::encode_uri_component(&v)))
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let query = kept
        .into_iter()
        .chain((!query.is_empty()).then(|| query.to_string()))
        .collect::<Vec<_>>()
        .join("&");
    let url = if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Offers `text` as a file download.
pub fn download(name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    download_parts(
        name,
        mime,
        &parts,
        web_sys::Blob::new_with_str_sequence_and_options,
    );
}

/// Offers binary `bytes` as a file download.
pub fn download_bytes(name: &str, mime: &str, bytes: &[u8]) {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    download_parts(
        name,
        mime,
        &parts,
        web_sys::Blob::new_with_u8_array_sequence_and_options,
    );
}

/// A blob of `parts` (made by `make`, text or bytes) offered as the download `name`.
fn download_parts(
    name: &str,
    mime: &str,
    parts: &js_sys::Array,
    make: fn(&JsValue, &web_sys::BlobPropertyBag) -> Result<web_sys::Blob, JsValue>,
) {
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = make(parts, &options) else {
        return;
    };
    if let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) {
        click_link(name, &url);
        let _ = web_sys::Url::revoke_object_url(&url);
    }
}

/// Offers a canvas as a PNG download.
pub fn download_canvas(name: &str, canvas: &web_sys::HtmlCanvasElement) {
    if let Ok(url) = canvas.to_data_url_with_type("image/png") {
        click_link(name, &url);
    }
}

fn click_link(name: &str, href: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(a) = doc.create_element("a") else { return };
    let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>() else {
        return;
    };
    a.set_href(href);
    a.set_download(name);
    a.click();
}

/// The largest file a lab reads, in MB: its own files (settings, results, a model, a data set)
/// are a few MB at most, and one of hundreds of MB would take the page seconds and its memory
/// before any check could refuse it.
pub const MOST_FILE_MB: u32 = 32;

/// The text of the first file chosen in an `<input type=file>`, refused unread when larger than
/// `MOST_FILE_MB`.
pub async fn read_file(
    input: &web_sys::HtmlInputElement,
) -> Result<(String, String), crate::error::FileError> {
    use crate::error::FileError;
    let file = input
        .files()
        .and_then(|f| f.get(0))
        .ok_or(FileError::NoneChosen)?;
    let megabytes = file.size() / (1024.0 * 1024.0);
    if megabytes > f64::from(MOST_FILE_MB) {
        return Err(FileError::TooLarge {
            name: file.name(),
            megabytes,
            most: MOST_FILE_MB,
        });
    }
    let text = JsFuture::from(file.text())
        .await
        .map_err(|_| FileError::Unreadable(file.name()))?;
    Ok((file.name(), text.as_string().unwrap_or_default()))
}

/// Where a mouse event fell on a canvas, in the canvas's own pixels: canvases are scaled down
/// by CSS to fit narrow screens, so the event's CSS offset must be scaled back.
pub fn canvas_point(canvas: &web_sys::HtmlCanvasElement, ev: &web_sys::MouseEvent) -> (f64, f64) {
    let rect = canvas.get_bounding_client_rect();
    let sx = if rect.width() > 0.0 {
        canvas.width() as f64 / rect.width()
    } else {
        1.0
    };
    let sy = if rect.height() > 0.0 {
        canvas.height() as f64 / rect.height()
    } else {
        1.0
    };
    (
        (ev.client_x() as f64 - rect.left()) * sx,
        (ev.client_y() as f64 - rect.top()) * sy,
    )
}
