//! The colours the labs draw with, from Okabe and Ito's palette, and the check that they stay
//! apart for students with colour-vision deficiencies: each palette is seen through Machado,
//! Oliveira and Fernandes' (2009) full-severity protanopia, deuteranopia and tritanopia matrices
//! and every pair must keep a CIELAB distance (ΔE*ab) of at least `MIN_DELTA_E`.

pub type Rgb = (u8, u8, u8);

/// Classes in the playground and racers in the optimizer lab (first five).
pub const CLASSES: [Rgb; 5] = [
    (230, 159, 0),
    (0, 114, 178),
    (0, 158, 115),
    (204, 121, 167),
    (86, 180, 233),
];
/// The optimizer lab's seven racers: the classes, then black and vermilion.
pub const RACERS: [Rgb; 7] = [
    CLASSES[0],
    CLASSES[1],
    CLASSES[2],
    CLASSES[3],
    CLASSES[4],
    (0, 0, 0),
    (213, 94, 0),
];
/// The cluster lab's seven allreduce algorithms (dark grey, not mid grey: mid grey and bluish
/// green come within ΔE 11 of each other for deuteranopes).
pub const SERIES: [Rgb; 7] = [
    (0, 114, 178),
    (230, 159, 0),
    (0, 158, 115),
    (204, 121, 167),
    (86, 180, 233),
    (213, 94, 0),
    (60, 60, 60),
];
/// Runs compared on one chart (the scaling lab's sweep, the cluster lab's runs): the seven series,
/// then violet, brown and a dark purple, chosen as the colours farthest (in the worst vision's
/// ΔE) from those already taken, among colours dark enough to read on white.
pub const RUNS: [Rgb; 10] = [
    SERIES[0],
    SERIES[1],
    SERIES[2],
    SERIES[3],
    SERIES[4],
    SERIES[5],
    SERIES[6],
    (150, 0, 255),
    (105, 45, 0),
    (75, 0, 90),
];
/// Two-series charts (train and test, before and after): blue and vermilion.
pub const PAIR: [Rgb; 2] = [(0, 114, 178), (213, 94, 0)];

/// The smallest colour distance allowed between two colours of one palette, for every vision.
pub const MIN_DELTA_E: f64 = 15.0;

#[derive(Clone, Copy, Debug)]
pub enum Vision {
    Typical,
    Protanopia,
    Deuteranopia,
    Tritanopia,
}

impl Vision {
    pub const ALL: [Vision; 4] = [
        Vision::Typical,
        Vision::Protanopia,
        Vision::Deuteranopia,
        Vision::Tritanopia,
    ];

    /// Machado et al. 2009, severity 1, on linear RGB.
    fn matrix(self) -> [[f64; 3]; 3] {
        match self {
            Vision::Typical => [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            Vision::Protanopia => [
                [0.152286, 1.052583, -0.204868],
                [0.114503, 0.786281, 0.099216],
                [-0.003882, -0.048116, 1.051998],
            ],
            Vision::Deuteranopia => [
                [0.367322, 0.860646, -0.227968],
                [0.280085, 0.672501, 0.047413],
                [-0.011820, 0.042940, 0.968881],
            ],
            Vision::Tritanopia => [
                [1.255528, -0.076749, -0.178779],
                [-0.078411, 0.930809, 0.147602],
                [0.004733, 0.691367, 0.303900],
            ],
        }
    }
}

fn to_linear(c: u8) -> f64 {
    let c = c as f64 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// A colour as seen with `vision`, in linear RGB.
pub fn seen(c: Rgb, vision: Vision) -> [f64; 3] {
    let l = [to_linear(c.0), to_linear(c.1), to_linear(c.2)];
    let m = vision.matrix();
    m.map(|row| (row[0] * l[0] + row[1] * l[1] + row[2] * l[2]).clamp(0.0, 1.0))
}

/// CIELAB (D65) of a linear-RGB colour.
pub fn lab(rgb: [f64; 3]) -> [f64; 3] {
    let [r, g, b] = rgb;
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 216.0 / 24389.0 {
            t.cbrt()
        } else {
            (24389.0 / 27.0 * t + 16.0) / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// The smallest ΔE*ab between two colours of `palette` as seen with `vision`.
pub fn min_distance(palette: &[Rgb], vision: Vision) -> f64 {
    let labs: Vec<[f64; 3]> = palette.iter().map(|&c| lab(seen(c, vision))).collect();
    let mut best = f64::INFINITY;
    for (i, a) in labs.iter().enumerate() {
        for b in &labs[i + 1..] {
            let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
            best = best.min(d);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_palette_stays_apart_for_every_vision() {
        for (name, palette) in [
            ("classes", &CLASSES[..]),
            ("racers", &RACERS[..]),
            ("series", &SERIES[..]),
            ("runs", &RUNS[..]),
            ("pair", &PAIR[..]),
        ] {
            for vision in Vision::ALL {
                let d = min_distance(palette, vision);
                assert!(d >= MIN_DELTA_E, "{name} with {vision:?}: closest pair ΔE {d:.1}");
            }
        }
    }

    #[test]
    fn the_check_catches_a_palette_that_fails() {
        // Red and green, the classic confusion: apart for typical vision, not for deuteranopes.
        let red_green = [(213, 94, 0), (0, 158, 115), (120, 120, 120)];
        assert!(min_distance(&red_green[..2], Vision::Typical) > 50.0);
        assert!(min_distance(&[(200, 60, 60), (110, 110, 40)], Vision::Deuteranopia) < MIN_DELTA_E);
        assert!(
            min_distance(&red_green[1..], Vision::Deuteranopia) < MIN_DELTA_E,
            "the grey it replaced"
        );
        // Lab of white is (100, 0, 0).
        let w = lab(seen((255, 255, 255), Vision::Typical));
        assert!(
            (w[0] - 100.0).abs() < 0.1 && w[1].abs() < 0.1 && w[2].abs() < 0.1,
            "{w:?}"
        );
    }
}
