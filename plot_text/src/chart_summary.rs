//! A chart's text alternative, read from the CSV it downloads: a screen reader cannot see a canvas,
//! so each chart says in a sentence or two what it shows now ("optimizer sgd: loss 0.21 at step
//! 400, falling from 2.3"). The CSV is the chart's own data, so the words never disagree with the
//! picture.
//!
//! Convention: the leading text columns name a series (run, optimizer, layout); the first numeric
//! column after them is the horizontal axis when it strictly rises within each series (step,
//! update, workers); the quantity the summary follows is the later numeric column whose name
//! shares the most words with the chart's own name (several charts may share one table: "Steps to
//! the target against batch size" follows `steps_to_target`), else the first named as an outcome
//! (`OUTCOMES`, in that order: a loss before a time), else the next one. A table without such an
//! axis (a map, a histogram) is summarized by the range of a column that varies, chosen the same
//! way, else its last.

/// Series named in full before the rest are counted.
const MAX_SERIES: usize = 4;

/// Words in a column's name that make it an outcome a chart plots, rather than a setting that
/// produced it (a batch, a learning rate), most telling first.
const OUTCOMES: [&str; 10] = [
    "loss",
    "accuracy",
    "speedup",
    "efficiency",
    "steps",
    "bytes",
    "seconds",
    "_s",
    "scale",
    "value",
];

/// The summary of the chart named `chart` whose table (its CSV, read by the app with
/// `engine::table`) is `header` and `rows`; None for a table with no rows.
pub fn summarize(header: &[String], rows: &[Vec<String>], chart: &str) -> Option<String> {
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
    let (Some(&first), Some(&next)) = (numbers.first(), numbers.get(1)) else {
        return Some(format!("{count} of {}.", header.join(", ")));
    };
    let range = |c: usize| {
        let values = rows.iter().map(|r| value(r, c));
        values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        })
    };
    // A column that is the same in every row (a fixed scale) rarely says much about the picture.
    let varying: Vec<usize> = numbers
        .iter()
        .copied()
        .filter(|&c| range(c).0 < range(c).1)
        .collect();
    // The chart's name may pick even a level column ("examples to the target", flat while
    // scaling is perfect); a guess by outcome only picks one that moves.
    let later: Vec<usize> = varying.iter().copied().filter(|&c| c > first).collect();
    let second = by_name(header, &numbers[1..], chart)
        .or_else(|| as_outcome(header, &later))
        .unwrap_or(next);
    let series = series_of(rows, groups);
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
        // A map's or a histogram's coordinates share words with its name too (a layer, a
        // power of two): its range is of an outcome, else of its last column, its values.
        let col =
            as_outcome(header, &varying).unwrap_or(*varying.last().unwrap_or(&numbers[numbers.len() - 1]));
        let (lo, hi) = range(col);
        parts.push(format!("{} from {} to {}.", header[col], num(lo), num(hi)));
    }
    Some(parts.join(" "))
}

/// Of the `candidates` columns, the one the chart named `chart` plots: the most words of its
/// name in the chart's name (of equals, the one whose word comes first there); None when none
/// shares a word.
fn by_name(header: &[String], candidates: &[usize], chart: &str) -> Option<usize> {
    // "Speed-up" names the column `speedup`; short words (per, the, at) name nothing.
    let chart = chart.to_lowercase().replace('-', "");
    let score = |c: usize| {
        let found: Vec<usize> = header[c]
            .split('_')
            .filter(|w| w.len() > 3)
            .filter_map(|w| chart.find(w))
            .collect();
        (
            found.len(),
            std::cmp::Reverse(found.into_iter().min().unwrap_or(usize::MAX)),
        )
    };
    let best = candidates
        .iter()
        .copied()
        .max_by_key(|&c| (score(c), std::cmp::Reverse(c)))?;
    (score(best).0 > 0).then_some(best)
}

/// The first of the `candidates` columns named as an outcome (`OUTCOMES`, in order).
fn as_outcome(header: &[String], candidates: &[usize]) -> Option<usize> {
    OUTCOMES.iter().find_map(|word| {
        candidates
            .iter()
            .copied()
            .find(|&c| match word.strip_prefix('_') {
                // "_s": a name ending in seconds, not one with an s-word inside.
                Some(_) => header[c].ends_with(word),
                None => header[c].contains(word),
            })
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain CSV's header and rows (no quoted cells: reading those is `engine::table`'s).
    fn summarize_csv(csv: &str, chart: &str) -> Option<String> {
        let mut lines = csv.lines();
        let cells = |l: &str| l.split(',').map(String::from).collect::<Vec<_>>();
        let header = cells(lines.next().unwrap());
        let rows: Vec<Vec<String>> = lines.map(cells).collect();
        summarize(&header, &rows, chart)
    }

    #[test]
    fn a_series_reports_its_last_point_and_its_trend() {
        let csv = "optimizer,step,loss\nsgd,0,2.3\nsgd,400,0.2104\nadam,0,2.3\nadam,400,2.31\n";
        assert_eq!(
            summarize_csv(csv, "").unwrap(),
            "4 rows. sgd: loss 0.21 at step 400, falling from 2.3. adam: loss 2.31 at step 400, level."
        );
    }

    #[test]
    fn a_single_series_needs_no_name() {
        let csv = "step,batch_loss,test_loss\n1,0.5,0.6\n2,0.9,0.4\n";
        assert_eq!(
            summarize_csv(csv, "").unwrap(),
            "2 rows. batch_loss 0.9 at step 2, rising from 0.5."
        );
    }

    #[test]
    fn the_outcome_is_followed_not_the_setting_beside_it() {
        let csv = "batch,learning_rate,steps_to_target\n8,0.05,32\n32,0.1,8\n";
        assert_eq!(
            summarize_csv(csv, "").unwrap(),
            "2 rows. steps_to_target 8 at batch 32, falling from 32."
        );
    }

    #[test]
    fn charts_sharing_a_table_each_follow_their_own_column() {
        let csv = "batch,learning_rate,steps_to_target,examples_to_target,final_loss\n8,0.05,32,256,0.01\n32,0.1,8,256,0.2\n";
        let steps = summarize_csv(csv, "Steps to the target against batch size").unwrap();
        assert_eq!(steps, "2 rows. steps_to_target 8 at batch 32, falling from 32.");
        let examples = summarize_csv(csv, "Examples (steps × batch) to the target").unwrap();
        assert_eq!(examples, "2 rows. examples_to_target 256 at batch 32, level.");
        assert_eq!(
            summarize_csv(csv, "").unwrap(),
            "2 rows. final_loss 0.2 at batch 32, rising from 0.01."
        );
    }

    #[test]
    fn a_histogram_reports_a_column_that_varies() {
        // The loss scale is the same in every row; the counts are the picture.
        let csv = "step,loss_scale,layer,exponent_stored,count\n5,1,0,-3,10\n5,1,0,-2,40\n";
        assert_eq!(
            summarize_csv(csv, "The weight gradients by power of two").unwrap(),
            "2 rows. count from 10 to 40."
        );
    }

    #[test]
    fn a_map_reports_the_range_of_its_values() {
        // alpha and beta are a grid, not an axis that rises row by row.
        let csv = "alpha,beta,loss\n0,0,1.5\n0,1,0.25\n1,0,3\n1,1,0.5\n";
        assert_eq!(summarize_csv(csv, "").unwrap(), "4 rows. loss from 0.25 to 3.");
    }

    #[test]
    fn a_series_named_with_a_comma_stays_one_series() {
        // The cells as engine::table::read_rows gives them from `"lr 0.1, batch 8",1,1`.
        let header: Vec<String> = ["run", "step", "loss"].map(String::from).to_vec();
        let row = |step: &str, loss: &str| vec!["lr 0.1, batch 8".to_string(), step.into(), loss.into()];
        assert_eq!(
            summarize(&header, &[row("1", "1"), row("2", "0.5")], "").unwrap(),
            "2 rows. lr 0.1, batch 8: loss 0.5 at step 2, falling from 1."
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
        assert_eq!(summarize_csv("step,loss", ""), None);
        assert_eq!(
            summarize_csv("worker,phase\n0,send", "").unwrap(),
            "1 row of worker, phase."
        );
    }
}
