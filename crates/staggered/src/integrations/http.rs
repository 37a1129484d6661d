//! HTTP, on the `http` crate's types (feature `http`): which responses to
//! retry, what the server said about when, and which requests are safe to
//! send twice.
//!
//! - [`ClassifyHttp`] classifies a response by its status (408, 429 and
//!   5xx retry, other 4xx stop) and reads the server
//!   hint from its headers ([`hint`]): `grpc-retry-pushback-ms`,
//!   `x-amz-retry-after`, then `Retry-After` (seconds or an HTTP-date).
//!   Status lists can override the defaults.
//! - [`IdempotentOnly`] clones a request for a retry only if repeating it is
//!   safe: an idempotent method (GET, HEAD, OPTIONS, PUT, DELETE, TRACE) or an
//!   `Idempotency-Key` header. A retried POST can charge a card twice (seed
//!   001), so other requests are sent once.
//!
//! ```
//! use http::{Method, Request, Response, StatusCode};
//! use staggered::http::{ClassifyHttp, IdempotentOnly};
//! use staggered::service::{ClassifyResult, CloneRequest};
//! use staggered::{ErrorKind, Hint};
//! use std::time::Duration;
//!
//! let busy = Response::builder().status(429).header("retry-after", "3").body(()).unwrap();
//! let failure = ClassifyHttp::new().classify_result(Ok::<_, &()>(&busy)).unwrap();
//! assert_eq!(failure.kind, ErrorKind::Throttled);
//! assert_eq!(failure.hint, Some(Hint::After(Duration::from_secs(3))));
//!
//! let post = Request::post("http://127.0.0.1/pay").body(String::new()).unwrap();
//! assert!(IdempotentOnly::new().clone_request(&post).is_none(), "sent once");
//! ```

use core::fmt;
use std::time::SystemTime;

use http::header::{HeaderMap, HeaderName};
use http::{Method, Request, Response, StatusCode};

use crate::classify::{ErrorKind, Failure, Hint};
use crate::service::{ByClone, ClassifyResult, CloneRequest};

/// The `Idempotency-Key` header: a request carrying it may be repeated, the
/// server recognising the repeat.
pub const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
/// `Retry-After`: delta-seconds or an HTTP-date.
pub const RETRY_AFTER: HeaderName = http::header::RETRY_AFTER;
/// `x-amz-retry-after`: milliseconds.
pub const AMZ_RETRY_AFTER: HeaderName = HeaderName::from_static("x-amz-retry-after");
/// `grpc-retry-pushback-ms`: milliseconds; negative or garbage means "do not retry".
pub const GRPC_RETRY_PUSHBACK: HeaderName = HeaderName::from_static("grpc-retry-pushback-ms");

/// Whether `method` is idempotent (RFC 9110 section 9.2.2): GET, HEAD,
/// OPTIONS, PUT, DELETE and TRACE. POST, PATCH, CONNECT and extension methods
/// are not.
pub fn is_idempotent(method: &Method) -> bool {
    matches!(
        *method,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::PUT | Method::DELETE | Method::TRACE
    )
}

/// Whether a request is safe to send more than once: its method is
/// idempotent, or it carries an `Idempotency-Key` header.
pub fn is_repeatable(method: &Method, headers: &HeaderMap) -> bool {
    is_idempotent(method) || headers.contains_key(IDEMPOTENCY_KEY)
}

/// The server's hint in `headers`, read against `now` for an HTTP-date.
///
/// `grpc-retry-pushback-ms` comes first (a negative or unparsable value is
/// [`Hint::Never`], as gRPC specifies, and so is the header given twice),
/// then `x-amz-retry-after`, then `Retry-After` (given twice, the longest
/// valid value wins). Malformed values of the last two are ignored; a huge
/// value saturates and the decision then stops with `HintTooLong`. Never
/// panics. The [`hint`](crate::hint) module says why each header given twice
/// reads as it does.
pub fn hint(headers: &HeaderMap, now: SystemTime) -> Option<Hint> {
    use crate::classify::hint::{amz_retry_after_all, grpc_retry_pushback_all, retry_after_all};
    let values = |name: HeaderName| headers.get_all(name).into_iter().map(|value| value.to_str().ok());
    grpc_retry_pushback_all(values(GRPC_RETRY_PUSHBACK))
        .or_else(|| amz_retry_after_all(values(AMZ_RETRY_AFTER)))
        .or_else(|| retry_after_all(values(RETRY_AFTER), now))
}

/// A set of HTTP status codes (100 to 999), stored as bits.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
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
/// 429 is throttled, 408 and every 5xx transient,
/// any other 4xx permanent, everything below 400 a success. A status in the
/// stop list is permanent and one in the retry list transient (429:
/// throttled), the stop list winning. Errors (no response at all) are
/// transient: the reqwest integration classifies its errors more finely.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
            match crate::classify::http::status_kind(status) {
                ErrorKind::Permanent if self.retry.contains(status) => Some(ErrorKind::Transient),
                kind => Some(kind),
            }
        } else {
            None
        }
    }

    /// Classifies a response from its status and headers: `None` for a
    /// success, otherwise the failure with the headers' hint.
    pub fn classify_parts(&self, status: StatusCode, headers: &HeaderMap) -> Option<Failure> {
        let kind = self.status_kind(status.as_u16())?;
        let failure = Failure::new(kind);
        Some(match kind {
            ErrorKind::Permanent => failure,
            _ => failure.with_optional_hint(hint(headers, SystemTime::now())),
        })
    }

    /// Writes `HTTP 503 Service Unavailable`.
    pub(crate) fn describe_status(status: StatusCode, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP {status}")
    }
}

impl<B, E> ClassifyResult<Response<B>, E> for ClassifyHttp {
    fn classify_result(&self, result: Result<&Response<B>, &E>) -> Option<Failure> {
        match result {
            Ok(response) => self.classify_parts(response.status(), response.headers()),
            Err(_) => Some(Failure::TRANSIENT),
        }
    }

    fn describe(response: &Response<B>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ClassifyHttp::describe_status(response.status(), f)
    }
}

/// Clones, with `Q`, only the requests that are safe to repeat
/// ([`is_repeatable`]); the others are sent once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IdempotentOnly<Q = ByClone>(pub Q);

impl IdempotentOnly {
    /// Clones repeatable requests with `Clone`.
    pub const fn new() -> Self {
        IdempotentOnly(ByClone)
    }
}

impl<B, Q: CloneRequest<Request<B>>> CloneRequest<Request<B>> for IdempotentOnly<Q> {
    fn clone_request(&self, request: &Request<B>) -> Option<Request<B>> {
        if is_repeatable(request.method(), request.headers()) {
            self.0.clone_request(request)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::time::Duration;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs.iter().map(|(name, value)| (HeaderName::from_static(name), value.parse().unwrap())).collect()
    }

    #[test]
    fn statuses_follow_spec_and_lists_override() {
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
    fn hints_in_order_and_hostile_values() {
        let now = SystemTime::now();
        let secs = |s| Some(Hint::After(Duration::from_secs(s)));
        assert_eq!(hint(&headers(&[("retry-after", "7")]), now), secs(7));
        assert_eq!(hint(&headers(&[("retry-after", "-1")]), now), None);
        assert_eq!(hint(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(hint(&headers(&[("retry-after", "99999999999")]), now), secs(99_999_999_999));
        assert_eq!(
            hint(&headers(&[("retry-after", "7"), ("x-amz-retry-after", "1500")]), now),
            Some(Hint::After(Duration::from_millis(1500)))
        );
        assert_eq!(hint(&headers(&[("x-amz-retry-after", "x"), ("retry-after", "2")]), now), secs(2));
        assert_eq!(
            hint(&headers(&[("grpc-retry-pushback-ms", "-1"), ("retry-after", "2")]), now),
            Some(Hint::Never)
        );
        let mut binary = HeaderMap::new();
        binary.insert(RETRY_AFTER, http::HeaderValue::from_bytes(b"\xff\xfe").unwrap());
        assert_eq!(hint(&binary, now), None);
    }

    #[test]
    fn headers_given_twice() {
        let now = SystemTime::now();
        let twice = |name: &'static str, a: &str, b: &str| {
            let mut headers = HeaderMap::new();
            headers.append(HeaderName::from_static(name), a.parse().unwrap());
            headers.append(HeaderName::from_static(name), b.parse().unwrap());
            headers
        };
        // gRPC's retry design: more than one pushback value means do not retry.
        assert_eq!(hint(&twice("grpc-retry-pushback-ms", "100", "10"), now), Some(Hint::Never));
        // Retry-After and x-amz-retry-after: the longest valid value.
        assert_eq!(hint(&twice("retry-after", "5", "120"), now), Some(Hint::After(Duration::from_secs(120))));
        assert_eq!(
            hint(&twice("retry-after", "120", "soon"), now),
            Some(Hint::After(Duration::from_secs(120)))
        );
        assert_eq!(
            hint(&twice("x-amz-retry-after", "3000", "1500"), now),
            Some(Hint::After(Duration::from_millis(3000)))
        );
    }

    #[test]
    fn only_repeatable_requests_are_cloned() {
        let get = Request::get("/").body(()).unwrap();
        let post = Request::post("/").body(()).unwrap();
        let keyed = Request::post("/").header("Idempotency-Key", "abc").body(()).unwrap();
        assert!(IdempotentOnly::new().clone_request(&get).is_some());
        assert!(IdempotentOnly::new().clone_request(&post).is_none());
        assert!(IdempotentOnly::new().clone_request(&keyed).is_some());
        for method in [Method::POST, Method::PATCH, Method::CONNECT] {
            assert!(!is_idempotent(&method), "{method}");
        }
    }
}
