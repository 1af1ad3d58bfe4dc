//! `lab export-torch --model MODEL.json --out DIR`: a saved model for a notebook — its weights
//! (`model.safetensors`), a PyTorch script rebuilding it with its training setup (`model.py`) and
//! its layer list (`model_layers.json`, what `scripts/check_torch_export.py` runs in NumPy).

use std::path::PathBuf;

use anyhow::Context;

#[derive(clap::Args)]
pub struct TorchArgs {
    /// A model saved by the vision lab or by `lab train --save-model`
    #[arg(long, value_name = "MODEL.json")]
    model: PathBuf,
    /// The folder the three files are written to (created)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

pub fn run(a: &TorchArgs) -> anyhow::Result<()> {
    let saved = crate::train::load_model(&a.model)?;
    let export = engine::torch_export::export(&saved).with_context(|| a.model.display().to_string())?;
    std::fs::create_dir_all(&a.out).with_context(|| a.out.display().to_string())?;
    for (name, bytes) in [
        ("model.safetensors", export.safetensors),
        ("model.py", export.script.into_bytes()),
        ("model_layers.json", serde_json::to_vec_pretty(&export.layers)?),
    ] {
        let path = a.out.join(name);
        std::fs::write(&path, bytes).with_context(|| path.display().to_string())?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
