//! HTTP status codes: 408, 429 and 5xx retry; other 4xx stop. And
//! [`ClassifyHttp`], which adds the throttling a response says in words.

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

/// Classifies HTTP responses by status, by the throttling they say in
/// words, and reads their server hints.
///
/// # Default
/// 429 is throttled, 408 and every 5xx transient, any other 4xx
/// permanent, everything below 400 a success. A status in the stop list is
/// permanent and one in the retry list transient (429: throttled), the stop
/// list winning. Errors (no response at all) are transient: the reqwest
/// integration classifies its errors more finely, and a plain operation's
/// errors are all transient.
///
/// With the `http` feature it also reads the throttling a response says
/// besides its status ([`throttling`](super::throttling); the `http`
/// module's docs list each sign): an AWS throttling code, in the
/// `x-amzn-ErrorType` header or at the start of the body, makes any
/// failure throttled, and so does GitHub's rate limit on a 403 or a 429;
/// a 503 with a hint to come back later is throttled. Two settings change
/// that, both off by default: codes of your own that count as throttling
/// ([`with_throttling_codes`](Self::with_throttling_codes)), and a bare
/// 503 as a throttle ([`with_bare_503_as_throttle`](Self::with_bare_503_as_throttle)).
///
/// The status rules need no HTTP library; with the `http` feature it
/// classifies the `http` crate's responses (`staggered::http`), and with
/// `reqwest` reqwest's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ClassifyHttp {
    retry: StatusSet,
    stop: StatusSet,
    bare_503_is_throttle: bool,
    codes: Codes,
}

/// The throttling codes a user added, shared by the clones of a
/// classifier (nothing without `std`, which has nowhere to keep them).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
struct Codes {
    #[cfg(feature = "std")]
    added: Option<std::sync::Arc<[Box<str>]>>,
}

impl ClassifyHttp {
    /// The default rules, with empty retry and stop lists.
    pub const fn new() -> Self {
        ClassifyHttp {
            retry: StatusSet::new(),
            stop: StatusSet::new(),
            bare_503_is_throttle: false,
            codes: Codes {
                #[cfg(feature = "std")]
                added: None,
            },
        }
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

    /// Counts a bare 503 (no `Retry-After` or other hint, no error code in
    /// its header or body) as a throttle, not a transient failure, when
    /// `throttle` is true.
    ///
    /// For a service known to sit behind a rate limiter that answers its
    /// excess with a plain 503: nginx's `limit_req` does unless
    /// `limit_req_status 429` is set, and so do many load balancers. Off by
    /// default, because a bare 503 is as often a server restarting or
    /// overloaded, and a throttle turns the policy's rate limiter on (see
    /// [`AdaptiveLimiter`](crate::AdaptiveLimiter)) where a transient
    /// failure only retries.
    pub const fn with_bare_503_as_throttle(mut self, throttle: bool) -> Self {
        self.bare_503_is_throttle = throttle;
        self
    }

    /// Whether a bare 503 is a throttle ([`with_bare_503_as_throttle`](Self::with_bare_503_as_throttle)).
    pub const fn bare_503_is_throttle(&self) -> bool {
        self.bare_503_is_throttle
    }

    /// Also counts these error codes as throttling, besides the AWS SDKs'
    /// ([`AWS_THROTTLING_CODES`](super::throttling::AWS_THROTTLING_CODES)),
    /// for a service of your own that names its throttling otherwise
    /// (`QuotaExceeded`). They are compared whole and case-sensitively
    /// with the code a response carries, cleaned as
    /// [`error_type_code`](super::throttling::error_type_code) cleans it,
    /// so a code that is not of that form
    /// ([`is_code`](super::throttling::is_code)) never matches; a
    /// configuration file refuses one. Calling it again adds to the codes.
    #[cfg(feature = "std")]
    pub fn with_throttling_codes<I>(mut self, codes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let added = self.throttling_codes().map(Box::from);
        let codes: Vec<Box<str>> =
            added.chain(codes.into_iter().map(|code| code.into().into_boxed_str())).collect();
        self.codes.added = (!codes.is_empty()).then(|| codes.into());
        self
    }

    /// The throttling codes added with [`with_throttling_codes`](Self::with_throttling_codes), in order.
    #[cfg(feature = "std")]
    pub fn throttling_codes(&self) -> impl Iterator<Item = &str> + '_ {
        self.codes.added.iter().flat_map(|codes| codes.iter().map(|code| &**code))
    }

    /// Whether `code` counts as throttling: one of the AWS SDKs' codes, or
    /// one added with [`with_throttling_codes`](Self::with_throttling_codes).
    pub fn is_throttling_code(&self, code: &str) -> bool {
        #[cfg(feature = "std")]
        if self.throttling_codes().any(|added| added == code) {
            return true;
        }
        super::throttling::is_aws_throttling_code(code)
    }

    /// Whether `status` is in the stop list, which wins over every other rule.
    pub const fn is_stop_status(&self, status: u16) -> bool {
        self.stop.contains(status)
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

    #[test]
    fn throttling_codes_add_to_the_aws_list() {
        let c = ClassifyHttp::new();
        assert!(c.is_throttling_code("SlowDown") && !c.is_throttling_code("QuotaExceeded"));
        assert!(
            !c.bare_503_is_throttle() && c.clone().with_bare_503_as_throttle(true).bare_503_is_throttle()
        );
        #[cfg(feature = "std")]
        {
            let c =
                c.with_throttling_codes(["QuotaExceeded"]).with_throttling_codes(vec![String::from("Busy")]);
            assert_eq!(c.throttling_codes().collect::<Vec<_>>(), ["QuotaExceeded", "Busy"]);
            assert!(c.is_throttling_code("QuotaExceeded") && c.is_throttling_code("Busy"));
            assert!(c.is_throttling_code("Throttling") && !c.is_throttling_code("quotaexceeded"));
            let same = ClassifyHttp::new().with_throttling_codes(["QuotaExceeded", "Busy"]);
            assert_eq!(c, same, "equal by their codes");
            assert_eq!(ClassifyHttp::new().with_throttling_codes(Vec::<String>::new()), ClassifyHttp::new());
        }
    }
}
