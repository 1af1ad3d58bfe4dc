//! What the page asks of the playground's session task (`session` owns the trainer; `lab`, the
//! page's model, holds the mailbox these go through).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Train,
    Pause,
    /// One step while paused.
    Step,
    /// Stop, forget the model and build a fresh one from the settings and data.
    Reset,
    /// Carry the running model on under the new training settings (learning rate, optimizer,
    /// regularization, batch size, backend).
    Retune,
    /// Download the weights, the config and the settings as JSON.
    ExportWeights,
    /// Destroy the GPU device, as a driver reset would (`window.__labLoseGpu()`).
    LoseDevice,
    /// The background job preparing WebGPU is done (`handover`): move the run there if it won.
    GpuReady,
}
