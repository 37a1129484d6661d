//! The throttling a response says in words: the error code at the start
//! of a body (XML `<Code>`, JSON `__type` or `code`), GitHub's "secondary
//! rate limit", and the classification of a failed response with that
//! body. The input is the body.
//!
//! Nothing past `BODY_START_BYTES` is ever read: the answers for the input
//! and for its first `BODY_START_BYTES` are the same, whatever follows. A
//! code found is text of that start, not empty, trimmed and without a
//! `:`; and the classification with the body is the one without it, but
//! for the throttles a body can add.

#![no_main]

use http::{HeaderMap, StatusCode};
use libfuzzer_sys::fuzz_target;
use staggered::classify::throttling::{body_code, says_secondary_rate_limit, BODY_START_BYTES};
use staggered::http::ClassifyHttp;
use staggered::ErrorKind;

fuzz_target!(|data: &[u8]| {
    let start = &data[..data.len().min(BODY_START_BYTES)];
    let code = body_code(data);
    assert_eq!(code, body_code(start));
    assert_eq!(says_secondary_rate_limit(data), says_secondary_rate_limit(start));
    let mut longer = start.to_vec();
    longer.resize(BODY_START_BYTES, b' ');
    longer.extend_from_slice(b"<Code>SlowDown</Code>{\"code\": \"Throttling\"} secondary rate limit");
    assert_eq!(body_code(&longer[..BODY_START_BYTES]), body_code(&longer));
    if let Some(code) = code {
        assert!(!code.is_empty() && code.trim() == code && !code.contains(':'), "{code:?}");
        let at = code.as_ptr() as usize - start.as_ptr() as usize;
        assert!(at + code.len() <= start.len(), "{code:?} is not of the start");
    }

    let classify = ClassifyHttp::new();
    let headers = HeaderMap::new();
    for status in [200, 400, 403, 404, 429, 500, 503] {
        let status = StatusCode::from_u16(status).unwrap();
        let without = classify.classify_parts(status, &headers);
        let with = classify.classify_with_body(status, &headers, data);
        assert_eq!(with.is_none(), without.is_none(), "{status}");
        let (Some(with), Some(without)) = (with, without) else { continue };
        if with != without {
            // Only a throttle a body can say: a code, GitHub's limit.
            assert_eq!(with.kind, ErrorKind::Throttled, "{status}: {with:?}");
            assert!(code.is_some() || says_secondary_rate_limit(data), "{status}: {with:?}");
            assert!(matches!(status.as_u16(), 400 | 403 | 429 | 503), "{status}: {with:?}");
        }
    }
});
