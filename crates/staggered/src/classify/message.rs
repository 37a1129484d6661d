//! Retryable error messages, for errors that only carry text.

use super::Failure;

/// The messages worth retrying: Node.js-style socket errors (a reset, a
/// timeout, a refused connection, an unreachable network, a hung-up socket).
pub const RETRYABLE_MESSAGES: [&str; 5] =
    ["ECONNRESET", "ETIMEDOUT", "ECONNREFUSED", "ENETUNREACH", "socket hang up"];

/// Whether `message` contains one of [`RETRYABLE_MESSAGES`] (case-sensitive:
/// the codes are spelled in capitals by the systems that print them).
pub fn is_retryable_message(message: &str) -> bool {
    RETRYABLE_MESSAGES.iter().any(|needle| message.contains(needle))
}

/// Classifies an error by its message: a [timeout](Failure::timeout) if it
/// names `ETIMEDOUT`, transient if it contains another of
/// [`RETRYABLE_MESSAGES`], permanent otherwise.
pub fn classify_message(message: &str) -> Failure {
    if message.contains("ETIMEDOUT") {
        Failure::timeout()
    } else if is_retryable_message(message) {
        Failure::TRANSIENT
    } else {
        Failure::PERMANENT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_socket_error_codes() {
        assert!(is_retryable_message("read ECONNRESET"));
        assert!(is_retryable_message("Error: socket hang up"));
        assert!(!is_retryable_message("invalid token"));
        assert!(!is_retryable_message("econnreset"));
    }

    #[test]
    fn a_timed_out_socket_is_a_timeout() {
        assert_eq!(classify_message("connect ETIMEDOUT 10.0.0.1:443"), Failure::timeout());
        assert_eq!(classify_message("read ECONNRESET"), Failure::TRANSIENT);
        assert_eq!(classify_message("invalid token"), Failure::PERMANENT);
    }
}
