//! Reading a header dump: the last status line and the header lines after
//! it. Untrusted text (whatever a command wrote), so the fuzz target
//! `header_dump` (`fuzz/`) includes this file as it is: it uses nothing
//! but the `http` crate.

use http::header::{HeaderMap, HeaderName, HeaderValue};
use http::StatusCode;

/// The last response in a header dump: its status, reason phrase and
/// headers. Header lines after it (trailers, which curl writes there too)
/// join its headers; lines that are neither a status line nor a header
/// are skipped, and so is everything before the first status line.
pub fn parse_last(dump: &[u8]) -> Option<(StatusCode, String, HeaderMap)> {
    let mut last = None;
    for line in dump.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some((status, reason)) = status_line(line) {
            last = Some((status, reason, HeaderMap::new()));
        } else if let (Some((_, _, headers)), Some((name, value))) = (&mut last, header_line(line)) {
            headers.append(name, value);
        }
    }
    last
}

/// `HTTP/1.1 503 Service Unavailable`, `HTTP/2 429` or `HTTP/3 200`.
fn status_line(line: &[u8]) -> Option<(StatusCode, String)> {
    let rest = line.strip_prefix(b"HTTP/")?;
    let mut parts = rest.splitn(3, |&b| b == b' ');
    let _version = parts.next()?;
    let status = StatusCode::from_bytes(parts.next()?).ok()?;
    let reason = String::from_utf8_lossy(parts.next().unwrap_or_default()).trim().to_owned();
    Some((status, reason))
}

/// `Retry-After: 3`: a valid header name, a colon, and a value.
fn header_line(line: &[u8]) -> Option<(HeaderName, HeaderValue)> {
    let colon = line.iter().position(|&b| b == b':')?;
    let name = HeaderName::from_bytes(&line[..colon]).ok()?;
    let value = HeaderValue::from_bytes(line[colon + 1..].trim_ascii()).ok()?;
    Some((name, value))
}
