//! Names the lesson files use for what a page shows.

/// A metric's name from a label: lower case, words joined by '-' ("8 × ring" → "8-ring"), as a
/// lesson file names it.
pub fn metric_name(prefix: &str, label: &str) -> String {
    let mut out = String::from(prefix);
    for word in label
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        out.push('-');
        out.push_str(&word.to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn metric_names_are_lower_case_words_joined_by_dashes() {
        assert_eq!(
            super::metric_name("seconds", "8 × binomial tree"),
            "seconds-8-binomial-tree"
        );
        assert_eq!(super::metric_name("rate", "SGD"), "rate-sgd");
        assert_eq!(super::metric_name("class", "T-shirt/top"), "class-t-shirt-top");
    }
}
