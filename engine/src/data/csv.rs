//! A user's own 2-D points as CSV: one `x,y,label` row per point, labels 0, 1, 2, …; an optional
//! header row, blank lines and `#` comments are skipped. Errors name the line and the problem, so
//! the page can say exactly what to fix (and keep the last good data meanwhile).

use super::Dataset;

/// Most classes a CSV may use (the palette and the lab's views are built for this many).
pub const MAX_CLASSES: usize = 10;

/// Why a points file was refused; `line` counts from 1 as an editor does.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PointsError {
    #[error("line {line}: expected 3 values (x,y,label), found {found}")]
    Fields { line: u64, found: usize },
    #[error("line {line}: x and y must be numbers, found '{x}' and '{y}'")]
    NotNumbers { line: u64, x: String, y: String },
    #[error("line {line}: x and y must be finite numbers")]
    NotFinite { line: u64 },
    #[error("line {line}: the label must be a class number 0–{}, found '{found}'", MAX_CLASSES - 1)]
    Label { line: u64, found: String },
    #[error("line {line}: label {label} is out of range (0–{})", MAX_CLASSES - 1)]
    LabelRange { line: u64, label: u32 },
    #[error("the file needs at least two points")]
    TooFew,
    #[error("not readable as CSV: {0}")]
    Unreadable(String),
}

pub fn parse_points(text: &str) -> Result<Dataset, PointsError> {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    for record in reader.records() {
        let record = record.map_err(|e| PointsError::Unreadable(e.to_string()))?;
        let line = record.position().map_or(0, |p| p.line());
        let fields: Vec<&str> = record.iter().collect();
        if fields.iter().all(|f| f.is_empty()) {
            continue;
        }
        if fields.len() != 3 {
            return Err(PointsError::Fields {
                line,
                found: fields.len(),
            });
        }
        let coords: Result<Vec<f32>, _> = fields[..2].iter().map(|f| f.parse::<f32>()).collect();
        let coords = match coords {
            // A first row of words is a header.
            Err(_) if y.is_empty() && fields.iter().all(|f| f.parse::<f64>().is_err()) => continue,
            Err(_) => {
                return Err(PointsError::NotNumbers {
                    line,
                    x: fields[0].into(),
                    y: fields[1].into(),
                })
            }
            Ok(c) => c,
        };
        if coords.iter().any(|c| !c.is_finite()) {
            return Err(PointsError::NotFinite { line });
        }
        let label: u32 = fields[2].parse().map_err(|_| PointsError::Label {
            line,
            found: fields[2].into(),
        })?;
        if label as usize >= MAX_CLASSES {
            return Err(PointsError::LabelRange { line, label });
        }
        x.extend(coords);
        y.push(label);
    }
    if y.len() < 2 {
        return Err(PointsError::TooFew);
    }
    let classes = y.iter().max().map_or(0, |&m| m as usize + 1).max(2);
    Ok(Dataset {
        x,
        y,
        dim: 2,
        classes,
        targets: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_points_with_header_comments_and_blank_lines() {
        let d = parse_points("x,y,label\n# a comment\n0.5, -0.25, 1\n\n-1,1,0\n0,0,2\n").unwrap();
        assert_eq!(d.x, vec![0.5, -0.25, -1.0, 1.0, 0.0, 0.0]);
        assert_eq!(d.y, vec![1, 0, 2]);
        assert_eq!(d.classes, 3);
    }

    #[test]
    fn errors_name_the_line_and_the_problem() {
        use PointsError::*;
        let err = |t| parse_points(t).unwrap_err();
        assert_eq!(err("0,0,0\n1,1\n"), Fields { line: 2, found: 2 });
        assert_eq!(
            err("0,0,0\n1,1\n").to_string(),
            "line 2: expected 3 values (x,y,label), found 2"
        );
        assert!(matches!(err("0,0,0\n1,abc,1\n"), NotNumbers { line: 2, .. }));
        assert!(matches!(err("0,0,0\n1,1,-1\n"), Label { line: 2, .. }));
        assert_eq!(err("0,0,0\n1,1,12\n"), LabelRange { line: 2, label: 12 });
        assert_eq!(err("0,0,0\n1,inf,1\n"), NotFinite { line: 2 });
        assert_eq!(err("x,y,label\n0,0,1\n"), TooFew);
        // A comment line still counts, so the number is the editor's line.
        assert_eq!(err("# note\n0,0,0\n1,1\n"), Fields { line: 3, found: 2 });
    }
}
