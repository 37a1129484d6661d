//! The start of a failed response's body, read so that the classifier
//! sees a throttling code there (S3's `<Code>SlowDown</Code>`), and the
//! response handed on with its whole body.
//!
//! Only a response whose body can change its classification is touched
//! ([`wants_body_start`]); from it, frames are read until
//! [`BODY_START_BYTES`] have come (or the body ends or fails), so at most
//! one frame past the bound is read from the connection. The frames read
//! are kept and given back first, then the rest of the body as it comes,
//! so the caller reads the same bytes, trailers and error, in the same
//! order, as from the response untouched.

use core::future::poll_fn;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::collections::VecDeque;

use ::reqwest::{Body, Response, ResponseBuilderExt};
use bytes::Bytes;
use http_body::{Body as _, Frame, SizeHint};

use crate::http::{wants_body_start, BodyStart, BODY_START_BYTES};

/// `response`, with the start of its body in its extensions as a
/// [`BodyStart`] if [`wants_body_start`] says it matters, and its body
/// whole. The status, version, headers, extensions and URL are kept; the
/// body is reqwest's own, wrapped, so its timeouts still apply.
pub(super) async fn with_body_start(response: Response) -> Response {
    if !wants_body_start(response.status(), response.headers()) {
        return response;
    }
    let url = response.url().clone();
    let (mut parts, mut body) = ::http::Response::<Body>::from(response).into_parts();
    let mut prefixed = Prefixed { read: VecDeque::new(), failed: None, rest: None };
    let mut start = Vec::new();
    let ended = loop {
        if start.len() >= BODY_START_BYTES {
            break false;
        }
        match poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    let room = BODY_START_BYTES - start.len();
                    start.extend_from_slice(&data[..data.len().min(room)]);
                }
                prefixed.read.push_back(frame);
            }
            Some(Err(error)) => {
                prefixed.failed = Some(error);
                break true;
            }
            None => break true,
        }
    };
    if !ended {
        prefixed.rest = Some(body);
    }
    parts.extensions.insert(BodyStart::new(&start));
    // reqwest keeps a response's URL in an extension of its own, which
    // only its response builder can make.
    if let Ok(with_url) = ::http::Response::builder().url(url).body(()) {
        parts.extensions.extend(with_url.into_parts().0.extensions);
    }
    Response::from(::http::Response::from_parts(parts, Body::wrap(prefixed)))
}

/// A body whose first frames were read: those again, then the error that
/// stopped the reading if one did, then the rest.
struct Prefixed {
    read: VecDeque<Frame<Bytes>>,
    failed: Option<::reqwest::Error>,
    rest: Option<Body>,
}

impl Prefixed {
    /// The bytes of the frames read and not yet given back.
    fn buffered(&self) -> u64 {
        self.read.iter().filter_map(Frame::data_ref).map(|data| data.len() as u64).sum()
    }
}

impl http_body::Body for Prefixed {
    type Data = Bytes;
    type Error = ::reqwest::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, ::reqwest::Error>>> {
        let this = self.get_mut();
        if let Some(frame) = this.read.pop_front() {
            return Poll::Ready(Some(Ok(frame)));
        }
        if let Some(error) = this.failed.take() {
            return Poll::Ready(Some(Err(error)));
        }
        match &mut this.rest {
            Some(rest) => Pin::new(rest).poll_frame(cx),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.read.is_empty() && self.failed.is_none() && self.rest.as_ref().is_none_or(Body::is_end_stream)
    }

    /// The rest's hint plus what is buffered: a response whose length was
    /// known keeps its `content_length`.
    fn size_hint(&self) -> SizeHint {
        let buffered = self.buffered();
        let Some(rest) = &self.rest else { return SizeHint::with_exact(buffered) };
        let rest = rest.size_hint();
        let mut hint = SizeHint::new();
        hint.set_lower(rest.lower().saturating_add(buffered));
        if let Some(upper) = rest.upper().and_then(|upper| upper.checked_add(buffered)) {
            hint.set_upper(upper);
        }
        hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A body of `frames`, counting the frames taken from it, that fails
    /// after them if `fail` is set; its size hint is the bytes left, as
    /// hyper's is for a body of known length.
    struct Counted {
        frames: VecDeque<Bytes>,
        taken: Arc<AtomicUsize>,
        fail: bool,
    }

    impl http_body::Body for Counted {
        type Data = Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            let this = self.get_mut();
            match this.frames.pop_front() {
                Some(data) => {
                    this.taken.fetch_add(1, Ordering::SeqCst);
                    Poll::Ready(Some(Ok(Frame::data(data))))
                }
                None if std::mem::take(&mut this.fail) => {
                    Poll::Ready(Some(Err(std::io::Error::from(std::io::ErrorKind::ConnectionReset))))
                }
                None => Poll::Ready(None),
            }
        }

        fn size_hint(&self) -> SizeHint {
            SizeHint::with_exact(self.frames.iter().map(|data| data.len() as u64).sum())
        }
    }

    /// A response of `status` whose body is `frames` frames of 1 KiB, and
    /// the count of frames taken from it.
    fn response(status: u16, frames: usize, fail: bool) -> (Response, Arc<AtomicUsize>) {
        let taken = Arc::new(AtomicUsize::new(0));
        let data: VecDeque<Bytes> =
            (0..frames).map(|i| Bytes::from(vec![b'a' + (i % 26) as u8; 1024])).collect();
        let body = Counted { frames: data, taken: Arc::clone(&taken), fail };
        let response = ::http::Response::builder()
            .status(status)
            .version(::http::Version::HTTP_11)
            .header("x-request-id", "r-1")
            .url("http://127.0.0.1:9/bucket/key".parse().unwrap())
            .body(Body::wrap(body))
            .unwrap();
        (Response::from(response), taken)
    }

    fn whole(frames: usize) -> Vec<u8> {
        (0..frames).flat_map(|i| vec![b'a' + (i % 26) as u8; 1024]).collect()
    }

    #[tokio::test]
    async fn reads_no_more_than_the_bound_and_hands_on_the_whole_body() {
        let (response, taken) = response(503, 100, false);
        let response = with_body_start(response).await;
        assert_eq!(
            taken.load(Ordering::SeqCst),
            BODY_START_BYTES / 1024,
            "frames read before the caller reads"
        );
        let start = response.extensions().get::<BodyStart>().expect("the start, kept").as_bytes();
        assert_eq!(start, &whole(100)[..BODY_START_BYTES]);
        // Everything of the response is kept, its length included.
        assert_eq!((response.status().as_u16(), response.version()), (503, ::http::Version::HTTP_11));
        assert_eq!(response.headers()["x-request-id"], "r-1");
        assert_eq!(response.url().as_str(), "http://127.0.0.1:9/bucket/key");
        assert_eq!(response.content_length(), Some(100 * 1024));
        assert_eq!(response.bytes().await.unwrap(), whole(100));
        assert_eq!(taken.load(Ordering::SeqCst), 100);
    }

    #[tokio::test]
    async fn a_short_body_is_read_to_its_end_and_given_back() {
        let (response, taken) = response(400, 2, false);
        let response = with_body_start(response).await;
        assert_eq!(taken.load(Ordering::SeqCst), 2);
        assert_eq!(response.extensions().get::<BodyStart>().unwrap().as_bytes(), whole(2));
        assert_eq!(response.content_length(), Some(2048));
        assert_eq!(response.bytes().await.unwrap(), whole(2));
    }

    #[tokio::test]
    async fn a_response_whose_body_cannot_matter_is_not_touched() {
        for status in [200, 404, 500] {
            let (response, taken) = response(status, 3, false);
            let response = with_body_start(response).await;
            assert_eq!(taken.load(Ordering::SeqCst), 0, "{status}");
            assert!(response.extensions().get::<BodyStart>().is_none());
            assert_eq!(response.bytes().await.unwrap(), whole(3));
        }
    }

    #[tokio::test]
    async fn a_body_that_fails_early_fails_where_it_did() {
        let (response, _) = response(503, 1, true);
        let response = with_body_start(response).await;
        assert_eq!(response.extensions().get::<BodyStart>().unwrap().as_bytes(), whole(1));
        let mut response = response;
        assert_eq!(response.chunk().await.unwrap().unwrap(), whole(1));
        let error = response.chunk().await.unwrap_err();
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&error);
        while let Some(error) = cause {
            if let Some(io) = error.downcast_ref::<std::io::Error>() {
                assert_eq!(io.kind(), std::io::ErrorKind::ConnectionReset);
                return;
            }
            cause = error.source();
        }
        panic!("the body's own error is lost: {error:?}");
    }
}
