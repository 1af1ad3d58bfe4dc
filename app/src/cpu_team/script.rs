//! Where the CPU team's helpers come from: the app's JavaScript glue (which each helper imports)
//! and the helpers' own script (`worker.js`, built into the app).

use js_sys::Array;

use super::HelperError;

/// The URL of the app's JavaScript glue, which the helpers import (the page preloads it).
pub(super) fn glue_url() -> Result<String, HelperError> {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("link[rel=modulepreload]").ok().flatten())
        .and_then(|link| js_sys::Reflect::get(&link, &"href".into()).ok())
        .and_then(|href| href.as_string())
        .ok_or(HelperError::NoGlue)
}

thread_local! {
    /// The helpers' script URL, made once per page.
    static SCRIPT: std::cell::OnceCell<String> = const { std::cell::OnceCell::new() };
}

/// A URL for the helpers' script (`worker.js`, built into the app), the same for every team.
pub(super) fn worker_url() -> Result<String, HelperError> {
    if let Some(url) = SCRIPT.with(|s| s.get().cloned()) {
        return Ok(url);
    }
    let parts = Array::of1(&include_str!("worker.js").into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/javascript");
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(HelperError::browser)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(HelperError::browser)?;
    SCRIPT.with(|s| {
        let _ = s.set(url.clone());
    });
    Ok(url)
}
