//! The landscape lab's settings table, with its short URL keys (`net`, `pg`, `data`); a control's
//! name is its test id without `land-`.

use super::{Data, Landscape, Network, BATCHES};
use crate::playground::Playground;
use crate::table::{field, hide_field, no_check, ranged, Setting, Table};

fn unknown_choice(key: &str, raw: &str) -> String {
    format!("{key}={raw} is not a known choice: ignored")
}

impl Table for Landscape {
    const SETTINGS: &'static [Setting<Self>] = &[
        Setting {
            key: "net",
            hides: Some("network"),
            write: |s| s.network.key().into(),
            // A network brings its own epoch budget and target, unless the link sets them (their
            // rows come later).
            read: |s, raw, notices| match Network::from_key(raw.trim()) {
                Some(n) => s.set_network_defaults(n),
                None => notices.push(unknown_choice("net", raw)),
            },
            check: no_check,
        },
        Setting {
            key: "data",
            hides: Some("dataset"),
            write: |s| s.data.key().into(),
            read: |s, raw, notices| match Data::from_key(raw.trim()) {
                Some(d) => s.data = d,
                None => notices.push(unknown_choice("data", raw)),
            },
            check: no_check,
        },
        Setting {
            key: "pg",
            hides: None,
            write: |s| s.playground.to_query(),
            // The playground's network trains at the playground's batch unless the link says.
            read: |s, raw, notices| {
                let (p, n) = Playground::from_query(raw);
                notices.extend(n.into_iter().map(|n| format!("playground: {n}")));
                if s.network == Network::Playground {
                    s.batch = p.batch;
                }
                s.playground = p;
            },
            check: |s, notices| {
                let (p, n) = s.playground.clone().checked();
                notices.extend(n.into_iter().map(|n| format!("playground: {n}")));
                s.playground = p;
            },
        },
        ranged!("batch", batch, 1, 4096),
        field!("compare", |s, notices| {
            if s.compare != 0 && !BATCHES.contains(&s.compare) {
                notices.push(format!("compare={} is not offered: ignored", s.compare));
                s.compare = Landscape::default().compare;
            }
        }),
        field!("plane"),
        ranged!("res", res, 3, 41),
        ranged!("epochs", epochs, 1, 200),
        ranged!("target", target, 0.0, 10.0),
        ranged!("seed", seed, 0, crate::lab::MAX_SEED),
        field!("backend"),
    ];
    const OTHER_CONTROLS: &'static [&'static str] = &["run", "cancel", "share", "keskar", "skips", "lesson"];

    hide_field!();

    /// The built-in networks read only their kind of data.
    fn relate(&mut self, notices: &mut Vec<String>) {
        if self.network.reads_images() && !self.data.is_images() {
            notices.push(format!(
                "the {} network reads images, not {}: using MNIST",
                self.network.key(),
                self.data.label()
            ));
            self.data = Data::Mnist;
        } else if self.network == Network::Toy && self.data.is_images() {
            notices.push(format!(
                "the 2-D network cannot read {}: using the image MLP",
                self.data.label()
            ));
            self.network = Network::Mlp;
        }
    }
}
