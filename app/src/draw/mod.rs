//! Drawing on canvases: the decision-boundary heatmap and the loss chart.

pub mod heatmap;
pub mod loss_chart;
pub mod network;

/// Okabe–Ito colours: distinguishable with the common forms of colour blindness.
pub const CLASS_COLORS: [(u8, u8, u8); 5] = [
    (230, 159, 0),
    (0, 114, 178),
    (0, 158, 115),
    (204, 121, 167),
    (86, 180, 233),
];

pub fn css(rgb: (u8, u8, u8)) -> String {
    format!("rgb({},{},{})", rgb.0, rgb.1, rgb.2)
}

/// A value's colour: its sign picks orange (above zero) or blue (below), its size the strength;
/// values beyond ±1 saturate. For regression outputs and for what neurons compute.
pub fn value_color(v: f32) -> (u8, u8, u8) {
    let col = if v >= 0.0 {
        CLASS_COLORS[0]
    } else {
        CLASS_COLORS[1]
    };
    let t = v.abs().min(1.0) * 0.8;
    let mix = |c: u8| (255.0 * (1.0 - t) + c as f32 * t) as u8;
    (mix(col.0), mix(col.1), mix(col.2))
}
