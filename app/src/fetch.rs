//! Fetching the data files that setup puts under `data/`.

use engine::data::Dataset;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The bytes at `url` (relative to the page), or a readable error.
pub async fn bytes(url: &str) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| format!("{url}: {e:?}"))?;
    let response: web_sys::Response = response
        .dyn_into()
        .map_err(|_| format!("{url}: not a response"))?;
    if !response.ok() {
        return Err(format!(
            "{url}: HTTP {} (did setup prepare the data?)",
            response.status()
        ));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(|e| format!("{url}: {e:?}"))?)
        .await
        .map_err(|e| format!("{url}: {e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Loads the training and test data of a config (image files from `data/`).
pub async fn data(config: &engine::train::TrainConfig) -> Result<(Dataset, Dataset), String> {
    let files = match &config.data {
        engine::train::DataConfig::Images(i) => Some((
            bytes(&format!("data/{}-train.bin", i.set)).await?,
            bytes(&format!("data/{}-test.bin", i.set)).await?,
        )),
        _ => None,
    };
    let (train, test) = config.data.load(|name| match &files {
        Some((train, test)) => Ok(if name.ends_with("train.bin") {
            train.clone()
        } else {
            test.clone()
        }),
        None => Err(format!("{name}: only built-in data here")),
    })?;
    // Without a held-out set, "test" figures are measured on the training data again.
    let test = test.unwrap_or_else(|| train.clone());
    Ok((train, test))
}
