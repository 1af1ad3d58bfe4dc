//! `model.py`: the model rebuilt in PyTorch, its weights loaded, its training setup, and a
//! `__main__` that runs it once. Written line by line (a Rust string's `\` continuation would eat
//! the indentation Python needs).

use crate::export::ModelExport;
use crate::optim::Optimizer;
use crate::plan::Loss;

/// The residual block, defined in the script only when the model has one.
const RESIDUAL: &str = "
class Residual(nn.Module):
    \"\"\"A residual block (He et al. 2016): body(x) + skip(x), the skip the identity or a 1x1 convolution.\"\"\"

    def __init__(self, body, skip):
        super().__init__()
        self.body = body
        self.skip = skip

    def forward(self, x):
        return self.body(x) + self.skip(x)
";

pub(super) fn optimizer_line(o: &Optimizer, lr: f32) -> String {
    match o {
        Optimizer::Sgd => format!("torch.optim.SGD(model.parameters(), lr={lr})"),
        Optimizer::Momentum { momentum } => format!("torch.optim.SGD(model.parameters(), lr={lr}, momentum={momentum})"),
        Optimizer::Nesterov { momentum } => format!("torch.optim.SGD(model.parameters(), lr={lr}, momentum={momentum}, nesterov=True)"),
        Optimizer::AdaGrad { eps } => format!("torch.optim.Adagrad(model.parameters(), lr={lr}, eps={eps})"),
        Optimizer::RmsProp { beta, eps } => format!("torch.optim.RMSprop(model.parameters(), lr={lr}, alpha={beta}, eps={eps})"),
        Optimizer::Adam { beta1, beta2, eps } => format!("torch.optim.Adam(model.parameters(), lr={lr}, betas=({beta1}, {beta2}), eps={eps})"),
        Optimizer::AdamW { beta1, beta2, eps, weight_decay } => {
            format!("torch.optim.AdamW(model.parameters(), lr={lr}, betas=({beta1}, {beta2}), eps={eps}, weight_decay={weight_decay})")
        }
        Optimizer::Lars { momentum, weight_decay } => format!(
            "torch.optim.SGD(model.parameters(), lr={lr}, momentum={momentum}, weight_decay={weight_decay})  # the lab trained with LARS; PyTorch has no LARS: SGD is the nearest"
        ),
    }
}

pub(super) fn script(model: &ModelExport, modules: &[String], residual: bool, input: [usize; 3]) -> String {
    let c = &model.config;
    let loss = match c.loss {
        Loss::CrossEntropy => "nn.CrossEntropyLoss()",
        Loss::Mse => "nn.MSELoss()  # on one-hot labels for classification, as the lab trains",
    };
    let [c0, c1, c2] = input;
    let mut lines: Vec<String> = vec![
        format!("# The model trained in Training Lab (step {}), rebuilt in PyTorch with its weights and its training setup.", model.step),
        "# Needs: pip install torch safetensors".into(),
        "import torch".into(),
        "from torch import nn".into(),
        "from safetensors.torch import load_file".into(),
    ];
    if residual {
        lines.push(RESIDUAL.into());
    }
    lines.push(String::new());
    lines.push(format!(
        "# One input sample is [{c0}, {c1}, {c2}] (channels, height, width); images as pixel / 255."
    ));
    lines.push("model = nn.Sequential(".into());
    for (i, m) in modules.iter().enumerate() {
        lines.push(format!("    {m},  # {i}"));
    }
    lines.push(")".into());
    lines.push("model.load_state_dict(load_file('model.safetensors'))".into());
    lines.push(String::new());
    lines.push("# How the lab trained it: go on from here in a notebook.".into());
    lines.push(format!(
        "optimizer = {}",
        optimizer_line(&c.optimizer, c.learning_rate)
    ));
    lines.push(format!("loss_fn = {loss}"));
    lines.push(format!("batch_size = {}", c.batch));
    lines.push(String::new());
    lines.push("if __name__ == '__main__':".into());
    lines.push("    model.eval()".into());
    lines.push(format!("    x = torch.zeros(1, {c0}, {c1}, {c2})"));
    lines.push("    print('outputs for an all-zero input:', model(x).detach().numpy().round(4))".into());
    lines.join("\n") + "\n"
}
