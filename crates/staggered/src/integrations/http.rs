//! HTTP, on the `http` crate's types (feature `http`): which responses to
//! retry, which of them are throttles, what the server said about when,
//! and which requests are safe to send twice.
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
//!
//! # What counts as a throttle
//! A throttled failure ([`ErrorKind::Throttled`]) is retried like a
//! transient one, and it is what turns a policy's
//! [`AdaptiveLimiter`](crate::AdaptiveLimiter) on and what the budgets
//! that tell throttling apart go by. A server that throttles does not
//! always answer 429, so the status is only the first sign; any one of
//! these makes a failed response throttled:
//!
//! - **A 429.**
//! - **An AWS throttling code**, whatever the status: one of the codes the
//!   AWS SDKs' retry rules list
//!   ([`AWS_THROTTLING_CODES`](crate::classify::throttling::AWS_THROTTLING_CODES):
//!   `Throttling`, `ThrottlingException`, `SlowDown`,
//!   `ProvisionedThroughputExceededException`, `RequestLimitExceeded`, ...)
//!   or one you add ([`ClassifyHttp::with_throttling_codes`]), in the
//!   `x-amzn-ErrorType` header or at the start of the body: S3's
//!   `<Error><Code>SlowDown</Code>` (a 503), DynamoDB's
//!   `{"__type":"...#ProvisionedThroughputExceededException"}` (a 400).
//!   A code that is not in either list changes nothing: a 503 with
//!   `ServiceUnavailable` stays transient, a 400 with
//!   `ValidationException` permanent.
//! - **GitHub's rate limits**, on a 403 or a 429, which would otherwise
//!   stop (403) or wait only the schedule's delay: the primary limit, a
//!   quota the headers say is spent (`x-ratelimit-remaining: 0`, or an
//!   IETF `RateLimit` field with `r=0`), waits for its reset
//!   (`x-ratelimit-reset`) unless the response has a hint of its own; the
//!   secondary limit, a body whose message says "secondary rate limit",
//!   waits its `Retry-After`, or a minute without one, as GitHub's
//!   documentation asks
//!   ([`SECONDARY_RATE_LIMIT_WAIT`](crate::classify::throttling::SECONDARY_RATE_LIMIT_WAIT)).
//! - **A 503 with a hint to come back later** (`Retry-After`,
//!   `x-amz-retry-after`): the server shedding load, as a 429 is.
//! - **A bare 503**, with no hint and no error code, only when
//!   [`ClassifyHttp::with_bare_503_as_throttle`] says so: nginx's
//!   `limit_req` answers the requests over its rate with exactly that
//!   unless `limit_req_status 429` is set, but so does a server that is
//!   restarting, so by default it is transient.
//!
//! A status in the stop list stays permanent whatever it carries.
//!
//! # The body's start
//! Codes in the body need the body, which the classifier, handed a
//! response by reference, cannot read. Drivers read its start, at most
//! [`BODY_START_BYTES`], only when it can change the classification
//! ([`wants_body_start`]: a 400, 403, 429 or 503 that no header has
//! already decided), and put it in the response's extensions as a
//! [`BodyStart`], where [`ClassifyHttp`] looks for it; the caller still
//! gets the whole body.
//!
//! - The reqwest middleware does this itself (its module docs, "The body
//!   of a failed response", say what of the response it keeps).
//! - The tower layer cannot: its responses' bodies are of any type, and
//!   reading one consumes it. It reads the header form always
//!   (`x-amzn-ErrorType`, the quota fields); for codes in the body, a
//!   service below the layer that holds its bodies whole (`Response<Bytes>`,
//!   `Response<String>`, a client that collects them) calls
//!   [`keep_body_start`], and one that streams them inserts a
//!   [`BodyStart`] it read itself.
//! - `stagger run` reads the body from a file the command wrote
//!   (`--http-body`).
//! - [`ClassifyHttp::classify_with_body`] takes the start of a body as
//!   bytes, for a driver of your own.

use core::fmt;
use core::time::Duration;
use std::borrow::Cow;
use std::time::{SystemTime, UNIX_EPOCH};

use http::header::{HeaderMap, HeaderName};
use http::{Extensions, Method, Request, Response, StatusCode};

pub use crate::classify::http::{ClassifyHttp, StatusSet};
use crate::classify::quota::{ratelimit_with_policy, x_ratelimit};
pub use crate::classify::throttling::BODY_START_BYTES;
use crate::classify::throttling::{
    body_code, error_type_code, says_secondary_rate_limit, SECONDARY_RATE_LIMIT_WAIT,
};
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

/// `x-amzn-ErrorType`: the error code of an AWS service's failed
/// response, before a `:` (`ThrottlingException:http://internal.amazon.com/...`).
pub const AMZN_ERROR_TYPE: HeaderName = HeaderName::from_static("x-amzn-errortype");

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

/// The start of a response's body, at most [`BODY_START_BYTES`], in its
/// extensions: where [`ClassifyHttp`] finds the error code of a body it
/// cannot read itself. The reqwest middleware inserts one when
/// [`wants_body_start`] says so; [`keep_body_start`] does for a response
/// that holds its whole body.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BodyStart(Box<[u8]>);

impl BodyStart {
    /// The first [`BODY_START_BYTES`] of `body` (all of it if shorter).
    pub fn new(body: &[u8]) -> Self {
        BodyStart(body[..body.len().min(BODY_START_BYTES)].into())
    }

    /// The bytes kept.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Whether the start of the body of a response with `status` and
/// `headers` can change how [`ClassifyHttp`] classifies it, so that a
/// driver reads it: a 400 (the AWS JSON and query protocols' throttles), a
/// 403 (GitHub's secondary rate limit), a 429 without a hint (the same,
/// for its minute's wait) or a 503 without one (S3's `SlowDown`), unless
/// the `x-amzn-ErrorType` header already names the code or, on a 403 or a
/// 429, the quota headers already say it is spent. Every other response's
/// body is left unread, and the classifier ignores it.
pub fn wants_body_start(status: StatusCode, headers: &HeaderMap) -> bool {
    let now = SystemTime::now();
    body_matters(status, headers, hint(headers, now), spent_quota(headers, now))
}

/// [`wants_body_start`], given the `hint` and the `spent` quota the
/// headers hold, so that a classifier that has read them reads them once.
fn body_matters(
    status: StatusCode,
    headers: &HeaderMap,
    hint: Option<Hint>,
    spent: Option<Option<Hint>>,
) -> bool {
    let by_status = match status.as_u16() {
        400 => true,
        403 => spent.is_none(),
        429 => hint.is_none() && spent.is_none(),
        503 => hint.is_none(),
        _ => false,
    };
    by_status && !headers.contains_key(AMZN_ERROR_TYPE)
}

/// Puts the start of `response`'s body in its extensions as a
/// [`BodyStart`], when [`wants_body_start`] says it matters, for a
/// service whose responses hold their whole body (`Response<Bytes>`,
/// `Response<String>`, `Response<Vec<u8>>`). Under a tower layer, map the
/// inner service's responses with it below the retry layer, so that its
/// classifier sees them (the `tower` module's "Codes in the body" shows
/// how).
///
/// ```
/// use http::Response;
/// use staggered::http::{keep_body_start, ClassifyHttp};
/// use staggered::ErrorKind;
///
/// let body = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
/// let mut slow_down = Response::builder().status(503).body(body.to_owned()).unwrap();
/// let classify = ClassifyHttp::new();
/// assert_eq!(classify.classify_result(Ok::<_, &()>(&slow_down)).unwrap().kind, ErrorKind::Transient);
/// keep_body_start(&mut slow_down);
/// assert_eq!(classify.classify_result(Ok::<_, &()>(&slow_down)).unwrap().kind, ErrorKind::Throttled);
/// assert_eq!(slow_down.body(), body, "the body is untouched");
/// # use staggered::service::ClassifyResult;
/// ```
pub fn keep_body_start<B: AsRef<[u8]>>(response: &mut Response<B>) {
    if wants_body_start(response.status(), response.headers()) {
        let start = BodyStart::new(response.body().as_ref());
        response.extensions_mut().insert(start);
    }
}

/// The wait a spent quota asks for, if a quota in `headers` is spent:
/// `Some(Some(reset))` when its reset reads, `Some(None)` for an
/// `X-RateLimit-Remaining: 0` without one.
fn spent_quota(headers: &HeaderMap, now: SystemTime) -> Option<Option<Hint>> {
    if let Some(quota) = quota(headers, now).filter(|quota| quota.remaining == 0) {
        return Some(Some(Hint::After(quota.reset)));
    }
    let remaining = headers.get(X_RATELIMIT_REMAINING)?.to_str().ok()?;
    (remaining.trim() == "0").then_some(None)
}

/// The error code of a response: its `x-amzn-ErrorType` header's, else its
/// body's ([`body_code`]).
fn error_code<'a>(headers: &'a HeaderMap, body_start: &'a [u8]) -> Option<&'a str> {
    match headers.get(AMZN_ERROR_TYPE) {
        Some(value) => Some(error_type_code(value.to_str().ok()?)).filter(|code| !code.is_empty()),
        None => body_code(body_start),
    }
}

impl ClassifyHttp {
    /// Classifies a response from its status and headers: `None` for a
    /// success, otherwise the failure with the headers' hint. Throttled
    /// are a 429, a failure whose `x-amzn-ErrorType` is a throttling code,
    /// GitHub's spent quota on a 403 or 429, and a 503 with a hint to come
    /// back later (or a bare one, if [set](ClassifyHttp::with_bare_503_as_throttle));
    /// the [module docs](self#what-counts-as-a-throttle) say why. The body's
    /// codes need [`classify_with_body`](Self::classify_with_body).
    pub fn classify_parts(&self, status: StatusCode, headers: &HeaderMap) -> Option<Failure> {
        self.classify_with_body(status, headers, &[])
    }

    /// Classifies a response as [`classify_parts`](Self::classify_parts)
    /// does, with the start of its body: a throttling code there
    /// (`<Code>SlowDown</Code>`, a JSON `__type`) and GitHub's secondary
    /// rate limit count too. The body is looked at only where
    /// [`wants_body_start`] says it matters, and never past
    /// [`BODY_START_BYTES`].
    pub fn classify_with_body(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
        body_start: &[u8],
    ) -> Option<Failure> {
        let kind = self.status_kind(status.as_u16())?;
        if self.is_stop_status(status.as_u16()) {
            return Some(Failure::PERMANENT);
        }
        let now = SystemTime::now();
        let (hint, spent) = (hint(headers, now), spent_quota(headers, now));
        let body = if body_matters(status, headers, hint, spent) { body_start } else { &[] };
        let code = error_code(headers, body);
        let rate_limited = matches!(status.as_u16(), 403 | 429);
        let throttle_hint = if code.is_some_and(|code| self.is_throttling_code(code)) {
            Some(hint)
        } else if let Some(reset) = spent.filter(|_| rate_limited) {
            Some(hint.or(reset))
        } else if rate_limited && says_secondary_rate_limit(body) {
            Some(hint.or(Some(Hint::After(SECONDARY_RATE_LIMIT_WAIT))))
        } else if status == StatusCode::SERVICE_UNAVAILABLE {
            let bare = hint.is_none() && code.is_none() && self.bare_503_is_throttle();
            (matches!(hint, Some(Hint::After(_))) || bare).then_some(hint)
        } else {
            None
        };
        Some(match throttle_hint {
            Some(hint) => Failure::THROTTLED.with_optional_hint(hint),
            None if kind == ErrorKind::Permanent => Failure::PERMANENT,
            None => Failure::new(kind).with_optional_hint(hint),
        })
    }

    /// Classifies a response from its parts, with the [`BodyStart`] in its
    /// extensions if a driver put one there.
    pub(crate) fn classify_head(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
        extensions: &Extensions,
    ) -> Option<Failure> {
        let body = extensions.get::<BodyStart>().map_or(&[][..], BodyStart::as_bytes);
        self.classify_with_body(status, headers, body)
    }

    /// Writes `HTTP 503 Service Unavailable`.
    pub(crate) fn describe_status(status: StatusCode, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP {status}")
    }
}

impl<B, E> ClassifyResult<Response<B>, E> for ClassifyHttp {
    fn classify_result(&self, result: Result<&Response<B>, &E>) -> Option<Failure> {
        match result {
            Ok(response) => self.classify_head(response.status(), response.headers(), response.extensions()),
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
    use std::time::UNIX_EPOCH;

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

    /// The kind and hint of a response with `status`, `headers` and `body`.
    fn judged(
        c: &ClassifyHttp,
        status: u16,
        pairs: &[(&'static str, &str)],
        body: &str,
    ) -> Option<(ErrorKind, Option<Hint>)> {
        let status = StatusCode::from_u16(status).unwrap();
        c.classify_with_body(status, &headers(pairs), body.as_bytes())
            .map(|failure| (failure.kind, failure.hint))
    }

    const SLOW_DOWN: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>\
                             <Message>Please reduce your request rate.</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>";

    #[test]
    fn a_throttling_code_in_the_header_throttles_any_failure() {
        let c = ClassifyHttp::new();
        let amzn = |value| [("x-amzn-errortype", value)];
        let throttled = Some((ErrorKind::Throttled, None));
        let value = "ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.service/";
        assert_eq!(judged(&c, 400, &amzn(value), ""), throttled);
        assert_eq!(judged(&c, 500, &amzn("RequestLimitExceeded"), ""), throttled);
        assert_eq!(
            judged(&c, 503, &amzn("aws.dynamodb#ProvisionedThroughputExceededException"), ""),
            throttled
        );
        // The hint is kept; a success stays a success.
        let with_hint = [("x-amzn-errortype", "SlowDown"), ("retry-after", "2")];
        assert_eq!(
            judged(&c, 400, &with_hint, ""),
            Some((ErrorKind::Throttled, Some(Hint::After(Duration::from_secs(2)))))
        );
        assert_eq!(judged(&c, 200, &amzn("Throttling"), ""), None);
        // Unknown codes change nothing.
        assert_eq!(judged(&c, 400, &amzn("ValidationException"), ""), Some((ErrorKind::Permanent, None)));
        assert_eq!(judged(&c, 503, &amzn("ServiceUnavailable"), ""), Some((ErrorKind::Transient, None)));
        assert_eq!(judged(&c, 503, &amzn(""), ""), Some((ErrorKind::Transient, None)));
        // The header decides: a body that says otherwise is not read.
        assert_eq!(judged(&c, 503, &amzn("InternalFailure"), SLOW_DOWN), Some((ErrorKind::Transient, None)));
    }

    #[test]
    fn a_throttling_code_in_the_body_throttles_the_statuses_that_carry_one() {
        let c = ClassifyHttp::new();
        let throttled = Some((ErrorKind::Throttled, None));
        // S3's SlowDown, and the same 503 without its body.
        assert_eq!(judged(&c, 503, &[], SLOW_DOWN), throttled);
        assert_eq!(judged(&c, 503, &[], ""), Some((ErrorKind::Transient, None)));
        // DynamoDB's and the query protocols' 400s.
        let dynamo = r#"{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"The level of configured provisioned throughput for the table was exceeded."}"#;
        assert_eq!(judged(&c, 400, &[], dynamo), throttled);
        let sts = "<ErrorResponse><Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>";
        assert_eq!(judged(&c, 400, &[], sts), throttled);
        // Unknown codes stay what their status is.
        assert_eq!(
            judged(&c, 400, &[], r#"{"__type":"ValidationException"}"#),
            Some((ErrorKind::Permanent, None))
        );
        assert_eq!(
            judged(&c, 503, &[], "<Error><Code>ServiceUnavailable</Code></Error>"),
            Some((ErrorKind::Transient, None))
        );
        // Other statuses' bodies are not looked at, whatever they hold.
        assert_eq!(judged(&c, 500, &[], SLOW_DOWN), Some((ErrorKind::Transient, None)));
        assert_eq!(judged(&c, 404, &[], SLOW_DOWN), Some((ErrorKind::Permanent, None)));
        // A code past the bound is never seen.
        let far = format!(
            "<Error><Message>{}</Message><Code>SlowDown</Code></Error>",
            " ".repeat(BODY_START_BYTES)
        );
        assert_eq!(judged(&c, 503, &[], &far), Some((ErrorKind::Transient, None)));
    }

    #[test]
    fn codes_of_your_own_throttle_too() {
        let body = r#"{"code": "QuotaExceeded", "message": "slow down"}"#;
        assert_eq!(judged(&ClassifyHttp::new(), 400, &[], body), Some((ErrorKind::Permanent, None)));
        let c = ClassifyHttp::new().with_throttling_codes(["QuotaExceeded"]);
        assert_eq!(judged(&c, 400, &[], body), Some((ErrorKind::Throttled, None)));
        assert_eq!(
            judged(&c, 500, &[("x-amzn-errortype", "QuotaExceeded")], ""),
            Some((ErrorKind::Throttled, None))
        );
        assert_eq!(
            judged(&c, 400, &[], SLOW_DOWN),
            Some((ErrorKind::Throttled, None)),
            "the AWS codes still count"
        );
    }

    #[test]
    fn a_bare_503_is_transient_unless_the_setting_says_throttle() {
        let default = ClassifyHttp::new();
        let behind_nginx = ClassifyHttp::new().with_bare_503_as_throttle(true);
        let nginx = "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n\
                     <center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>";
        assert_eq!(judged(&default, 503, &[], nginx), Some((ErrorKind::Transient, None)));
        assert_eq!(judged(&behind_nginx, 503, &[], nginx), Some((ErrorKind::Throttled, None)));
        assert_eq!(judged(&behind_nginx, 503, &[], ""), Some((ErrorKind::Throttled, None)));
        // Not bare: a code that is no throttle, or a "do not retry".
        let unavailable = [("x-amzn-errortype", "ServiceUnavailable")];
        assert_eq!(judged(&behind_nginx, 503, &unavailable, ""), Some((ErrorKind::Transient, None)));
        let never = [("grpc-retry-pushback-ms", "-1")];
        assert_eq!(judged(&behind_nginx, 503, &never, ""), Some((ErrorKind::Transient, Some(Hint::Never))));
        // Other 5xx are not 503s.
        assert_eq!(judged(&behind_nginx, 502, &[], ""), Some((ErrorKind::Transient, None)));
        // With a hint, a 503 was a throttle already.
        let hinted = Some((ErrorKind::Throttled, Some(Hint::After(Duration::from_secs(1)))));
        assert_eq!(judged(&default, 503, &[("retry-after", "1")], ""), hinted);
    }

    #[test]
    fn githubs_primary_rate_limit_waits_for_the_reset() {
        let c = ClassifyHttp::new();
        let reset =
            (SystemTime::now().duration_since(UNIX_EPOCH).unwrap() + Duration::from_secs(120)).as_secs();
        let reset = reset.to_string();
        let spent =
            [("x-ratelimit-limit", "5000"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", &reset)];
        for status in [403, 429] {
            let (kind, hint) =
                judged(&c, status, &spent, r#"{"message": "API rate limit exceeded"}"#).unwrap();
            assert_eq!(kind, ErrorKind::Throttled, "{status}");
            let Some(Hint::After(wait)) = hint else { panic!("{status}: {hint:?}") };
            assert!(
                wait > Duration::from_secs(118) && wait <= Duration::from_secs(120),
                "{status}: {wait:?}"
            );
        }
        // No reset: throttled all the same; a hint of the server's own wins.
        assert_eq!(
            judged(&c, 403, &[("x-ratelimit-remaining", "0")], ""),
            Some((ErrorKind::Throttled, None))
        );
        let asked = [("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", &reset), ("retry-after", "5")];
        assert_eq!(
            judged(&c, 403, &asked, ""),
            Some((ErrorKind::Throttled, Some(Hint::After(Duration::from_secs(5)))))
        );
        // The IETF field says the same.
        let ietf = [("ratelimit", "\"default\";r=0;t=30")];
        assert_eq!(
            judged(&c, 403, &ietf, ""),
            Some((ErrorKind::Throttled, Some(Hint::After(Duration::from_secs(30)))))
        );
        // A quota left, or another status, is no throttle.
        let left = [("x-ratelimit-remaining", "12"), ("x-ratelimit-reset", &reset)];
        assert_eq!(judged(&c, 403, &left, ""), Some((ErrorKind::Permanent, None)));
        assert_eq!(judged(&c, 404, &spent, ""), Some((ErrorKind::Permanent, None)));
    }

    #[test]
    fn githubs_secondary_rate_limit_waits_at_least_a_minute() {
        let c = ClassifyHttp::new();
        let body = r#"{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", "documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api"}"#;
        let minute = Some((ErrorKind::Throttled, Some(Hint::After(Duration::from_secs(60)))));
        assert_eq!(judged(&c, 403, &[], body), minute);
        assert_eq!(judged(&c, 429, &[], body), minute);
        let asked = Some((ErrorKind::Throttled, Some(Hint::After(Duration::from_secs(30)))));
        assert_eq!(judged(&c, 403, &[("retry-after", "30")], body), asked);
        // Another status is not GitHub's rate limit.
        assert_eq!(judged(&c, 400, &[], body), Some((ErrorKind::Permanent, None)));
    }

    #[test]
    fn a_403_without_those_signs_stays_permanent() {
        let c = ClassifyHttp::new().with_bare_503_as_throttle(true);
        let body = r#"{"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest"}"#;
        assert_eq!(judged(&c, 403, &[], body), Some((ErrorKind::Permanent, None)));
        assert_eq!(judged(&c, 403, &[("retry-after", "5")], ""), Some((ErrorKind::Permanent, None)));
        assert_eq!(
            judged(&c, 403, &[("x-amzn-errortype", "AccessDeniedException")], ""),
            Some((ErrorKind::Permanent, None))
        );
    }

    #[test]
    fn the_stop_list_wins_over_every_sign() {
        let c =
            ClassifyHttp::new().with_stop_status(503).with_stop_status(429).with_bare_503_as_throttle(true);
        assert_eq!(judged(&c, 503, &[("retry-after", "1")], SLOW_DOWN), Some((ErrorKind::Permanent, None)));
        assert_eq!(
            judged(&c, 429, &[("x-amzn-errortype", "Throttling")], ""),
            Some((ErrorKind::Permanent, None))
        );
    }

    #[test]
    fn the_body_is_wanted_only_where_it_can_change_the_answer() {
        let wants = |status, pairs: &[(&'static str, &str)]| {
            wants_body_start(StatusCode::from_u16(status).unwrap(), &headers(pairs))
        };
        for status in [400, 403, 429, 503] {
            assert!(wants(status, &[]), "{status}");
            assert!(!wants(status, &[("x-amzn-errortype", "Throttling")]), "{status}");
        }
        for status in [200, 404, 408, 500, 502, 504] {
            assert!(!wants(status, &[]), "{status}");
        }
        assert!(!wants(503, &[("retry-after", "1")]) && !wants(429, &[("retry-after", "1")]));
        assert!(wants(403, &[("retry-after", "1")]), "GitHub's secondary limit may send one");
        assert!(
            !wants(403, &[("x-ratelimit-remaining", "0")]) && !wants(429, &[("x-ratelimit-remaining", "0")])
        );
        assert!(wants(403, &[("x-ratelimit-remaining", "1")]));
    }

    #[test]
    fn the_body_start_is_kept_in_the_extensions_when_it_matters() {
        assert_eq!(BodyStart::new(&[7; BODY_START_BYTES + 10]).as_bytes().len(), BODY_START_BYTES);
        assert_eq!(BodyStart::new(b"short").as_bytes(), b"short");
        let mut slow_down = Response::builder().status(503).body(SLOW_DOWN).unwrap();
        keep_body_start(&mut slow_down);
        assert_eq!(
            slow_down.extensions().get::<BodyStart>().map(BodyStart::as_bytes),
            Some(SLOW_DOWN.as_bytes())
        );
        let judged = ClassifyHttp::new().classify_result(Ok::<_, &()>(&slow_down)).unwrap();
        assert_eq!(judged.kind, ErrorKind::Throttled);
        let mut fine = Response::builder().status(200).body(SLOW_DOWN).unwrap();
        keep_body_start(&mut fine);
        assert!(fine.extensions().get::<BodyStart>().is_none());
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
