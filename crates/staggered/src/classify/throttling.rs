//! Throttling that a response says in words rather than in its status:
//! the error codes AWS services answer with when they throttle a client,
//! and GitHub's secondary rate limit, read from hostile text without
//! panicking and never past [`BODY_START_BYTES`] of a body.
//!
//! A status alone misses most throttling. S3 answers an excess of requests
//! with a 503 whose body says `<Code>SlowDown</Code>`; DynamoDB and the
//! other JSON services with a 400 whose body names
//! `ProvisionedThroughputExceededException` or `ThrottlingException`; EC2
//! with a 503 and `RequestLimitExceeded`. The AWS SDKs (botocore's
//! standard and adaptive retry modes, the Rust SDK's smithy runtime) keep
//! one list of those codes and call any response that carries one a
//! throttle, whatever its status: [`AWS_THROTTLING_CODES`] is that list.
//! The code travels in one of three places, all read here:
//!
//! - the `x-amzn-ErrorType` header, its value the code with a suffix
//!   after a `:` (`ThrottlingException:http://internal.amazon.com/...`)
//!   and sometimes a namespace before a `#`: [`error_type_code`];
//! - an XML body, the text of its first `<Code>` element (S3's
//!   `<Error><Code>SlowDown</Code>`, the query protocols'
//!   `<ErrorResponse><Error><Code>Throttling</Code>`, EC2's
//!   `<Response><Errors><Error><Code>`): [`body_code`];
//! - a JSON body, its top-level `__type` or `code` member
//!   (`{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException"}`),
//!   cleaned as the header is: [`body_code`].
//!
//! GitHub throttles with a 403 or a 429. Its primary rate limit says so in
//! the quota headers (`x-ratelimit-remaining: 0`, read by
//! [`quota`](crate::classify::quota)); its secondary rate limit only in the
//! body's message ("You have exceeded a secondary rate limit"):
//! [`says_secondary_rate_limit`]. GitHub's documentation asks a client that
//! gets one without `Retry-After` to wait at least a minute
//! ([`SECONDARY_RATE_LIMIT_WAIT`]).
//!
//! What a throttle does is the retry decision's and the rate limiter's
//! business; [`ClassifyHttp`](crate::classify::http::ClassifyHttp) puts
//! these readers together.

use core::time::Duration;

/// The error codes the AWS SDKs count as throttling, whatever the status
/// they come with: botocore's list of throttled error codes and the Rust
/// SDK's list of throttling errors, which are the same fourteen codes.
pub const AWS_THROTTLING_CODES: [&str; 14] = [
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "TransactionInProgressException",
    "RequestLimitExceeded",
    "BandwidthLimitExceeded",
    "LimitExceededException",
    "RequestThrottled",
    "SlowDown",
    "PriorRequestNotComplete",
    "EC2ThrottledException",
];

/// The most bytes of a body that are ever read for a throttling sign, and
/// the most a driver reads of a response's body before handing it on.
///
/// An AWS error body puts its code in the first few hundred bytes (S3's
/// `SlowDown` document, request ids included, is about 300), and GitHub's
/// message is its first member; 4 KiB leaves room for an XML prolog, long
/// namespaces and a long message before the code, while bounding what a
/// hostile or huge body costs: a code past the bound is not seen, and the
/// response is classified by its status and headers alone.
pub const BODY_START_BYTES: usize = 4096;

/// The wait after GitHub's secondary rate limit when the response has no
/// `Retry-After`: GitHub's documentation asks for at least a minute.
pub const SECONDARY_RATE_LIMIT_WAIT: Duration = Duration::from_secs(60);

/// Whether `code` is one of [`AWS_THROTTLING_CODES`] (case-sensitive, as
/// the SDKs compare them).
pub fn is_aws_throttling_code(code: &str) -> bool {
    AWS_THROTTLING_CODES.contains(&code)
}

/// Whether `text` has the form of an error code, so that a code a user
/// adds can ever match one read from a response: not empty, and only ASCII
/// letters, digits, `.`, `_` and `-` (a `:` or a `#` would be cut away
/// from every code read, and spaces never occur in one).
pub fn is_code(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The code in a value of `x-amzn-ErrorType` or a JSON `__type`: what comes
/// before the first `:` (a URL the services append), after the first `#`
/// (a namespace), without surrounding spaces.
///
/// ```
/// use staggered::classify::throttling::error_type_code;
///
/// assert_eq!(error_type_code("ThrottlingException:http://internal.amazon.com/coral/"), "ThrottlingException");
/// assert_eq!(error_type_code("com.amazonaws.dynamodb.v20120810#ThrottlingException"), "ThrottlingException");
/// ```
pub fn error_type_code(value: &str) -> &str {
    let code = value.split(':').next().unwrap_or(value);
    let code = code.split_once('#').map_or(code, |(_, code)| code);
    code.trim()
}

/// The error code at the start of a body, read from at most its first
/// [`BODY_START_BYTES`]: the text of the first `<Code>` element of an XML
/// body, or the top-level `__type`, `code` or `Code` member of a JSON
/// object (the first of them, a string without escapes, cleaned by
/// [`error_type_code`]). `None` for any other body, an empty code, or a code
/// cut by the bound.
///
/// ```
/// use staggered::classify::throttling::body_code;
///
/// let s3 = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>\
///            <Message>Please reduce your request rate.</Message></Error>";
/// assert_eq!(body_code(s3), Some("SlowDown"));
/// assert_eq!(body_code(br#"{"__type":"com.amazon.coral.service#ThrottlingException","message":"Rate exceeded"}"#),
///            Some("ThrottlingException"));
/// assert_eq!(body_code(b"<html><body>503 Service Temporarily Unavailable</body></html>"), None);
/// ```
pub fn body_code(body: &[u8]) -> Option<&str> {
    let body = start(body);
    let code = match body.first()? {
        b'<' => xml_code(body)?,
        b'{' => json_code(body)?,
        _ => return None,
    };
    let code = error_type_code(core::str::from_utf8(code).ok()?);
    (!code.is_empty()).then_some(code)
}

/// Whether the start of a body says GitHub's "secondary rate limit" (in
/// any case), within its first [`BODY_START_BYTES`].
pub fn says_secondary_rate_limit(body: &[u8]) -> bool {
    const NEEDLE: &[u8] = b"secondary rate limit";
    body[..body.len().min(BODY_START_BYTES)]
        .windows(NEEDLE.len())
        .any(|window| window.eq_ignore_ascii_case(NEEDLE))
}

/// The first [`BODY_START_BYTES`] of `body`, without a UTF-8 byte-order
/// mark or leading white space.
fn start(body: &[u8]) -> &[u8] {
    let body = &body[..body.len().min(BODY_START_BYTES)];
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    body.trim_ascii_start()
}

/// The text of the first `<Code>` element.
fn xml_code(body: &[u8]) -> Option<&[u8]> {
    const OPEN: &[u8] = b"<Code>";
    let at = body.windows(OPEN.len()).position(|window| window == OPEN)? + OPEN.len();
    let text = &body[at..];
    let end = text.iter().position(|&b| b == b'<')?;
    Some(&text[..end])
}

/// The first top-level `__type`, `code` or `Code` member of a JSON object
/// whose value is a string without escapes; `None` at the first thing
/// that is not JSON, or at the end of the text.
fn json_code(body: &[u8]) -> Option<&[u8]> {
    let mut json = Json { text: body, at: 0 };
    json.expect(b'{')?;
    loop {
        json.space();
        let key = json.string()?;
        json.space();
        json.expect(b':')?;
        json.space();
        if matches!(key, b"__type" | b"code" | b"Code") && json.peek() == Some(b'"') {
            let value = json.string()?;
            if !value.contains(&b'\\') {
                return Some(value);
            }
        } else {
            json.skip_value()?;
        }
        json.space();
        json.expect(b',')?;
        json.space();
    }
}

/// A cursor over JSON text that reads only what finding a member needs:
/// strings, and values skipped whole (nested ones by counting brackets,
/// with no recursion, so no depth of nesting can exhaust the stack).
struct Json<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Json<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// A string's raw bytes, escapes left as they are.
    fn string(&mut self) -> Option<&'a [u8]> {
        self.expect(b'"')?;
        let from = self.at;
        loop {
            match self.peek()? {
                b'"' => break,
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
        let raw = self.text.get(from..self.at)?;
        self.at += 1;
        Some(raw)
    }

    /// Any value: a string, an object or array with all it holds, or a
    /// number, `true`, `false` or `null` up to the next delimiter.
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' | b'[' => {
                let mut depth = 0_usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => depth -= 1,
                        _ => {}
                    }
                    self.at += 1;
                    if depth == 0 {
                        return Some(());
                    }
                }
            }
            _ => {
                while self
                    .peek()
                    .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
                {
                    self.at += 1;
                }
                Some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_aws_list_is_case_sensitive() {
        for code in AWS_THROTTLING_CODES {
            assert!(is_aws_throttling_code(code) && is_code(code), "{code}");
        }
        assert!(!is_aws_throttling_code("slowdown"));
        assert!(!is_aws_throttling_code("ServiceUnavailable"));
        assert!(!is_aws_throttling_code(""));
    }

    #[test]
    fn header_values_lose_their_url_and_namespace() {
        assert_eq!(error_type_code("SlowDown"), "SlowDown");
        assert_eq!(
            error_type_code("aws.protocoltests.restjson#FooError:http://internal.amazon.com/coral/"),
            "FooError"
        );
        assert_eq!(error_type_code(" Throttling :x"), "Throttling");
        assert_eq!(error_type_code(":only a url"), "");
        assert_eq!(error_type_code(""), "");
    }

    #[test]
    fn xml_bodies_give_their_first_code() {
        let query = b"<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n  <Error>\n    \
                      <Type>Sender</Type>\n    <Code>Throttling</Code>\n    <Message>Rate exceeded</Message>\n  \
                      </Error>\n</ErrorResponse>";
        assert_eq!(body_code(query), Some("Throttling"));
        let ec2 = b"<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>Request limit \
                    exceeded.</Message></Error></Errors><RequestID>x</RequestID></Response>";
        assert_eq!(body_code(ec2), Some("RequestLimitExceeded"));
        assert_eq!(body_code(b"\xEF\xBB\xBF \n<Error><Code> SlowDown </Code></Error>"), Some("SlowDown"));
        // No code, an empty one, one cut off, one that is not text.
        assert_eq!(body_code(b"<Error><Message>no code</Message></Error>"), None);
        assert_eq!(body_code(b"<Error><Code></Code></Error>"), None);
        assert_eq!(body_code(b"<Error><Code>SlowDo"), None);
        assert_eq!(body_code(b"<Error><Code>\xff\xfe</Code>"), None);
        assert_eq!(body_code(b"text <Code>SlowDown</Code>"), None, "not XML");
    }

    #[test]
    fn json_bodies_give_their_type_or_code() {
        assert_eq!(
            body_code(br#"{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"x"}"#),
            Some("ProvisionedThroughputExceededException")
        );
        assert_eq!(
            body_code(br#"{ "message" : "Rate exceeded", "code" : "TooManyRequestsException" }"#),
            Some("TooManyRequestsException")
        );
        assert_eq!(body_code(br#"{"Code":"SlowDown"}"#), Some("SlowDown"));
        // Members before it of every kind are skipped, nested ones whole.
        let nested = br#"{"n": -1.5e3, "t": true, "z": null, "list": [1, {"code": "Inner"}, "]"], "o": {"a": {"b": "}"}}, "s": "a \"quoted\" code", "__type": "Throttling"}"#;
        assert_eq!(body_code(nested), Some("Throttling"));
        // Not a string, escaped, absent, broken, not an object.
        assert_eq!(body_code(br#"{"code": 429, "message": "slow down"}"#), None);
        assert_eq!(body_code(br#"{"code": "Slow\u0044own"}"#), None);
        assert_eq!(body_code(br#"{"code": "Slow\u0044own", "__type": "Throttling"}"#), Some("Throttling"));
        assert_eq!(body_code(br#"{"message": "Throttling"}"#), None);
        assert_eq!(body_code(br#"{"message": "x" "code": "Throttling"}"#), None);
        assert_eq!(body_code(br#"{"message": "unterminated"#), None);
        assert_eq!(body_code(br#"["Throttling"]"#), None);
        assert_eq!(body_code(b"{"), None);
        assert_eq!(body_code(b""), None);
        assert_eq!(body_code(b"   "), None);
    }

    #[test]
    fn nothing_past_the_bound_is_read() {
        // The code just inside the bound is seen; just past it, not.
        for (padding, seen) in [(BODY_START_BYTES - 60, true), (BODY_START_BYTES, false)] {
            let mut body = format!("{{\"message\": \"{}\", ", "x".repeat(padding));
            body.push_str("\"code\": \"SlowDown\"}");
            assert_eq!(body_code(body.as_bytes()).is_some(), seen, "{padding}");
            let mut body = format!("<Error><Message>{}</Message>", "x".repeat(padding));
            body.push_str("<Code>SlowDown</Code></Error>");
            assert_eq!(body_code(body.as_bytes()).is_some(), seen, "{padding}");
            let text = format!(
                "{{\"message\": \"{} You have exceeded a secondary rate limit\"}}",
                "x".repeat(padding)
            );
            assert_eq!(says_secondary_rate_limit(text.as_bytes()), seen, "{padding}");
        }
        // A body of deep nesting or a megabyte of garbage costs the bound.
        let deep = format!("{{\"a\": {}", "[".repeat(1 << 20));
        assert_eq!(body_code(deep.as_bytes()), None);
    }

    #[test]
    fn githubs_secondary_rate_limit_is_found_in_any_case() {
        let github = br#"{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", "documentation_url": "https://docs.github.com/rest"}"#;
        assert!(says_secondary_rate_limit(github));
        assert!(says_secondary_rate_limit(b"Secondary Rate Limit exceeded"));
        assert!(!says_secondary_rate_limit(br#"{"message": "API rate limit exceeded"}"#));
        assert!(!says_secondary_rate_limit(b""));
    }

    #[test]
    fn codes_a_user_adds_must_be_able_to_match() {
        for code in ["QuotaExceeded", "Client.RequestLimitExceeded", "rate_limited", "too-busy", "E42"] {
            assert!(is_code(code), "{code}");
        }
        for code in ["", "a b", "ns#Code", "Code:url", "Throttlé", "tab\t"] {
            assert!(!is_code(code), "{code:?}");
        }
    }
}
