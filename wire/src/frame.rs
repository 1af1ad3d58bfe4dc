//! A worker's gradient for one step as one binary message (a WebSocket frame), little-endian:
//!
//! | bytes | field |
//! | --- | --- |
//! | 4 | `LTG1`: what the message is, and the format's version |
//! | 4 | the run (the class server's id for it) |
//! | 4 | the step, from 1 |
//! | 2 | the worker's rank |
//! | 2 | reserved, 0 |
//! | 4 | the rows the gradient was computed on |
//! | 4 | the sum of those rows' losses (f32) |
//! | 4 | the count of gradient values that follow |
//! | 4 × count | the sum of those rows' gradients, one f32 per parameter |
//!
//! Sums rather than means, so the reduction is a plain sum in rank order and one division by the
//! rows (shards differ in size by a row when the batch does not divide). A frame is checked for
//! size before any value is read: the count must be the run's parameter count and the message
//! exactly that long.

use thiserror::Error;

/// The first four bytes of every gradient frame.
pub const MAGIC: [u8; 4] = *b"LTG1";
/// The bytes before the values.
pub const HEADER: usize = 28;

/// One worker's gradient for one step.
#[derive(Clone, Debug, PartialEq)]
pub struct GradientFrame {
    pub run: u32,
    pub step: u32,
    pub rank: u16,
    /// The rows of the step's batch this gradient sums over.
    pub rows: u32,
    pub loss_sum: f32,
    /// The sum of the rows' gradients, one value per parameter.
    pub values: Vec<f32>,
}

/// Why a message is not a gradient frame of the run; the server names it (and the worker) on the
/// dashboard.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum FrameError {
    #[error("{0} bytes: shorter than a gradient frame's {HEADER}-byte header")]
    Short(usize),
    #[error("not a gradient frame (it does not start with LTG1)")]
    NotAFrame,
    #[error("{got} gradient values for a model of {expected} parameters")]
    WrongCount { got: u32, expected: u32 },
    #[error("{got} bytes for {count} values: a frame of them is {expected} bytes")]
    WrongLength { got: usize, count: u32, expected: u64 },
}

impl GradientFrame {
    /// The frame as bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + 4 * self.values.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&self.run.to_le_bytes());
        out.extend_from_slice(&self.step.to_le_bytes());
        out.extend_from_slice(&self.rank.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&self.rows.to_le_bytes());
        out.extend_from_slice(&self.loss_sum.to_le_bytes());
        out.extend_from_slice(&(self.values.len() as u32).to_le_bytes());
        for v in &self.values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Reads a frame for a model of `params` parameters, refusing any other size before reading
    /// a value.
    pub fn decode(bytes: &[u8], params: u32) -> Result<GradientFrame, FrameError> {
        if bytes.len() < HEADER {
            return Err(FrameError::Short(bytes.len()));
        }
        if bytes[..4] != MAGIC {
            return Err(FrameError::NotAFrame);
        }
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let count = word(24);
        if count != params {
            return Err(FrameError::WrongCount {
                got: count,
                expected: params,
            });
        }
        // In u64: a count near u32::MAX times 4 does not wrap on 32-bit wasm.
        let expected = HEADER as u64 + 4 * u64::from(count);
        if bytes.len() as u64 != expected {
            return Err(FrameError::WrongLength {
                got: bytes.len(),
                count,
                expected,
            });
        }
        Ok(GradientFrame {
            run: word(4),
            step: word(8),
            rank: u16::from_le_bytes([bytes[12], bytes[13]]),
            rows: word(16),
            loss_sum: f32::from_bits(word(20)),
            values: bytes[HEADER..]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        })
    }
}
