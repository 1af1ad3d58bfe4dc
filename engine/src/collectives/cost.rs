//! The α-β-γ (Hockney) cost of a schedule over a topology's links (docs/theory.md §6.2).

use serde::{Deserialize, Serialize};

use super::Schedule;

/// One class of link in the Hockney model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// Seconds per message.
    pub alpha: f64,
    /// Seconds per byte sent.
    pub beta: f64,
    /// Seconds per byte reduced.
    pub gamma: f64,
}

impl Link {
    /// Presets: latency and bandwidth of common links (bandwidth per direction), and the
    /// reduction speed of a GPU adding bytes (γ ≈ 1 / 200 GB/s).
    pub fn preset(name: &str) -> Option<Link> {
        let (alpha, gb_per_s) = match name {
            "nvlink" => (1e-6, 150.0),
            "pcie" => (2e-6, 16.0),
            "infiniband" => (2e-6, 25.0),
            "100gbe" => (10e-6, 12.5),
            "10gbe" => (25e-6, 1.25),
            "wifi" => (2e-3, 0.05),
            _ => return None,
        };
        Some(Link {
            alpha,
            beta: 1.0 / (gb_per_s * 1e9),
            gamma: 1.0 / 200e9,
        })
    }

    pub const PRESETS: [&'static str; 6] = ["nvlink", "pcie", "infiniband", "100gbe", "10gbe", "wifi"];
}

/// The network: `gpus_per_node` workers share a node and talk over `intra`; nodes (and parameter
/// servers) talk over `inter`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    pub gpus_per_node: usize,
    pub intra: Link,
    pub inter: Link,
}

impl Topology {
    /// One link class for everything.
    pub fn flat(link: Link) -> Self {
        Topology {
            gpus_per_node: 1,
            intra: link,
            inter: link,
        }
    }

    fn link(&self, s: &Schedule, a: usize, b: usize) -> Link {
        let g = self.gpus_per_node.max(1);
        if a < s.workers && b < s.workers && a / g == b / g {
            self.intra
        } else {
            self.inter
        }
    }
}

/// What a schedule costs on a topology.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Seconds of each step.
    pub step_seconds: Vec<f64>,
    pub seconds: f64,
    /// Bytes on the wire, all messages together.
    pub bytes: f64,
}

/// Charges each step of a schedule under the one-port Hockney α-β-γ model (docs/theory.md §6.2):
/// messages of one step go at once, but each node sends one message at a time and receives one at
/// a time (links are full duplex), so a node's step time is the larger of its sending and its
/// receiving side — one α per message plus its bytes at β — plus the bytes it reduces at γ. A
/// parameter server receiving p messages therefore pays p·α, as the closed forms of §6.2 say.
pub fn cost(s: &Schedule, topology: &Topology, bytes_per_element: f64) -> Cost {
    let nodes = s.workers + s.servers;
    let mut step_seconds = Vec::with_capacity(s.steps.len());
    let mut bytes = 0.0;
    for step in &s.steps {
        let (mut sent, mut received, mut reduced) = (vec![0.0; nodes], vec![0.0; nodes], vec![0.0; nodes]);
        for m in step {
            let link = topology.link(s, m.from, m.to);
            let b = m.len as f64 * bytes_per_element;
            bytes += b;
            let seconds = link.alpha + b * link.beta;
            sent[m.from] += seconds;
            received[m.to] += seconds;
            if m.reduce {
                reduced[m.to] += b * link.gamma;
            }
        }
        let busiest = (0..nodes)
            .map(|i| sent[i].max(received[i]) + reduced[i])
            .fold(0.0, f64::max);
        step_seconds.push(busiest);
    }
    Cost {
        seconds: step_seconds.iter().sum(),
        step_seconds,
        bytes,
    }
}
