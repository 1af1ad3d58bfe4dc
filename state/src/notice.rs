//! How a notice quotes what it refuses: long values cut to their start and length, and many
//! unknown setting names said once.

/// At most this many characters of a value are quoted in a notice.
pub(crate) const QUOTED: usize = 40;

/// A value as a notice quotes it: whole when short, else its start and how long it was.
pub fn quote(raw: &str) -> String {
    cut(raw, QUOTED)
}

/// `text` to at most `max` characters, then how long it was.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}… ({} characters)", &text[..at], text.chars().count()),
        None => text.to_string(),
    }
}

/// Unknown setting names shown in one notice at most.
const UNKNOWN_NAMED: usize = 3;

/// The one notice for setting names a lab does not know (a link or file may hold 100,000 of
/// them: one notice each would freeze the page), naming the first few; None when there are none.
pub fn unknown_notice(names: &[&str]) -> Option<String> {
    let named: Vec<String> = names
        .iter()
        .take(UNKNOWN_NAMED)
        .map(|k| format!("'{}'", quote(k)))
        .collect();
    let more = names.len().saturating_sub(UNKNOWN_NAMED);
    match (names.len(), more) {
        (0, _) => None,
        (1, _) => Some(format!("unknown setting {}: ignored", named[0])),
        (_, 0) => Some(format!("unknown settings {}: ignored", named.join(", "))),
        (_, more) => Some(format!(
            "unknown settings {} and {more} more: ignored",
            named.join(", ")
        )),
    }
}
