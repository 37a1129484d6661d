//! A real HTTP/1 server on 127.0.0.1 for the integration tests: each request
//! is answered by a script that sees the hit number, and hits are counted.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// What the server does with one request.
pub enum Reply {
    /// This status, with these headers, body `status`.
    Status(u16, Vec<(&'static str, String)>),
    /// This status, with these headers and this body.
    Body(u16, Vec<(&'static str, String)>, &'static str),
    /// Never answer.
    Hang,
}

impl Reply {
    pub fn ok() -> Reply {
        Reply::Status(200, Vec::new())
    }

    pub fn status(status: u16) -> Reply {
        Reply::Status(status, Vec::new())
    }

    pub fn with_header(status: u16, name: &'static str, value: impl Into<String>) -> Reply {
        Reply::Status(status, vec![(name, value.into())])
    }
}

/// A running server; it stops with the test's runtime.
pub struct Server {
    addr: SocketAddr,
    hits: Arc<AtomicU32>,
}

impl Server {
    /// Starts a server answering hit `n` (from 1) of any path with `script(n, method)`.
    pub async fn start<F>(script: F) -> Server
    where
        F: Fn(u32, &hyper::Method) -> Reply + Send + Sync + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local address");
        let hits = Arc::new(AtomicU32::new(0));
        let script = Arc::new(script);
        let counter = Arc::clone(&hits);
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { return };
                let (script, counter) = (Arc::clone(&script), Arc::clone(&counter));
                tokio::spawn(async move {
                    let service = service_fn(move |request: Request<Incoming>| {
                        let hit = counter.fetch_add(1, Ordering::SeqCst) + 1;
                        let reply = script(hit, request.method());
                        async move { Ok::<_, Infallible>(respond(reply).await) }
                    });
                    let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
                });
            }
        });
        Server { addr, hits }
    }

    /// A URL on this server.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Requests received so far.
    pub fn hits(&self) -> u32 {
        self.hits.load(Ordering::SeqCst)
    }
}

async fn respond(reply: Reply) -> Response<Full<Bytes>> {
    match reply {
        Reply::Status(status, headers) => {
            let mut response = Response::builder().status(status);
            for (name, value) in headers {
                response = response.header(name, value);
            }
            response.body(Full::new(Bytes::from(status.to_string()))).expect("valid response")
        }
        Reply::Body(status, headers, body) => {
            let mut response = Response::builder().status(status);
            for (name, value) in headers {
                response = response.header(name, value);
            }
            response.body(Full::new(Bytes::from_static(body.as_bytes()))).expect("valid response")
        }
        Reply::Hang => std::future::pending().await,
    }
}
