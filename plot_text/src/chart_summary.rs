//! A chart's text alternative, read from the CSV it downloads: a screen reader cannot see a canvas,
//! so each chart says in a sentence or two what it shows now ("optimizer sgd: loss 0.21 at step
//! 400, falling from 2.3"). The CSV is the chart's own data, so the words never disagree with the
//! picture.
//!
//! Convention: the leading text columns name a series (run, optimizer, layout); the first numeric
//! column after them is the horizontal axis when it strictly rises within each series (step,
//! update, workers); the next numeric column is the quantity the summary follows. A table without
//! such an axis (a map, a histogram) is summarized by the range of its loss column, or else of its
//! last column.

/// Series named in full before the rest are counted.
const MAX_SERIES: usize = 4;

/// The summary of the chart whose CSV (header line, then rows) is `csv`; None for a table with
/// no rows.
pub fn summarize(csv: &str) -> Option<String> {
    let mut lines = csv.lines().filter(|l| !l.trim().is_empty());
    let header = split(lines.next()?);
    let rows: Vec<Vec<String>> = lines.map(split).collect();
    if rows.is_empty() {
        return None;
    }
    let numeric = |c: usize| {
        rows.iter()
            .all(|r| r.get(c).is_some_and(|v| v.parse::<f64>().is_ok()))
    };
    let groups = (0..header.len()).take_while(|&c| !numeric(c)).count();
    let numbers: Vec<usize> = (groups..header.len()).filter(|&c| numeric(c)).collect();
    let count = format!("{} {}", rows.len(), if rows.len() == 1 { "row" } else { "rows" });
    let (Some(&first), Some(&second)) = (numbers.first(), numbers.get(1)) else {
        return Some(format!("{count} of {}.", header.join(", ")));
    };
    let series = series_of(&rows, groups);
    let rising = series
        .iter()
        .all(|(_, rs)| rs.windows(2).all(|w| value(w[0], first) < value(w[1], first)));
    let mut parts = vec![count + "."];
    if rising && groups + 1 < header.len() {
        for (name, rs) in series.iter().take(MAX_SERIES) {
            let (start, last) = (rs[0], rs[rs.len() - 1]);
            let mut s = format!(
                "{} {} at {} {}",
                header[second],
                num(value(last, second)),
                header[first],
                num(value(last, first))
            );
            if rs.len() > 1 {
                s += &trend(value(start, second), value(last, second));
            }
            parts.push(if name.is_empty() {
                s + "."
            } else {
                format!("{name}: {s}.")
            });
        }
        if series.len() > MAX_SERIES {
            parts.push(format!("{} more series in the table.", series.len() - MAX_SERIES));
        }
    } else {
        // A loss, where the table has one, is what a reader asks of a map first.
        let col = numbers
            .iter()
            .copied()
            .find(|&c| header[c].contains("loss"))
            .unwrap_or(numbers[numbers.len() - 1]);
        let values = rows.iter().map(|r| value(r, col));
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        parts.push(format!("{} from {} to {}.", header[col], num(lo), num(hi)));
    }
    Some(parts.join(" "))
}

/// Rows grouped by their leading text columns, in order of first appearance.
fn series_of(rows: &[Vec<String>], groups: usize) -> Vec<(String, Vec<&Vec<String>>)> {
    let mut series: Vec<(String, Vec<&Vec<String>>)> = Vec::new();
    for r in rows {
        let name = r[..groups.min(r.len())].join(" ");
        match series.iter_mut().find(|(n, _)| *n == name) {
            Some((_, rs)) => rs.push(r),
            None => series.push((name, vec![r])),
        }
    }
    series
}

fn value(row: &[String], col: usize) -> f64 {
    row.get(col).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN)
}

/// ", falling from 2.3" / ", rising from 0.1" / ", level": a change under 2 % is level.
fn trend(start: f64, last: f64) -> String {
    let scale = start.abs().max(last.abs());
    // (A NaN scale compares false to everything, so it reads as level too.)
    if scale.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || (last - start).abs() < 0.02 * scale {
        ", level".into()
    } else if last < start {
        format!(", falling from {}", num(start))
    } else {
        format!(", rising from {}", num(start))
    }
}

/// Three significant digits, without trailing zeros; integers as they are.
fn num(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "not a number".into()
        } else {
            "infinite".into()
        };
    }
    if v == v.trunc() && v.abs() < 1e9 {
        return format!("{v:.0}");
    }
    let magnitude = v.abs().log10().floor() as i32;
    if !(-3..6).contains(&magnitude) {
        return format!("{v:.2e}");
    }
    let decimals = (2 - magnitude).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// One CSV line's cells (quoted cells may hold commas and doubled quotes).
fn split(line: &str) -> Vec<String> {
    let (mut cells, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => cells.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

/// The table's cells, for the "show as table" view: the header, then at most `max_rows` rows.
pub fn cells(csv: &str, max_rows: usize) -> (Vec<String>, Vec<Vec<String>>, usize) {
    let mut lines = csv.lines().filter(|l| !l.trim().is_empty());
    let header = lines.next().map(split).unwrap_or_default();
    let rows: Vec<Vec<String>> = lines.map(split).collect();
    let total = rows.len();
    (header, rows.into_iter().take(max_rows).collect(), total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_reports_its_last_point_and_its_trend() {
        let csv = "optimizer,step,loss\nsgd,0,2.3\nsgd,400,0.2104\nadam,0,2.3\nadam,400,2.31\n";
        assert_eq!(
            summarize(csv).unwrap(),
            "4 rows. sgd: loss 0.21 at step 400, falling from 2.3. adam: loss 2.31 at step 400, level."
        );
    }

    #[test]
    fn a_single_series_needs_no_name() {
        let csv = "step,batch_loss,test_loss\n1,0.5,0.6\n2,0.9,0.4\n";
        assert_eq!(
            summarize(csv).unwrap(),
            "2 rows. batch_loss 0.9 at step 2, rising from 0.5."
        );
    }

    #[test]
    fn a_map_reports_the_range_of_its_values() {
        // alpha and beta are a grid, not an axis that rises row by row.
        let csv = "alpha,beta,loss\n0,0,1.5\n0,1,0.25\n1,0,3\n1,1,0.5\n";
        assert_eq!(summarize(csv).unwrap(), "4 rows. loss from 0.25 to 3.");
    }

    #[test]
    fn quoted_cells_keep_their_commas() {
        let csv = "run,step,loss\n\"lr 0.1, batch 8\",1,1\n\"lr 0.1, batch 8\",2,0.5\n";
        assert_eq!(
            summarize(csv).unwrap(),
            "2 rows. lr 0.1, batch 8: loss 0.5 at step 2, falling from 1."
        );
        assert_eq!(
            cells(csv, 1),
            (
                vec!["run".into(), "step".into(), "loss".into()],
                vec![vec!["lr 0.1, batch 8".into(), "1".into(), "1".into()]],
                2
            )
        );
    }

    #[test]
    fn numbers_read_as_three_significant_digits() {
        assert_eq!(num(0.000123456), "1.23e-4");
        assert_eq!(num(123.456), "123");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(65536.0), "65536");
        assert_eq!(num(f64::NAN), "not a number");
    }

    #[test]
    fn empty_and_text_tables() {
        assert_eq!(summarize("step,loss\n"), None);
        assert_eq!(
            summarize("worker,phase\n0,send\n").unwrap(),
            "1 row of worker, phase."
        );
    }
}
