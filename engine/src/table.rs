//! Tables as CSV, written and read through the `csv` crate so that a cell holding a comma or a
//! quote (a run label such as `8 × ring · sync, uncompressed`) stays one cell.

/// A CSV text: the header, then one line per row. Cells are quoted only where they must be.
pub fn to_csv<R, C>(header: &[&str], rows: R) -> String
where
    R: IntoIterator<Item = C>,
    C: IntoIterator,
    C::Item: std::fmt::Display,
{
    let mut w = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
    // Writing to a Vec cannot fail, and every cell is valid UTF-8 from `Display`.
    let _ = w.write_record(header);
    for row in rows {
        let cells: Vec<String> = row.into_iter().map(|c| c.to_string()).collect();
        let _ = w.write_record(&cells);
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// A header given as one comma-separated string (headers are plain words, never quoted).
pub fn header(line: &str) -> Vec<&str> {
    line.split(',').collect()
}

/// The rows of a CSV text (with its header row), each a list of cells, unquoted.
pub fn read_rows(text: &str) -> Result<Vec<Vec<String>>, csv::Error> {
    csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.map(|r| r.iter().map(str::to_string).collect()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_with_commas_and_quotes_round_trips_as_one_cell() {
        let label = "8 × ring · sync, \"uncompressed\", top-k 5 %";
        let text = to_csv(&["run", "workers"], [[label.to_string(), "8".to_string()]]);
        let rows = read_rows(&text).unwrap();
        assert_eq!(rows, vec![vec![label.to_string(), "8".to_string()]]);
    }

    #[test]
    fn plain_cells_are_not_quoted() {
        assert_eq!(to_csv(&header("a,b"), [[1, 2], [3, 4]]), "a,b\n1,2\n3,4\n");
    }
}
