//! Fetching the data files that setup puts under the site's `data/`: image sets travel as
//! gzip-compressed slices listed by a manifest (`engine::data::slices`); a run fetches only the
//! slices holding the images it uses, and the browser's own `DecompressionStream` unpacks them.

use engine::data::images::ImageSet;
use engine::data::slices::Manifest;
use engine::data::Dataset;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::error::FetchError;

#[wasm_bindgen(inline_js = "
export async function gunzip(bytes) {
  if (typeof DecompressionStream === 'undefined') {
    throw new Error('this browser cannot unpack compressed data (no DecompressionStream): use a current Chrome, Edge, Firefox or Safari');
  }
  const unpacked = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(unpacked).arrayBuffer());
}
")]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn gunzip(bytes: js_sys::Uint8Array) -> Result<JsValue, JsValue>;
}

/// The bytes at `url` (relative to the page), or why not.
pub async fn bytes(url: &str) -> Result<Vec<u8>, FetchError> {
    let network = |e: JsValue| FetchError::Network {
        url: url.to_string(),
        why: format!("{e:?}"),
    };
    let window = web_sys::window().ok_or(FetchError::NoWindow)?;
    let response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(network)?;
    let response: web_sys::Response = response.dyn_into().map_err(network)?;
    if !response.ok() {
        return Err(FetchError::Status {
            url: url.to_string(),
            status: response.status(),
        });
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(network)?)
        .await
        .map_err(network)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The bytes of a gzip file at `url`, unpacked (fetched as any data file is, by `bytes`).
async fn gunzipped(url: &str) -> Result<Vec<u8>, FetchError> {
    let packed = bytes(url).await?;
    // A host that labels .gz files Content-Encoding: gzip has had the browser unpack them already.
    if !packed.starts_with(&[0x1f, 0x8b]) {
        return Ok(packed);
    }
    let unpacked = gunzip(js_sys::Uint8Array::from(packed.as_slice()))
        .await
        .map_err(|e| FetchError::Network {
            url: url.to_string(),
            why: e
                .dyn_ref::<js_sys::Error>()
                .map_or_else(|| format!("{e:?}"), |e| String::from(e.message())),
        })?;
    Ok(js_sys::Uint8Array::new(&unpacked).to_vec())
}

/// The first `limit` images of split `split` of image set `set`, as one image file's bytes (what
/// `DataConfig::load` reads): the manifest, then the slices they are in.
pub async fn image_file(set: &str, split: &str, limit: usize) -> Result<Vec<u8>, FetchError> {
    let url = format!("data/{}", Manifest::file_name(set, split));
    let text = bytes(&url).await?;
    let manifest: Manifest = serde_json::from_slice(&text).map_err(|e| FetchError::Manifest {
        url: url.clone(),
        why: e.to_string(),
    })?;
    let mut parts = Vec::new();
    for slice in manifest.needed(limit) {
        let url = format!("data/{}", slice.file);
        let part =
            ImageSet::parse(&gunzipped(&url).await?).map_err(|source| FetchError::Images { url, source })?;
        parts.push(part);
    }
    Ok(ImageSet::concat(&parts)
        .map_err(|source| FetchError::Images { url, source })?
        .to_bytes())
}

/// Loads the training and test data of a config (image sets from the site's `data/`).
pub async fn data(config: &engine::train::TrainConfig) -> Result<(Dataset, Dataset), FetchError> {
    let files = match &config.data {
        engine::train::DataConfig::Images(i) => Some((
            image_file(&i.set, "train", i.train_limit).await?,
            image_file(&i.set, "test", i.test_limit).await?,
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
