//! Keys and tokens as the database keeps them: their SHA-256, never the secret itself, so a copy
//! of the file opens no class. Each is 128 random bits (`api::random_hex`): a fast hash is the
//! right one for a secret that cannot be guessed (a slow one such as argon2 is for passwords a
//! person chose).

use sha2::{Digest, Sha256};

/// The hex SHA-256 of `secret`, what the database stores and compares.
pub fn digest(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A stored value that is still a secret in clear (a file from before version 3): 32 hex digits
/// where a digest has 64.
pub fn is_clear(stored: &str) -> bool {
    stored.len() == 32
}

#[cfg(test)]
mod tests {
    /// FIPS 180-2's example: SHA-256("abc").
    #[test]
    fn the_digest_of_abc_is_the_standards() {
        assert_eq!(
            super::digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
