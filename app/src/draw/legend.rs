//! Legends in a band under the chart, so no key ever covers the data it names (plotters' own
//! series labels are drawn inside the plot, over whatever lies there).

use plotters::coord::Shift;
use plotters::prelude::*;

/// One key: a short line in the series' colour (dashed for reference lines) and its name.
pub struct Key {
    pub label: String,
    pub color: RGBColor,
    pub dashed: bool,
}

impl Key {
    pub fn line(label: impl Into<String>, color: RGBColor) -> Self {
        Self {
            label: label.into(),
            color,
            dashed: false,
        }
    }

    pub fn dashed(label: impl Into<String>, color: RGBColor) -> Self {
        Self {
            dashed: true,
            ..Self::line(label, color)
        }
    }
}

const ROW: i32 = 18;
const SWATCH: i32 = 18;
const GAP: i32 = 16;
const EDGE: i32 = 10;

/// Draws `keys` in rows (wrapped to the width) along the bottom of `root` and returns the area
/// above them, where the chart goes.
pub fn below<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, keys: &[Key]) -> DrawingArea<DB, Shift> {
    if keys.is_empty() {
        return root.clone();
    }
    let (w, h) = root.dim_in_pixel();
    let font: TextStyle = ("sans-serif", 12).into_font().color(&RGBColor(40, 40, 40));
    let widths = keys.iter().map(|k| {
        let text = root
            .estimate_text_size(&k.label, &font)
            .map_or(k.label.chars().count() as i32 * 7, |s| s.0 as i32);
        SWATCH + 6 + text + GAP
    });
    let mut rows: Vec<Vec<(usize, i32)>> = vec![Vec::new()];
    let mut x = EDGE;
    for (i, kw) in widths.enumerate() {
        let row = rows.last_mut().expect("a row");
        if x + kw > w as i32 - EDGE && !row.is_empty() {
            rows.push(Vec::new());
            x = EDGE;
        }
        rows.last_mut().expect("a row").push((i, x));
        x += kw;
    }
    let band = rows.len() as i32 * ROW + 6;
    let (chart, strip) = root.split_vertically(h as i32 - band);
    let centred = font.pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Left,
        plotters::style::text_anchor::VPos::Center,
    ));
    for (r, row) in rows.iter().enumerate() {
        let y = 4 + r as i32 * ROW + ROW / 2;
        for &(i, x) in row {
            let key = &keys[i];
            let style = key.color.stroke_width(2);
            if key.dashed {
                for dx in [0, 7, 14] {
                    let _ = strip.draw(&PathElement::new(vec![(x + dx, y), (x + dx + 4, y)], style));
                }
            } else {
                let _ = strip.draw(&PathElement::new(vec![(x, y), (x + SWATCH, y)], style));
            }
            let _ = strip.draw(&Text::new(
                key.label.clone(),
                (x + SWATCH + 6, y),
                centred.clone(),
            ));
        }
    }
    chart
}
