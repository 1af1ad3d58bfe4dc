//! Why a layer list does not parse (`layers::parse`): the list as a whole, or one of its items
//! and what is wrong with it. The page and the settings' notices say it in words.

use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Error)]
pub enum LayerError {
    #[error("the last layer must be 'dense {classes}': one output per class")]
    LastNotClasses { classes: usize },
    #[error("a ']' without its '[' in '{0}'")]
    Unopened(String),
    #[error("a '[' without its ']' in '{0}'")]
    Unclosed(String),
    /// Item `number` (from 1) of the list, as written.
    #[error("item {number} ('{text}'): {problem}")]
    Item {
        number: usize,
        text: String,
        problem: ItemProblem,
    },
}

/// What is wrong with one item of a layer list.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ItemProblem {
    #[error("empty (two commas in a row?)")]
    Empty,
    #[error("a block is written 'res [layers]' or 'res proj [layers]'")]
    BlockHead,
    #[error("nothing may follow a block's ']'")]
    AfterBlock,
    #[error("in the block: {0}")]
    InBlock(Box<LayerError>),
    #[error("{what} must be a whole number from {lo} to {hi}")]
    Number {
        what: &'static str,
        lo: usize,
        hi: usize,
    },
    #[error("kernels are square (write 5x5)")]
    NotSquare,
    #[error("'{0}' is not a kernel (5x5), stride (s2) or padding (p1)")]
    ConvWord(String),
    #[error("the momentum must be a number from 0 to 1 (bn 0.1)")]
    Momentum,
    #[error("the rate must be a number from 0 to below 1")]
    Rate,
    #[error(
        "unknown layer '{0}' (conv, maxpool, avgpool, dense, flatten, dropout, bn, ln, res [..], \
         relu, tanh, sigmoid, leaky, linear)"
    )]
    Unknown(String),
    #[error("takes no numbers")]
    NoNumbers,
}
