//! Every value a client sends is checked before it reaches the database: its length, its
//! characters, its range. A refusal says which value and why.

use crate::error::ClassError;

fn invalid(what: &str, why: impl std::fmt::Display) -> ClassError {
    ClassError::Invalid(format!("{what}: {why}"))
}

/// A class code: six characters of `CODE_ALPHABET` (no 0/O or 1/I to misread on a projector).
pub fn code(v: &str) -> Result<&str, ClassError> {
    if v.len() == CODE_LEN && v.chars().all(|c| CODE_ALPHABET.contains(c)) {
        Ok(v)
    } else {
        Err(invalid(
            "class code",
            format!("{CODE_LEN} letters and digits, as the instructor's screen shows it"),
        ))
    }
}

pub const CODE_LEN: usize = 6;
pub const CODE_ALPHABET: &str = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/// An instructor key or a student token: 32 lowercase hexadecimal digits.
pub fn secret<'a>(what: &str, v: &'a str) -> Result<&'a str, ClassError> {
    if v.len() == 32
        && v.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    {
        Ok(v)
    } else {
        Err(invalid(what, "32 hexadecimal digits"))
    }
}

/// Free text (a nickname, a class's title): 1 to `max` characters, no control characters.
pub fn text<'a>(what: &str, v: &'a str, max: usize) -> Result<&'a str, ClassError> {
    let v = v.trim();
    if v.is_empty() || v.chars().count() > max {
        return Err(invalid(what, format!("1 to {max} characters")));
    }
    if v.chars().any(char::is_control) {
        return Err(invalid(what, "no control characters"));
    }
    Ok(v)
}

/// A nickname: 1 to 40 characters once normalized (Unicode NFC, trimmed), none of them a control
/// or format character — no bidi override to reverse what the dashboard shows, no zero-width
/// character to make two names look alike.
pub fn nickname(v: &str) -> Result<String, ClassError> {
    use unicode_normalization::UnicodeNormalization;
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    let v: String = v.trim().nfc().collect();
    text("nickname", &v, 40)?;
    if v.chars().any(|c| c.general_category() == GeneralCategory::Format) {
        return Err(invalid(
            "nickname",
            "no invisible or direction-changing characters (zero-width, bidi controls)",
        ));
    }
    Ok(v)
}

/// What two (normalized) nicknames that would read as one on the dashboard share: the nickname
/// ignoring case. A class holds each key once.
pub fn nickname_key(nickname: &str) -> String {
    nickname.to_lowercase()
}

/// A lesson id, as the course names its files: `a-z`, `0-9`, `-`, at most 64.
pub fn lesson(v: &str) -> Result<&str, ClassError> {
    if !v.is_empty()
        && v.len() <= 64
        && v.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        Ok(v)
    } else {
        Err(invalid("lesson", "a lesson id: a-z, 0-9 and -, at most 64"))
    }
}

/// A whole number in `0..=max`.
pub fn index(what: &str, v: u32, max: u32) -> Result<u32, ClassError> {
    if v <= max {
        Ok(v)
    } else {
        Err(invalid(what, format!("0 to {max}")))
    }
}

/// A lab's settings as a query string: printable, at most 2,000 characters.
pub fn state(v: &str) -> Result<&str, ClassError> {
    if v.len() > 2000 || v.chars().any(char::is_control) {
        Err(invalid("state", "a query string of at most 2,000 characters"))
    } else {
        Ok(v)
    }
}

/// What a run measured, as the lesson page shows it ("9.3 ×", "Shirt"): 1 to 64 characters.
pub fn measured(v: &str) -> Result<&str, ClassError> {
    text("measured", v, 64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_refused_with_what_is_wrong() {
        assert!(code("K7QX2M").is_ok());
        assert_eq!(
            code("k7qx2m").unwrap_err().to_string(),
            "class code: 6 letters and digits, as the instructor's screen shows it"
        );
        assert!(code("K7QX2O").is_err(), "no O");
        assert!(secret("key", &"a".repeat(32)).is_ok());
        assert!(secret("key", &"A".repeat(32)).is_err());
        assert_eq!(text("nickname", "  Ada ", 40).unwrap(), "Ada");
        assert!(text("nickname", "", 40).is_err());
        assert!(text("nickname", &"x".repeat(41), 40).is_err());
        assert!(text("nickname", "a\u{7}b", 40).is_err());
        // NFC: "e" + combining acute is "é"; a right-to-left override, a zero-width space refused.
        assert_eq!(nickname(" Rene\u{301} ").unwrap(), "René");
        for hidden in ["Ada\u{202E}", "A\u{200B}da", "\u{2066}Bo", "Bo\u{FEFF}"] {
            assert!(
                nickname(hidden).unwrap_err().to_string().contains("no invisible"),
                "{hidden:?}"
            );
        }
        assert!(nickname_key("ADA") == nickname_key("ada") && nickname_key("Ada") != nickname_key("Bo"));
        assert!(lesson("optimizers-momentum").is_ok());
        assert!(lesson("../etc").is_err());
        assert!(index("section", 100, 100).is_ok() && index("section", 101, 100).is_err());
        assert!(state(&"x".repeat(2001)).is_err());
    }
}
