//! The integrations against a real HTTP server on 127.0.0.1 (reqwest, tower),
//! and configuration files.

mod config;
mod reqwest;
mod server;
mod tower;
