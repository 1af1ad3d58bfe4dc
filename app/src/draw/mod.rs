//! Drawing on canvases: the decision-boundary heatmap and the loss chart.

pub mod heatmap;
pub mod loss_chart;

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
