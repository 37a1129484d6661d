//! The integrations against a real HTTP server on 127.0.0.1 (reqwest, tower)
//! and a real gRPC server (tonic), and configuration files.

mod cancel;
mod config;
mod config_blame;
mod grpc_server;
mod limiter;
mod polling;
mod quota;
mod reqwest;
mod server;
mod tonic;
mod tower;
