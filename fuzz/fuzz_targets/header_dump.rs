//! The header dump `stagger run --http-headers` reads (`curl -D FILE`):
//! the last response counts, as an independent reading of the lines finds
//! it; its status, reason and headers written back as a dump parse the
//! same; and its classification follows the HTTP rules, throttles
//! included, with a hint whose wait through the retry decision stays
//! within the policy's bound.

#![no_main]

use http::header::{HeaderName, HeaderValue};
use http::StatusCode;
use libfuzzer_sys::fuzz_target;
use staggered::classify::throttling::{error_type_code, is_aws_throttling_code};
use staggered::http::ClassifyHttp;
use staggered::{ErrorKind, Failure, Hint};
use staggered_fuzz::header_dump::parse_last;
use staggered_fuzz::hint::check_through_decisions;

fuzz_target!(|data: &[u8]| {
    let lines: Vec<&[u8]> =
        data.split(|&b| b == b'\n').map(|line| line.strip_suffix(b"\r").unwrap_or(line)).collect();
    let last = lines.iter().rposition(|line| status_of(line).is_some());
    let parsed = parse_last(data);
    let (Some(at), Some((status, reason, headers))) = (last, &parsed) else {
        assert!(last.is_none() && parsed.is_none(), "a status line at {last:?}, parsed as {parsed:?}");
        return;
    };

    // The last status line, read on its own.
    let (code, rest) = status_of(lines[at]).unwrap();
    assert_eq!(status.as_str().as_bytes(), code, "{:?}", String::from_utf8_lossy(lines[at]));
    assert_eq!(*reason, String::from_utf8_lossy(rest).trim(), "{:?}", String::from_utf8_lossy(lines[at]));
    // Its headers are the lines after it that hold one, each once, in order.
    let expected: Vec<(HeaderName, HeaderValue)> =
        lines[at + 1..].iter().filter_map(|line| header_of(line)).collect();
    let found: Vec<(HeaderName, HeaderValue)> =
        headers.iter().map(|(name, value)| (name.clone(), value.clone())).collect();
    let by_name = |pairs: &[(HeaderName, HeaderValue)]| {
        let mut sorted = pairs.to_vec();
        sorted.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        sorted
    };
    assert_eq!(by_name(&found), by_name(&expected), "the headers after the last status line");

    // Written back as a dump of its own, it parses the same.
    let mut dump = format!("HTTP/1.1 {} {reason}\r\n", status.as_u16()).into_bytes();
    for (name, value) in headers {
        dump.extend_from_slice(format!("{name}: ").as_bytes());
        dump.extend_from_slice(value.as_bytes());
        dump.extend_from_slice(b"\r\n");
    }
    dump.extend_from_slice(b"\r\n");
    assert_eq!(parse_last(&dump).as_ref(), parsed.as_ref(), "{:?}", String::from_utf8_lossy(&dump));

    check_classification(*status, headers);
});

/// The status code and the rest of a status line (`HTTP/<version> <3
/// digits, 100 to 999>[ <reason>]`), or `None` for any other line.
fn status_of(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = line.strip_prefix(b"HTTP/")?;
    let mut parts = rest.splitn(3, |&b| b == b' ');
    let _version = parts.next()?;
    let code = parts.next()?;
    let valid = code.len() == 3 && code.iter().all(u8::is_ascii_digit) && code[0] != b'0';
    valid.then(|| (code, parts.next().unwrap_or_default()))
}

/// A header line: a name the `http` crate takes, a colon, and a value it
/// takes once the spaces around it are gone.
fn header_of(line: &[u8]) -> Option<(HeaderName, HeaderValue)> {
    let colon = line.iter().position(|&b| b == b':')?;
    let value = line[colon + 1..].trim_ascii();
    Some((HeaderName::from_bytes(&line[..colon]).ok()?, HeaderValue::from_bytes(value).ok()?))
}

/// 1xx to 3xx are no failure; a 4xx other than 408 and 429 stops, hint or
/// not, unless it says it is a throttle; 408, 429 and 5xx retry; an AWS
/// throttling code in `x-amzn-ErrorType`, a 429 and a 503 that says when
/// to come back are throttles, and only they and a 403 with quota fields
/// (GitHub's rate limit) are; the hint stays within every policy's bound.
fn check_classification(status: StatusCode, headers: &http::HeaderMap) {
    let failure = ClassifyHttp::new().classify_parts(status, headers);
    let code = status.as_u16();
    let Some(failure) = failure else {
        assert!(code < 400, "{code} is a failure");
        return;
    };
    let aws_code = headers
        .get("x-amzn-errortype")
        .and_then(|value| value.to_str().ok())
        .map(error_type_code)
        .is_some_and(is_aws_throttling_code);
    let come_back = code == 503 && matches!(failure.hint, Some(Hint::After(_)));
    let quota_fields = ["x-ratelimit-remaining", "ratelimit"].iter().any(|name| headers.contains_key(*name));
    if aws_code || code == 429 || come_back {
        assert_eq!(failure.kind, ErrorKind::Throttled, "{code}");
    }
    match failure.kind {
        ErrorKind::Throttled => {
            assert!(
                aws_code || code == 429 || come_back || (code == 403 && quota_fields),
                "{code}: {failure:?}"
            )
        }
        ErrorKind::Transient => assert!(code == 408 || (500..=599).contains(&code), "{code}"),
        _ => {
            assert!(!matches!(code, 408 | 429 | 500..=599), "{code}");
            assert_eq!(failure, Failure::PERMANENT, "{code}");
        }
    }
    if let Some(hint) = failure.hint {
        check_through_decisions(hint);
    }
}
