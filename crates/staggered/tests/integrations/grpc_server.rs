//! A real gRPC server on 127.0.0.1 for the tonic tests: gRPC's health
//! service, from tonic-health, whose generated code ships in the crate (no
//! `protoc` to build or test). Each `Check` call is answered by a script
//! that sees the call's number; the calls are counted and their metadata
//! kept.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use ::tonic::codegen::tokio_stream;
use ::tonic::metadata::MetadataMap;
use ::tonic::transport::server::TcpIncoming;
use ::tonic::transport::{Channel, Endpoint, Server};
use ::tonic::{Request, Response, Status};
use tokio::net::TcpListener;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};

/// What the server does with one call.
pub enum Reply {
    /// Answers `SERVING`.
    Serving,
    /// Answers with this serving status.
    Status(ServingStatus),
    /// Fails with this status.
    Fail(Status),
    /// Never answers.
    Hang,
}

impl Reply {
    /// Fails with `status` and a `grpc-retry-pushback-ms` of `pushback`.
    pub fn pushback(mut status: Status, pushback: &str) -> Reply {
        status.metadata_mut().insert("grpc-retry-pushback-ms", pushback.parse().unwrap());
        Reply::Fail(status)
    }
}

type Script = dyn Fn(u32) -> Reply + Send + Sync;

struct Scripted {
    script: Arc<Script>,
    calls: Arc<AtomicU32>,
    seen: Arc<Mutex<Vec<MetadataMap>>>,
}

#[::tonic::async_trait]
impl Health for Scripted {
    async fn check(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        self.seen.lock().unwrap().push(request.metadata().clone());
        match (self.script)(call) {
            Reply::Serving => {
                Ok(Response::new(HealthCheckResponse { status: ServingStatus::Serving.into() }))
            }
            Reply::Status(status) => Ok(Response::new(HealthCheckResponse { status: status.into() })),
            Reply::Fail(status) => Err(status),
            Reply::Hang => std::future::pending().await,
        }
    }

    type WatchStream = tokio_stream::Empty<Result<HealthCheckResponse, Status>>;

    async fn watch(&self, _: Request<HealthCheckRequest>) -> Result<Response<Self::WatchStream>, Status> {
        Err(Status::unimplemented("watch"))
    }
}

/// A running server; it stops with the test's runtime.
pub struct GrpcServer {
    addr: SocketAddr,
    calls: Arc<AtomicU32>,
    seen: Arc<Mutex<Vec<MetadataMap>>>,
}

impl GrpcServer {
    /// Starts a server answering call `n` (from 1) with `script(n)`.
    pub async fn start(script: impl Fn(u32) -> Reply + Send + Sync + 'static) -> GrpcServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local address");
        let (calls, seen) = (Arc::new(AtomicU32::new(0)), Arc::new(Mutex::new(Vec::new())));
        let service =
            Scripted { script: Arc::new(script), calls: Arc::clone(&calls), seen: Arc::clone(&seen) };
        let serve =
            Server::builder().serve_with_incoming(HealthServer::new(service), TcpIncoming::from(listener));
        tokio::spawn(serve);
        GrpcServer { addr, calls, seen }
    }

    /// A client of this server, connected.
    pub async fn client(&self) -> HealthClient<Channel> {
        let channel =
            Endpoint::from_shared(format!("http://{}", self.addr)).unwrap().connect().await.unwrap();
        HealthClient::new(channel)
    }

    /// Calls received so far.
    pub fn calls(&self) -> u32 {
        self.calls.load(Ordering::SeqCst)
    }

    /// The value of metadata `key` in each call received, in order.
    pub fn metadata(&self, key: &str) -> Vec<Option<String>> {
        let seen = self.seen.lock().unwrap();
        seen.iter()
            .map(|metadata| metadata.get(key).map(|value| value.to_str().unwrap().to_owned()))
            .collect()
    }
}

/// The message of every call: the health of the whole server.
pub fn message() -> HealthCheckRequest {
    HealthCheckRequest { service: String::new() }
}
