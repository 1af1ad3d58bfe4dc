//! A user's own 2-D points as CSV: one `x,y,label` row per point, labels 0, 1, 2, …; an optional
//! header row, blank lines and `#` comments are skipped. Errors name the line and the problem, so
//! the page can say exactly what to fix (and keep the last good data meanwhile).

use super::Dataset;

/// Most classes a CSV may use (the palette and the lab's views are built for this many).
pub const MAX_CLASSES: usize = 10;

pub fn parse_points(text: &str) -> Result<Dataset, String> {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != 3 {
            return Err(format!(
                "line {line_no}: expected 3 values (x,y,label), found {}",
                fields.len()
            ));
        }
        let coords: Result<Vec<f32>, _> = fields[..2].iter().map(|f| f.parse::<f32>()).collect();
        let coords = match coords {
            // A first row of words is a header.
            Err(_) if y.is_empty() && fields.iter().all(|f| f.parse::<f64>().is_err()) => continue,
            Err(_) => {
                return Err(format!(
                    "line {line_no}: x and y must be numbers, found '{}' and '{}'",
                    fields[0], fields[1]
                ))
            }
            Ok(c) => c,
        };
        if coords.iter().any(|c| !c.is_finite()) {
            return Err(format!("line {line_no}: x and y must be finite numbers"));
        }
        let label: u32 = fields[2].parse().map_err(|_| {
            format!(
                "line {line_no}: the label must be a class number 0–{}, found '{}'",
                MAX_CLASSES - 1,
                fields[2]
            )
        })?;
        if label as usize >= MAX_CLASSES {
            return Err(format!(
                "line {line_no}: label {label} is out of range (0–{})",
                MAX_CLASSES - 1
            ));
        }
        x.extend(coords);
        y.push(label);
    }
    if y.len() < 2 {
        return Err("the file needs at least two points".into());
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
        let err = |t| parse_points(t).unwrap_err();
        assert_eq!(
            err("0,0,0\n1,1\n"),
            "line 2: expected 3 values (x,y,label), found 2"
        );
        assert!(err("0,0,0\n1,abc,1\n").starts_with("line 2: x and y must be numbers"));
        assert!(err("0,0,0\n1,1,-1\n").starts_with("line 2: the label must be a class number"));
        assert!(err("0,0,0\n1,1,12\n").starts_with("line 2: label 12 is out of range"));
        assert!(err("0,0,0\n1,inf,1\n").starts_with("line 2: x and y must be finite"));
        assert_eq!(err("x,y,label\n0,0,1\n"), "the file needs at least two points");
    }
}
