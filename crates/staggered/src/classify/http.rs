//! HTTP status codes: 408, 429 and 5xx retry; other 4xx stop.

use super::{ErrorKind, Failure};
use core::fmt;

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

/// A set of HTTP status codes (100 to 999), stored as bits: building it
/// and asking it are linear in the codes given, whatever their number.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct StatusSet([u64; 16]);

impl StatusSet {
    /// The empty set.
    pub const fn new() -> Self {
        StatusSet([0; 16])
    }

    /// The set with `status` added; codes outside 100..=999 are ignored.
    pub const fn with(mut self, status: u16) -> Self {
        if status >= 100 && status <= 999 {
            self.0[(status / 64) as usize] |= 1 << (status % 64);
        }
        self
    }

    /// Whether `status` is in the set.
    pub const fn contains(&self, status: u16) -> bool {
        status <= 999 && self.0[(status / 64) as usize] & (1 << (status % 64)) != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(&self) -> bool {
        let mut i = 0;
        while i < self.0.len() {
            if self.0[i] != 0 {
                return false;
            }
            i += 1;
        }
        true
    }

    /// The codes in the set, in order.
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        (100..=999).filter(|&status| self.contains(status))
    }
}

impl fmt::Debug for StatusSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl FromIterator<u16> for StatusSet {
    fn from_iter<I: IntoIterator<Item = u16>>(iter: I) -> Self {
        iter.into_iter().fold(StatusSet::new(), StatusSet::with)
    }
}

/// Classifies HTTP responses by status and reads their server hints.
///
/// # Default
/// 429 is throttled, 408 and every 5xx transient, any other 4xx
/// permanent, everything below 400 a success. A status in the stop list is
/// permanent and one in the retry list transient (429: throttled), the stop
/// list winning. Errors (no response at all) are transient: the reqwest
/// integration classifies its errors more finely, and a plain operation's
/// errors are all transient.
///
/// The status rules need no HTTP library; with the `http` feature it
/// classifies the `http` crate's responses (`staggered::http`), and with
/// `reqwest` reqwest's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ClassifyHttp {
    retry: StatusSet,
    stop: StatusSet,
}

impl ClassifyHttp {
    /// The default rules, with empty retry and stop lists.
    pub const fn new() -> Self {
        ClassifyHttp { retry: StatusSet::new(), stop: StatusSet::new() }
    }

    /// Also retries `status` (say 409 for a service that uses it for "try again").
    pub const fn with_retry_status(mut self, status: u16) -> Self {
        self.retry = self.retry.with(status);
        self
    }

    /// Never retries `status` (say 501 Not Implemented, which no retry fixes).
    pub const fn with_stop_status(mut self, status: u16) -> Self {
        self.stop = self.stop.with(status);
        self
    }

    /// Replaces the retry and stop lists.
    pub const fn with_status_lists(mut self, retry: StatusSet, stop: StatusSet) -> Self {
        self.retry = retry;
        self.stop = stop;
        self
    }

    /// The kind of failure `status` is, or `None` for a success.
    pub const fn status_kind(&self, status: u16) -> Option<ErrorKind> {
        if self.stop.contains(status) {
            Some(ErrorKind::Permanent)
        } else if self.retry.contains(status) || status >= 400 {
            match status_kind(status) {
                ErrorKind::Permanent if self.retry.contains(status) => Some(ErrorKind::Transient),
                kind => Some(kind),
            }
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_rules() {
        for code in [408, 429, 500, 502, 503, 504, 599] {
            assert!(is_retryable_status(code), "{code}");
        }
        for code in [400, 401, 403, 404, 409, 422, 499, 200, 301, 600, 0] {
            assert!(!is_retryable_status(code), "{code}");
        }
        assert_eq!(status_kind(429), ErrorKind::Throttled);
        assert_eq!(status_kind(503), ErrorKind::Transient);
    }

    #[test]
    fn lists_override_the_rules() {
        let c = ClassifyHttp::new();
        assert_eq!(c.status_kind(200), None);
        assert_eq!(c.status_kind(304), None);
        assert_eq!(c.status_kind(404), Some(ErrorKind::Permanent));
        assert_eq!(c.status_kind(408), Some(ErrorKind::Transient));
        assert_eq!(c.status_kind(429), Some(ErrorKind::Throttled));
        assert_eq!(c.status_kind(503), Some(ErrorKind::Transient));
        let c = c.with_retry_status(409).with_stop_status(501).with_retry_status(501);
        assert_eq!(c.status_kind(409), Some(ErrorKind::Transient));
        assert_eq!(c.status_kind(501), Some(ErrorKind::Permanent), "the stop list wins");
        let set: StatusSet = [100, 999, 1000, 0, 503].into_iter().collect();
        assert_eq!(set.iter().collect::<Vec<_>>(), [100, 503, 999]);
        assert!(!set.contains(1000) && !set.contains(u16::MAX) && StatusSet::new().is_empty());
    }
}
