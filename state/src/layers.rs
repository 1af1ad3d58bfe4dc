//! A network written as a line a student can read and edit, e.g.
//! `conv 6 5x5 p2, relu, maxpool 2, conv 16 5x5, relu, maxpool 2, dense 120, relu, dense 84,
//! relu, dense 10` — parsed to the engine's layers with a message naming the item at fault, and
//! written back the same way.

pub use crate::layer_error::{ItemProblem, LayerError};
use engine::model::{Layer, BN_MOMENTUM};
use engine::ops::activation::Activation;
use engine::ops::pool::PoolKind;

const ACTIVATIONS: [(&str, Activation); 6] = [
    ("relu", Activation::Relu),
    ("tanh", Activation::Tanh),
    ("sigmoid", Activation::Sigmoid),
    ("leaky", Activation::LeakyRelu),
    ("linear", Activation::Linear),
    ("gelu", Activation::Gelu),
];

/// Parses the layer list; a `flatten` goes in front of the first dense layer after convolutions
/// when the text leaves it out. The last layer must be `dense <classes>`. A residual block is
/// `res [layers]` (identity skip) or `res proj [layers]` (a 1×1 convolution on the skip).
pub fn parse(text: &str, classes: usize) -> Result<Vec<Layer>, LayerError> {
    let mut spatial = false;
    let layers = parse_items(text, &mut spatial)?;
    match layers.last() {
        Some(Layer::Dense { units }) if *units == classes => Ok(layers),
        _ => Err(LayerError::LastNotClasses { classes }),
    }
}

/// Splits at the commas outside brackets.
fn split_top(text: &str) -> Result<Vec<&str>, LayerError> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, ch) in text.char_indices() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(LayerError::Unopened(text.to_string()));
        }
    }
    if depth != 0 {
        return Err(LayerError::Unclosed(text.to_string()));
    }
    items.push(&text[start..]);
    Ok(items)
}

fn parse_items(text: &str, spatial: &mut bool) -> Result<Vec<Layer>, LayerError> {
    let mut layers = Vec::new();
    for (i, item) in split_top(text)?.into_iter().map(str::trim).enumerate() {
        let at = |problem: ItemProblem| LayerError::Item {
            number: i + 1,
            text: item.to_string(),
            problem,
        };
        if item.is_empty() {
            return Err(at(ItemProblem::Empty));
        }
        if let Some((head, body)) = item.split_once('[') {
            let projection = match head.split_whitespace().collect::<Vec<_>>().as_slice() {
                ["res"] => false,
                ["res", "proj"] => true,
                _ => return Err(at(ItemProblem::BlockHead)),
            };
            let inner = body
                .strip_suffix(']')
                .ok_or_else(|| at(ItemProblem::AfterBlock))?;
            let layers_in = parse_items(inner, spatial).map_err(|e| at(ItemProblem::InBlock(Box::new(e))))?;
            layers.push(Layer::Residual {
                layers: layers_in,
                projection,
            });
            continue;
        }
        let words: Vec<&str> = item.split_whitespace().collect();
        let number = |s: &str, what: &'static str, range: std::ops::RangeInclusive<usize>| {
            s.parse::<usize>()
                .ok()
                .filter(|v| range.contains(v))
                .ok_or_else(|| {
                    at(ItemProblem::Number {
                        what,
                        lo: *range.start(),
                        hi: *range.end(),
                    })
                })
        };
        let layer = match words[0].to_ascii_lowercase().as_str() {
            "conv" => {
                let filters = number(words.get(1).copied().unwrap_or(""), "the filter count", 1..=256)?;
                let (mut kernel, mut stride, mut padding) = (3, 1, 0);
                for w in &words[2..] {
                    if let Some((a, b)) = w.split_once(['x', '×']) {
                        kernel = number(a, "the kernel size", 1..=11)?;
                        if a != b {
                            return Err(at(ItemProblem::NotSquare));
                        }
                    } else if let Some(s) = w.strip_prefix('s') {
                        stride = number(s, "the stride (s2)", 1..=4)?;
                    } else if let Some(p) = w.strip_prefix('p') {
                        padding = number(p, "the padding (p1)", 0..=5)?;
                    } else {
                        return Err(at(ItemProblem::ConvWord(w.to_string())));
                    }
                }
                *spatial = true;
                Layer::Conv2d {
                    filters,
                    kernel,
                    stride,
                    padding,
                }
            }
            kind @ ("maxpool" | "avgpool") => {
                let size = number(words.get(1).copied().unwrap_or("2"), "the pool size", 1..=8)?;
                Layer::Pool {
                    kind: if kind == "maxpool" {
                        PoolKind::Max
                    } else {
                        PoolKind::Avg
                    },
                    size,
                    stride: size,
                }
            }
            "dense" => {
                let units = number(words.get(1).copied().unwrap_or(""), "the width", 1..=4096)?;
                if *spatial {
                    layers.push(Layer::Flatten);
                    *spatial = false;
                }
                Layer::Dense { units }
            }
            "flatten" => {
                // Already flat (before any convolution): nothing to do, and nothing to write back.
                if !*spatial {
                    continue;
                }
                *spatial = false;
                Layer::Flatten
            }
            "bn" => {
                let momentum = match words.get(1) {
                    None => BN_MOMENTUM,
                    Some(m) => m
                        .parse::<f32>()
                        .ok()
                        .filter(|m| (0.0..=1.0).contains(m))
                        .ok_or_else(|| at(ItemProblem::Momentum))?,
                };
                Layer::BatchNorm { momentum }
            }
            "ln" => Layer::LayerNorm,
            "dropout" => {
                let rate = words
                    .get(1)
                    .and_then(|s| s.parse::<f32>().ok())
                    .filter(|r| (0.0..1.0).contains(r))
                    .ok_or_else(|| at(ItemProblem::Rate))?;
                Layer::Dropout { rate }
            }
            name => match ACTIVATIONS.iter().find(|(n, _)| *n == name) {
                Some(&(_, kind)) => Layer::Activation { kind },
                None => return Err(at(ItemProblem::Unknown(name.to_string()))),
            },
        };
        if words.len() > 1
            && matches!(
                layer,
                Layer::Activation { .. } | Layer::Flatten | Layer::LayerNorm
            )
        {
            return Err(at(ItemProblem::NoNumbers));
        }
        layers.push(layer);
    }
    Ok(layers)
}

/// The layer list written back in the same language (flatten left implicit).
pub fn format(layers: &[Layer]) -> String {
    layers
        .iter()
        .filter(|l| !matches!(l, Layer::Flatten | Layer::SkipFrom | Layer::SkipAdd { .. }))
        .map(|l| match l {
            Layer::Conv2d {
                filters,
                kernel,
                stride,
                padding,
            } => {
                let mut s = format!("conv {filters} {kernel}x{kernel}");
                if *stride != 1 {
                    s += &format!(" s{stride}");
                }
                if *padding != 0 {
                    s += &format!(" p{padding}");
                }
                s
            }
            Layer::Pool { kind, size, .. } => {
                format!(
                    "{} {size}",
                    if *kind == PoolKind::Max {
                        "maxpool"
                    } else {
                        "avgpool"
                    }
                )
            }
            Layer::Dense { units } => format!("dense {units}"),
            Layer::Dropout { rate } => format!("dropout {rate}"),
            Layer::Activation { kind } => ACTIVATIONS
                .iter()
                .find(|(_, k)| k == kind)
                .map_or("linear", |(n, _)| n)
                .to_string(),
            Layer::BatchNorm { momentum } if *momentum == BN_MOMENTUM => "bn".into(),
            Layer::BatchNorm { momentum } => format!("bn {momentum}"),
            Layer::LayerNorm => "ln".into(),
            Layer::Residual { layers, projection } => {
                format!(
                    "res {}[{}]",
                    if *projection { "proj " } else { "" },
                    format(layers)
                )
            }
            Layer::Flatten | Layer::SkipFrom | Layer::SkipAdd { .. } => String::new(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The vision lab's architectures, with the epochs each is meant to train.
pub const PRESETS: [(&str, &str, &str, usize); 5] = [
    ("mlp", "MLP 784-128-10", "dense 128, relu, dense 10", 3),
    (
        "lenet",
        "LeNet-like CNN",
        "conv 6 5x5 p2, relu, maxpool 2, conv 16 5x5, relu, maxpool 2, dense 120, relu, dense 84, relu, dense 10",
        3,
    ),
    (
        "deeper",
        "deeper small CNN",
        "conv 16 3x3 p1, relu, conv 16 3x3 p1, relu, maxpool 2, conv 32 3x3 p1, relu, maxpool 2, dense 64, relu, dense 10",
        3,
    ),
    // A ResNet-8 in the manner of He et al.'s CIFAR networks (a stem, three stages of one block,
    // global average pooling), narrowed to 8-16-32 channels for the browser; and the same layers
    // without the skips, the pair Li et al. compare.
    (
        "resnet8",
        "ResNet-8 (batch norm, skips)",
        "conv 8 3x3 p1, bn, relu, res [conv 8 3x3 p1, bn, relu, conv 8 3x3 p1, bn], relu, \
         res proj [conv 16 3x3 s2 p1, bn, relu, conv 16 3x3 p1, bn], relu, \
         res proj [conv 32 3x3 s2 p1, bn, relu, conv 32 3x3 p1, bn], relu, avgpool 7, dense 10",
        2,
    ),
    (
        "plain8",
        "Plain-8 (ResNet-8 without skips)",
        "conv 8 3x3 p1, bn, relu, conv 8 3x3 p1, bn, relu, conv 8 3x3 p1, bn, relu, \
         conv 16 3x3 s2 p1, bn, relu, conv 16 3x3 p1, bn, relu, \
         conv 32 3x3 s2 p1, bn, relu, conv 32 3x3 p1, bn, relu, avgpool 7, dense 10",
        2,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_parse_and_round_trip() {
        for (_, _, text, _) in PRESETS {
            let layers = parse(text, 10).unwrap();
            assert_eq!(format(&layers), text);
            assert_eq!(parse(&format(&layers), 10).unwrap(), layers);
        }
        let lenet = parse(PRESETS[1].2, 10).unwrap();
        assert_eq!(
            lenet[0],
            Layer::Conv2d {
                filters: 6,
                kernel: 5,
                stride: 1,
                padding: 2
            }
        );
        assert_eq!(
            lenet[6],
            Layer::Flatten,
            "flatten goes in before the first dense layer"
        );
    }

    #[test]
    fn mistakes_name_the_item() {
        for (text, expected) in [
            (
                "conv 6 5x4, dense 10",
                "item 1 ('conv 6 5x4'): kernels are square",
            ),
            ("conv 0 3x3, dense 10", "item 1 ('conv 0 3x3'): the filter count"),
            ("relu,, dense 10", "item 2 (''): empty"),
            ("conv 6 3x3 q1, dense 10", "'q1' is not a kernel"),
            ("dense 32, softmax, dense 10", "unknown layer 'softmax'"),
            (
                "dense 32, relu 3, dense 10",
                "item 2 ('relu 3'): takes no numbers",
            ),
            ("dropout 1.5, dense 10", "the rate must be"),
            ("dense 32, relu", "the last layer must be 'dense 10'"),
            ("dense 32, dense 7", "the last layer must be 'dense 10'"),
            ("bn 2, dense 10", "the momentum must be a number from 0 to 1"),
            ("ln 3, dense 10", "takes no numbers"),
            ("res [dense 4, dense 10", "a '[' without its ']'"),
            ("res dense 4], dense 10", "a ']' without its '['"),
            ("block [dense 4], dense 10", "a block is written 'res [layers]'"),
            ("res [dense 4] relu, dense 10", "nothing may follow a block's ']'"),
            (
                "res [dense 4, blah], dense 10",
                "item 1 ('res [dense 4, blah]'): in the block: item 2 ('blah'): unknown layer",
            ),
        ] {
            let e = parse(text, 10).unwrap_err().to_string();
            assert!(e.contains(expected), "{text}: {e}");
        }
    }

    #[test]
    fn normalization_and_residual_blocks_parse_compile_and_round_trip() {
        let text = "conv 8 3x3 p1, bn, relu, res [conv 8 3x3 p1, bn 0.05, relu, conv 8 3x3 p1, bn], relu, \
                    res proj [conv 16 3x3 s2 p1, ln], relu, dense 10";
        let layers = parse(text, 10).unwrap();
        assert_eq!(
            format(&layers),
            text.replace("\n", "")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        );
        assert_eq!(parse(&format(&layers), 10).unwrap(), layers);
        assert_eq!(
            layers[1],
            Layer::BatchNorm {
                momentum: BN_MOMENTUM
            }
        );
        let Layer::Residual {
            layers: inner,
            projection: false,
        } = &layers[3]
        else {
            panic!("{:?}", layers[3]);
        };
        assert_eq!(inner[1], Layer::BatchNorm { momentum: 0.05 });
        let spec = engine::model::ModelSpec {
            input: [1, 28, 28],
            layers,
        };
        let c = spec.compile().unwrap();
        // The second block halves the image and doubles the channels through its projection.
        let end = c
            .layers
            .iter()
            .rev()
            .find(|l| matches!(l.layer, Layer::SkipAdd { .. }))
            .unwrap();
        assert_eq!(
            (end.out_shape, end.skip_shape, end.w_shape()),
            ([16, 14, 14], [8, 28, 28], vec![16, 8, 1, 1])
        );
        // An identity skip around a block that changes the shape is refused with the reason.
        let bad = parse("res [conv 8 3x3], dense 10", 10).unwrap();
        let e = engine::model::ModelSpec {
            input: [1, 28, 28],
            layers: bad,
        }
        .compile()
        .unwrap_err();
        assert!(
            e.to_string().contains("an identity skip needs the same shape"),
            "{e}"
        );
    }
}
