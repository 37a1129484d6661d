//! HTTP, on the `http` crate's types (feature `http`): which responses to
//! retry, what the server said about when, and which requests are safe to
//! send twice.
//!
//! - [`ClassifyHttp`] classifies a response by its status (408, 429 and
//!   5xx retry, other 4xx stop) and reads the server
//!   hint from its headers ([`hint`]): `grpc-retry-pushback-ms`,
//!   `x-amz-retry-after`, then `Retry-After` (seconds or an HTTP-date).
//!   Status lists can override the defaults. It also reads the quota a
//!   server announces on any response, success or failure ([`quota`]: the
//!   IETF `RateLimit` fields, `X-RateLimit-Remaining` and `-Reset`), which
//!   the retry drivers hand to the policy's rate limiter.
//! - [`IdempotentOnly`] clones a request for a retry only if repeating it is
//!   safe: an idempotent method (GET, HEAD, OPTIONS, PUT, DELETE, TRACE) or an
//!   `Idempotency-Key` header. A retried POST can charge a card twice, so
//!   other requests are sent once.
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
use core::time::Duration;
use std::borrow::Cow;
use std::time::{SystemTime, UNIX_EPOCH};

use http::header::{HeaderMap, HeaderName};
use http::{Method, Request, Response, StatusCode};

pub use crate::classify::http::{ClassifyHttp, StatusSet};
use crate::classify::quota::{ratelimit_with_policy, x_ratelimit};
use crate::classify::{ClassifyResult, DefaultRules, ErrorKind, Failure, Hint, ResponseRules};
use crate::service::{ByClone, CloneRequest};
use crate::Quota;

/// The `Idempotency-Key` header: a request carrying it may be repeated, the
/// server recognising the repeat.
pub const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
/// `Retry-After`: delta-seconds or an HTTP-date.
pub const RETRY_AFTER: HeaderName = http::header::RETRY_AFTER;
/// `x-amz-retry-after`: milliseconds.
pub const AMZ_RETRY_AFTER: HeaderName = HeaderName::from_static("x-amz-retry-after");
/// `grpc-retry-pushback-ms`: milliseconds; negative or garbage means "do not retry".
pub const GRPC_RETRY_PUSHBACK: HeaderName = HeaderName::from_static("grpc-retry-pushback-ms");

/// `RateLimit`: the IETF field of the quotas left, `"name";r=50;t=30`.
pub const RATELIMIT: HeaderName = HeaderName::from_static("ratelimit");
/// `RateLimit-Policy`: the IETF field of the quota policies, `"name";q=100;w=60`.
pub const RATELIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
/// `X-RateLimit-Limit`: the requests a window allows.
pub const X_RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
/// `X-RateLimit-Remaining`: the requests left in this window.
pub const X_RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
/// `X-RateLimit-Reset`: seconds to the reset, or its Unix time.
pub const X_RATELIMIT_RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");

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

/// The quota the server announced in `headers`, read against `now` for a
/// reset given as a timestamp; `None` if it announced none that reads.
///
/// The IETF `RateLimit` field comes first (with `RateLimit-Policy` for
/// the limit; every line of each, as one list), then `X-RateLimit-Remaining`
/// and `X-RateLimit-Reset` (with `X-RateLimit-Limit`), then the same three
/// without `X-` (the IETF draft's first versions). Of the last two kinds
/// the first line of each field counts; both the remaining count and the
/// reset must read. The [`quota`](crate::classify::quota) module says how
/// each field reads, and how a reset in seconds is told from a timestamp.
/// Never panics.
pub fn quota(headers: &HeaderMap, now: SystemTime) -> Option<Quota> {
    if let Some(value) = field(headers, RATELIMIT) {
        if let Some(quota) = ratelimit_with_policy(&value, field(headers, RATELIMIT_POLICY).as_deref()) {
            return Some(quota);
        }
    }
    let now = now.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    let text = |name: HeaderName| headers.get(name).and_then(|value| value.to_str().ok());
    let older = |[limit, remaining, reset]: [HeaderName; 3]| {
        x_ratelimit(text(limit), text(remaining)?, text(reset)?, now)
    };
    older([X_RATELIMIT_LIMIT, X_RATELIMIT_REMAINING, X_RATELIMIT_RESET]).or_else(|| {
        older(["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"].map(HeaderName::from_static))
    })
}

/// Every line of a structured field, joined as one list (RFC 8941); `None`
/// if it is absent or a line is not text.
fn field(headers: &HeaderMap, name: HeaderName) -> Option<Cow<'_, str>> {
    let mut lines = headers.get_all(name).into_iter().map(|value| value.to_str().ok());
    let first = lines.next()??;
    lines.try_fold(Cow::Borrowed(first), |joined, line| Some(Cow::Owned(format!("{joined}, {}", line?))))
}

impl ClassifyHttp {
    /// Classifies a response from its status and headers: `None` for a
    /// success, otherwise the failure with the headers' hint. A 503 that
    /// carries a hint to come back later is the server shedding load, as
    /// a 429 is: [`Throttled`](ErrorKind::Throttled) (what a rate limiter
    /// and the budgets that tell throttling apart go by).
    pub fn classify_parts(&self, status: StatusCode, headers: &HeaderMap) -> Option<Failure> {
        let kind = self.status_kind(status.as_u16())?;
        if kind == ErrorKind::Permanent {
            return Some(Failure::new(kind));
        }
        let hint = hint(headers, SystemTime::now());
        let kind = match (status, hint) {
            (StatusCode::SERVICE_UNAVAILABLE, Some(Hint::After(_))) if kind == ErrorKind::Transient => {
                ErrorKind::Throttled
            }
            _ => kind,
        };
        Some(Failure::new(kind).with_optional_hint(hint))
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

    fn quota(&self, result: Result<&Response<B>, &E>) -> Option<Quota> {
        quota(result.ok()?.headers(), SystemTime::now())
    }

    fn describe(response: &Response<B>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ClassifyHttp::describe_status(response.status(), f)
    }
}

/// A policy with no classifier of its own classifies `http` responses by
/// the HTTP rules (its [`DefaultRules::http`] lists), errors as transient.
impl<B, E> ResponseRules<E> for Response<B> {
    fn classify_default(rules: &DefaultRules, result: Result<&Self, &E>) -> Option<Failure> {
        rules.http().classify_result(result)
    }

    fn quota(&self) -> Option<Quota> {
        quota(self.headers(), SystemTime::now())
    }

    fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ClassifyHttp::describe_status(self.status(), f)
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
    fn quotas_from_each_kind_of_field() {
        use std::time::UNIX_EPOCH;
        let now = UNIX_EPOCH + Duration::from_secs(1_735_689_000);
        let secs = |remaining, reset| Some(Quota::new(remaining, Duration::from_secs(reset)));
        // GitHub's response to an authenticated call.
        let github = headers(&[
            ("x-ratelimit-limit", "5000"),
            ("x-ratelimit-remaining", "4987"),
            ("x-ratelimit-reset", "1735689600"),
            ("x-ratelimit-used", "13"),
            ("x-ratelimit-resource", "core"),
        ]);
        assert_eq!(quota(&github, now), secs(4987, 600).map(|q| q.with_limit(5000)));
        // The IETF fields come first, each line part of one list.
        let mut both = headers(&[("x-ratelimit-remaining", "99"), ("x-ratelimit-reset", "1")]);
        both.append(RATELIMIT, r#""min";r=50;t=30"#.parse().unwrap());
        both.append(RATELIMIT, r#""day";r=3;t=3600"#.parse().unwrap());
        both.append(RATELIMIT_POLICY, r#""day";q=1000;w=86400"#.parse().unwrap());
        assert_eq!(quota(&both, now), secs(3, 3600).map(|q| q.with_limit(1000)));
        // A RateLimit field that does not read gives way to the older fields.
        let broken =
            headers(&[("ratelimit", "r=1"), ("x-ratelimit-remaining", "9"), ("x-ratelimit-reset", "1")]);
        assert_eq!(quota(&broken, now), secs(9, 1));
        // The draft's first versions: no `X-`.
        let older =
            headers(&[("ratelimit-limit", "100"), ("ratelimit-remaining", "7"), ("ratelimit-reset", "20")]);
        assert_eq!(quota(&older, now), secs(7, 20).map(|q| q.with_limit(100)));
        // Nothing that reads: no quota.
        assert_eq!(quota(&headers(&[("x-ratelimit-remaining", "9")]), now), None);
        assert_eq!(quota(&headers(&[("retry-after", "9")]), now), None);
        let mut binary = HeaderMap::new();
        binary.insert(RATELIMIT, http::HeaderValue::from_bytes(b"\"d\";r=1;t=\xff").unwrap());
        assert_eq!(quota(&binary, now), None);
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
