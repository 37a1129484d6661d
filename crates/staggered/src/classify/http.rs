//! HTTP status codes: 408, 429 and 5xx retry; other 4xx stop.

use super::{ErrorKind, Failure};

/// Classifies an HTTP status code: 429 is throttled, 408 and every 5xx
/// transient, any other 4xx permanent. Codes outside 400..=599 are not
/// failures; they classify as permanent, so a caller that treats them as
/// errors does not loop on them.
pub const fn classify_status(status: u16) -> Failure {
    Failure::new(status_kind(status))
}

/// The [`ErrorKind`] of an HTTP status code; see [`classify_status`].
pub const fn status_kind(status: u16) -> ErrorKind {
    match status {
        429 => ErrorKind::Throttled,
        408 | 500..=599 => ErrorKind::Transient,
        _ => ErrorKind::Permanent,
    }
}

/// Whether an HTTP status code is worth retrying (408, 429, 5xx).
pub const fn is_retryable_status(status: u16) -> bool {
    !matches!(status_kind(status), ErrorKind::Permanent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_004_rules() {
        for code in [408, 429, 500, 502, 503, 504, 599] {
            assert!(is_retryable_status(code), "{code}");
        }
        for code in [400, 401, 403, 404, 409, 422, 499, 200, 301, 600, 0] {
            assert!(!is_retryable_status(code), "{code}");
        }
        assert_eq!(status_kind(429), ErrorKind::Throttled);
        assert_eq!(status_kind(503), ErrorKind::Transient);
    }
}
