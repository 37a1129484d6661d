//! Seed 004's list of retryable error messages, for errors that only carry text.

/// The messages seed 004 retries on: Node-style socket errors.
pub const RETRYABLE_MESSAGES: [&str; 5] =
    ["ECONNRESET", "ETIMEDOUT", "ECONNREFUSED", "ENETUNREACH", "socket hang up"];

/// Whether `message` contains one of [`RETRYABLE_MESSAGES`] (case-sensitive,
/// as in seed 004).
pub fn is_retryable_message(message: &str) -> bool {
    RETRYABLE_MESSAGES.iter().any(|needle| message.contains(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_seed_004() {
        assert!(is_retryable_message("read ECONNRESET"));
        assert!(is_retryable_message("Error: socket hang up"));
        assert!(!is_retryable_message("invalid token"));
        assert!(!is_retryable_message("econnreset"));
    }
}
