//! `--http-headers FILE`: retries that know what an HTTP server answered.
//!
//! A command that speaks HTTP writes the response's status line and headers
//! to FILE (`curl -D FILE`, `wget --server-response` to a file, or any
//! script). Before each attempt `stagger` empties FILE; after a failed one
//! it reads the last response there and classifies it with the library's
//! HTTP rules ([`ClassifyHttp`], with the `--config` file's status lists):
//! 4xx other than 408 and 429 stop, 408, 429 and 5xx are retried, and the
//! server's `Retry-After` (or `x-amz-retry-after`, `grpc-retry-pushback-ms`)
//! sets the wait through the retry decision's hint rules: at least the hint,
//! and a stop if it is longer than `--max-hint`. An attempt that left no
//! response, or a response that is no error (curl's exit 7 or 28, a 200
//! followed by a write error), is classified by its exit code as usual.
//!
//! A server that announces its quota (the IETF `RateLimit` field,
//! `X-RateLimit-Remaining` and `-Reset`, as GitHub sends) and answers a
//! retryable failure with the quota spent and no `Retry-After` has said
//! when to come back all the same: at the reset. That wait is the
//! failure's hint, under the same rules (`--max-hint` included).
//!
//! The file holds every response of the attempt in order (a `100 Continue`,
//! a proxy's `200 Connection established`, each redirect with `curl -L`);
//! the last status line and the header lines after it are what counts.
//!
//! A throttle is sometimes said only in the body (S3's 503 with
//! `<Code>SlowDown</Code>`, GitHub's 403 "secondary rate limit"):
//! `--http-body FILE` names the file the command writes the body to
//! (`curl -o FILE`), emptied before each attempt as the headers' file is.
//! Its first [`BODY_START_BYTES`] are read when the library's rules say the
//! body can change the classification ([`wants_body_start`]), and handed to
//! the classifier with the headers; without it, the header forms
//! (`x-amzn-ErrorType`, the quota fields) still count.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use http::StatusCode;
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use staggered::http::{wants_body_start, ClassifyHttp, BODY_START_BYTES};
use staggered::{Failure, Hint, Quota};

mod parse;

use parse::parse_last;

/// A header dump larger than this is no header dump: it is not read.
const MAX_BYTES: u64 = 1 << 20;

/// The most characters of a reason phrase that a log line shows: a real one
/// is a few words; a longer one is cut, and ends in `…`.
const MAX_REASON_CHARS: usize = 200;

/// The file named by `--http-headers`, the one named by `--http-body` if
/// any, and how their responses are classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderDump {
    path: PathBuf,
    body: Option<PathBuf>,
    classify: ClassifyHttp,
}

/// The last response an attempt wrote, as the retry decision sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The reason phrase the server sent (possibly empty, as in HTTP/2).
    pub reason: String,
    /// The failure it is, with the server's hint; `None` for a success.
    pub failure: Option<Failure>,
    /// Where the hint came from, if there is one.
    pub hint_from: HintFrom,
}

/// Where the hint of a response's failure came from, for the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HintFrom {
    /// A header that asks for a wait (`Retry-After` and its kin), or no hint.
    Server,
    /// The reset of a quota the server said is spent.
    QuotaReset,
    /// The library's rule for a rate limit that names no wait (GitHub's
    /// secondary rate limit: at least a minute).
    RateLimit,
}

impl Response {
    /// For logs: `HTTP 429 Too Many Requests, server asked for 3s`, with at
    /// most [`MAX_REASON_CHARS`] of the reason phrase.
    pub fn describe(&self) -> String {
        let reason = if self.reason.is_empty() {
            StatusCode::from_u16(self.status).ok().and_then(|s| s.canonical_reason()).unwrap_or_default()
        } else {
            &self.reason
        };
        let mut text = format!("HTTP {} ", self.status);
        text.extend(reason.chars().take(MAX_REASON_CHARS));
        if reason.chars().nth(MAX_REASON_CHARS).is_some() {
            text.push('…');
        }
        text.truncate(text.trim_end().len());
        match self.hint() {
            Some(Hint::After(wait)) if self.hint_from == HintFrom::QuotaReset => {
                text.push_str(&format!(
                    ", quota spent until its reset in {}",
                    crate::duration::format_rounded(wait)
                ));
            }
            Some(Hint::After(wait)) if self.hint_from == HintFrom::RateLimit => {
                text.push_str(&format!(
                    ", rate limited: waiting at least {}",
                    crate::duration::format_rounded(wait)
                ));
            }
            Some(Hint::After(wait)) => {
                text.push_str(&format!(", server asked for {}", crate::duration::format_rounded(wait)));
            }
            Some(Hint::Never) => text.push_str(", server said not to retry"),
            None => {}
        }
        text
    }

    /// The server's hint, if it is a failure that carries one.
    pub fn hint(&self) -> Option<Hint> {
        self.failure.and_then(|failure| failure.hint)
    }
}

/// The wait for the reset of `quota`, if `failure` may be retried, the
/// server asked for no wait (`asked`), and `quota` is spent. The library
/// waits so for a 403 or 429; a command's 5xx with a spent quota waits the
/// same here.
fn wait_for_reset(failure: Failure, asked: Option<Hint>, quota: Option<Quota>) -> Option<Hint> {
    let quota = quota.filter(|quota| quota.remaining == 0)?;
    (failure.is_retryable() && asked.is_none()).then_some(Hint::After(quota.reset))
}

impl HeaderDump {
    /// The dump at `path`, classified by `classify`.
    pub fn new(path: PathBuf, classify: ClassifyHttp) -> Self {
        HeaderDump { path, body: None, classify }
    }

    /// The same dump, with the response's body read from `body`.
    pub fn with_body(mut self, body: PathBuf) -> Self {
        self.body = Some(body);
        self
    }

    /// The path, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Checks, before anything runs, that the command can write the file
    /// and `stagger` empty it: its directory exists, and it is a regular
    /// file if it exists.
    ///
    /// # Errors
    /// A message saying what is wrong with the path.
    pub fn check(&self) -> Result<(), String> {
        check_path(&self.path)
    }

    /// Checks the body's file as [`check`](Self::check) checks the headers'.
    ///
    /// # Errors
    /// A message saying what is wrong with the path.
    pub fn check_body(&self) -> Result<(), String> {
        self.body.as_deref().map_or(Ok(()), check_path)
    }

    /// Empties the files before an attempt, so that a response read after
    /// it is that attempt's. A file that does not exist is left so.
    ///
    /// # Errors
    /// When a file exists and cannot be emptied.
    pub fn clear(&self) -> io::Result<()> {
        empty(&self.path)?;
        self.body.as_deref().map_or(Ok(()), |body| empty(body).map_err(|err| in_body(body, err)))
    }

    /// The last response in the file, classified with the start of its
    /// body if there is a body's file and the body can matter; `None` when
    /// the file is missing or holds no status line.
    ///
    /// # Errors
    /// When a file cannot be read or is not a regular file, or the
    /// headers' file is too large to be a header dump.
    pub fn read(&self) -> io::Result<Option<Response>> {
        let Some(file) = open_regular(&self.path, OFlags::RDONLY)? else { return Ok(None) };
        let mut bytes = Vec::new();
        file.take(MAX_BYTES + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_BYTES {
            return Err(io::Error::other(format!("larger than {} KiB, not a header dump", MAX_BYTES >> 10)));
        }
        let Some((status, reason, headers)) = parse_last(&bytes) else { return Ok(None) };
        let body = match &self.body {
            Some(path) if wants_body_start(status, &headers) => body_start(path)?,
            _ => Vec::new(),
        };
        let now = SystemTime::now();
        let (asked, quota) = (staggered::http::hint(&headers, now), staggered::http::quota(&headers, now));
        let failure = self.classify.classify_with_body(status, &headers, &body);
        let reset = failure.and_then(|failure| wait_for_reset(failure, asked, quota));
        let failure = failure.map(|failure| reset.map_or(failure, |hint| failure.with_hint(hint)));
        let hint_from = match failure.and_then(|failure| failure.hint) {
            _ if reset.is_some() => HintFrom::QuotaReset,
            Some(_) if asked.is_none() => HintFrom::RateLimit,
            _ => HintFrom::Server,
        };
        Ok(Some(Response { status: status.as_u16(), reason, failure, hint_from }))
    }
}

/// The first [`BODY_START_BYTES`] of the body's file at `path`; nothing if
/// it does not exist (the command wrote no body).
fn body_start(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if let Some(file) = open_regular(path, OFlags::RDONLY).map_err(|err| in_body(path, err))? {
        file.take(BODY_START_BYTES as u64).read_to_end(&mut bytes).map_err(|err| in_body(path, err))?;
    }
    Ok(bytes)
}

/// An error of the body's file at `path`, naming it: the warning that
/// reports it names the headers' file.
/// Empties the regular file at `path`; one that does not exist is left so.
fn empty(path: &Path) -> io::Result<()> {
    open_regular(path, OFlags::WRONLY)?.map_or(Ok(()), |file| file.set_len(0))
}

fn in_body(path: &Path, err: io::Error) -> io::Error {
    io::Error::new(err.kind(), format!("the body's file {}: {err}", path.display()))
}

/// Checks that a command can write the file at `path` and `stagger` empty
/// it: its directory exists, and it is a regular file if it exists.
fn check_path(path: &Path) -> Result<(), String> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(_) => Err(format!("{} is not a regular file", path.display())),
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty());
            match dir {
                Some(dir) if !dir.is_dir() => Err(format!("{}: no such directory", dir.display())),
                _ => Ok(()),
            }
        }
        Err(err) => Err(format!("{}: {err}", path.display())),
    }
}

/// Opens `path` for `access` if it is a regular file; `None` if it does not
/// exist. It never blocks (a FIFO's `open()` waits for the other end, deaf
/// to signals) and refuses anything else (`/dev/zero` never ends), checking
/// the opened file so that the path cannot change in between. A FIFO or
/// socket with no reader refuses to open for writing (ENXIO): the same.
fn open_regular(path: &Path, access: OFlags) -> io::Result<Option<fs::File>> {
    let flags = access | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let not_regular = || io::Error::other("not a regular file");
    let file = match rustix::fs::open(path, flags, Mode::empty()) {
        Ok(fd) => fs::File::from(fd),
        Err(Errno::NOENT) => return Ok(None),
        Err(Errno::NXIO) => return Err(not_regular()),
        Err(err) => return Err(err.into()),
    };
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(Some(file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use staggered::ErrorKind;
    use std::time::Duration;

    fn classify(dump: &str) -> Option<Response> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("headers");
        fs::write(&path, dump).unwrap();
        HeaderDump::new(path, ClassifyHttp::new()).read().unwrap()
    }

    #[test]
    fn the_last_response_counts() {
        let dump = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 301 Moved\r\nLocation: /b\r\n\r\n\
                    HTTP/2 429 \r\nretry-after: 3\r\ncontent-type: text/plain\r\n\r\n";
        let response = classify(dump).unwrap();
        assert_eq!((response.status, response.reason.as_str()), (429, ""));
        let failure = response.failure.unwrap();
        assert_eq!(failure.kind, ErrorKind::Throttled);
        assert_eq!(failure.hint, Some(Hint::After(Duration::from_secs(3))));
        assert_eq!(response.describe(), "HTTP 429 Too Many Requests, server asked for 3s");
    }

    #[test]
    fn a_spent_quota_waits_for_its_reset() {
        // GitHub's answer once the hour's quota is spent: no Retry-After.
        let dump = "HTTP/2 429 \r\nx-ratelimit-limit: 60\r\nx-ratelimit-remaining: 0\r\n\
                    x-ratelimit-reset: 42\r\n\r\n";
        let response = classify(dump).unwrap();
        assert_eq!(response.hint(), Some(Hint::After(Duration::from_secs(42))));
        assert_eq!(response.describe(), "HTTP 429 Too Many Requests, quota spent until its reset in 42s");
        // Retry-After says more than the quota; a quota left, or a 404, says nothing.
        let asked = classify("HTTP/1.1 503 x\nretry-after: 3\nratelimit: \"d\";r=0;t=60\n\n").unwrap();
        assert_eq!(asked.hint(), Some(Hint::After(Duration::from_secs(3))));
        assert_eq!(asked.hint_from, HintFrom::Server);
        // A 503 waits for the reset too, and a 403 is GitHub's throttle.
        let spent = classify("HTTP/1.1 503 x\nratelimit: \"d\";r=0;t=60\n\n").unwrap();
        assert_eq!(
            (spent.hint(), spent.hint_from),
            (Some(Hint::After(Duration::from_secs(60))), HintFrom::QuotaReset)
        );
        let github =
            classify("HTTP/2 403 \r\nx-ratelimit-remaining: 0\r\nx-ratelimit-reset: 42\r\n\r\n").unwrap();
        assert_eq!(github.failure.map(|f| f.kind), Some(ErrorKind::Throttled));
        assert_eq!(github.describe(), "HTTP 403 Forbidden, quota spent until its reset in 42s");
        let left = classify("HTTP/1.1 503 x\nratelimit: \"d\";r=5;t=60\n\n").unwrap();
        assert_eq!(left.hint(), None);
        let gone = classify("HTTP/1.1 404 x\nx-ratelimit-remaining: 0\nx-ratelimit-reset: 9\n\n").unwrap();
        assert_eq!(gone.failure, Some(Failure::PERMANENT));
    }

    #[test]
    fn statuses_follow_the_librarys_rules() {
        let kind =
            |status: &str| classify(&format!("HTTP/1.1 {status}\n\n")).unwrap().failure.map(|f| f.kind);
        assert_eq!(kind("404 Not Found"), Some(ErrorKind::Permanent));
        assert_eq!(kind("408 Request Timeout"), Some(ErrorKind::Transient));
        assert_eq!(kind("503 Service Unavailable"), Some(ErrorKind::Transient));
        assert_eq!(kind("200 OK"), None);
        // A 4xx is permanent, whatever its headers say.
        let gone = classify("HTTP/1.1 404 Not Found\nRetry-After: 5\n\n").unwrap();
        assert_eq!(gone.failure, Some(Failure::PERMANENT));
        assert_eq!(gone.describe(), "HTTP 404 Not Found");
    }

    /// The response in `dump`, with `body` in a body's file, classified by `classify`.
    fn with_body(dump: &str, body: &str, classify: ClassifyHttp) -> Response {
        let dir = tempfile::tempdir().unwrap();
        let (headers, body_path) = (dir.path().join("h"), dir.path().join("b"));
        fs::write(&headers, dump).unwrap();
        fs::write(&body_path, body).unwrap();
        HeaderDump::new(headers, classify).with_body(body_path).read().unwrap().unwrap()
    }

    #[test]
    fn throttling_codes_in_the_headers_and_the_body_file() {
        let kind = |response: &Response| response.failure.map(|f| f.kind);
        let slow_down =
            "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
        // The header form needs no body; S3's body form needs the body's file.
        let header =
            classify("HTTP/1.1 400 Bad Request\nx-amzn-ErrorType: ThrottlingException:http://x/\n\n");
        assert_eq!(header.as_ref().and_then(kind), Some(ErrorKind::Throttled));
        assert_eq!(
            classify("HTTP/1.1 503 Slow Down\n\n").as_ref().and_then(kind),
            Some(ErrorKind::Transient)
        );
        let s3 = with_body("HTTP/1.1 503 Slow Down\n\n", slow_down, ClassifyHttp::new());
        assert_eq!(kind(&s3), Some(ErrorKind::Throttled));
        // Codes of one's own, and a bare 503 by the setting.
        let own = "HTTP/1.1 400 Bad Request\n\n";
        let body = r#"{"code": "QuotaExceeded"}"#;
        assert_eq!(kind(&with_body(own, body, ClassifyHttp::new())), Some(ErrorKind::Permanent));
        let mine = ClassifyHttp::new().with_throttling_codes(["QuotaExceeded"]);
        assert_eq!(kind(&with_body(own, body, mine)), Some(ErrorKind::Throttled));
        let nginx = ClassifyHttp::new().with_bare_503_as_throttle(true);
        assert_eq!(
            kind(&with_body("HTTP/1.1 503 x\n\n", "<html>busy</html>", nginx)),
            Some(ErrorKind::Throttled)
        );
        // GitHub's secondary limit: a 403 that waits a minute.
        let github = r#"{"message": "You have exceeded a secondary rate limit."}"#;
        let secondary = with_body("HTTP/2 403 \r\n\r\n", github, ClassifyHttp::new());
        assert_eq!(
            (kind(&secondary), secondary.hint_from),
            (Some(ErrorKind::Throttled), HintFrom::RateLimit)
        );
        assert_eq!(secondary.describe(), "HTTP 403 Forbidden, rate limited: waiting at least 1m");
        // A missing body's file is an empty body; only the start is read.
        let dir = tempfile::tempdir().unwrap();
        let headers = dir.path().join("h");
        fs::write(&headers, "HTTP/1.1 503 x\n\n").unwrap();
        let dump = HeaderDump::new(headers, ClassifyHttp::new()).with_body(dir.path().join("none"));
        assert_eq!(dump.read().unwrap().as_ref().and_then(kind), Some(ErrorKind::Transient));
        let far = with_body(
            "HTTP/1.1 503 x\n\n",
            &format!("{}{slow_down}", " ".repeat(BODY_START_BYTES)),
            ClassifyHttp::new(),
        );
        assert_eq!(kind(&far), Some(ErrorKind::Transient));
    }

    #[test]
    fn the_body_file_is_checked_and_emptied_with_the_headers() {
        let dir = tempfile::tempdir().unwrap();
        let (headers, body) = (dir.path().join("h"), dir.path().join("b"));
        let dump = HeaderDump::new(headers.clone(), ClassifyHttp::new()).with_body(body.clone());
        assert_eq!(dump.check_body(), Ok(()));
        fs::write(&headers, "HTTP/1.1 503 x\n\n").unwrap();
        fs::write(&body, "<Error><Code>SlowDown</Code></Error>").unwrap();
        dump.clear().unwrap();
        assert_eq!((fs::read(&headers).unwrap(), fs::read(&body).unwrap()), (vec![], vec![]));
        let not_a_file =
            HeaderDump::new(headers.clone(), ClassifyHttp::new()).with_body(dir.path().to_owned());
        assert!(not_a_file.check_body().unwrap_err().ends_with("is not a regular file"));
        fs::write(&headers, "HTTP/1.1 503 x\n\n").unwrap();
        let err = not_a_file.read().unwrap_err().to_string();
        assert!(err.starts_with(&format!("the body's file {}: ", dir.path().display())), "{err}");
    }

    #[test]
    fn the_status_lists_apply() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h");
        fs::write(&path, "HTTP/1.1 409 Conflict\n\n").unwrap();
        let lists = ClassifyHttp::new().with_retry_status(409);
        let response = HeaderDump::new(path, lists).read().unwrap().unwrap();
        assert_eq!(response.failure, Some(Failure::TRANSIENT));
    }

    #[test]
    fn nothing_to_read_is_no_response_and_garbage_is_skipped() {
        assert_eq!(classify(""), None);
        assert_eq!(classify("curl: (7) Failed to connect\n"), None);
        assert_eq!(classify("HTTP/1.1 abc Nonsense\n"), None);
        let dir = tempfile::tempdir().unwrap();
        let missing = HeaderDump::new(dir.path().join("never-written"), ClassifyHttp::new());
        assert_eq!(missing.read().unwrap(), None);
        missing.clear().expect("a missing file stays missing");
        assert!(!missing.path().exists());
        // Broken header lines are skipped; a trailer joins the last response.
        let dump = "HTTP/1.1 503 Service Unavailable\nbad header\n: empty\nRetry-After: soon\n\n\
                    x-amz-retry-after: 1500\n";
        let response = classify(dump).unwrap();
        assert_eq!(response.hint(), Some(Hint::After(Duration::from_millis(1500))));
    }

    #[test]
    fn the_file_is_checked_and_emptied() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h");
        let dump = HeaderDump::new(path.clone(), ClassifyHttp::new());
        assert_eq!(dump.check(), Ok(()), "not there yet: the command creates it");
        fs::write(&path, "HTTP/1.1 503 x\n\n").unwrap();
        dump.clear().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"");
        assert!(HeaderDump::new(dir.path().to_owned(), ClassifyHttp::new())
            .check()
            .unwrap_err()
            .ends_with("is not a regular file"));
        let nowhere = HeaderDump::new(dir.path().join("no/such/dir/h"), ClassifyHttp::new());
        assert!(nowhere.check().unwrap_err().ends_with("no/such/dir: no such directory"));
        fs::write(&path, vec![b'x'; (MAX_BYTES + 1) as usize]).unwrap();
        assert!(dump.read().unwrap_err().to_string().contains("not a header dump"));
    }
}
