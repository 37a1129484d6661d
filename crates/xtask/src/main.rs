//! `cargo run -p xtask -- <check>`: the project's own checks, run by CI.
//!
//! - `rust-version`: every publishable crate's `rust-version` claim is at
//!   least the highest `rust-version` among the locked dependencies it builds
//!   with its default features, and its README states the version its
//!   dependencies need with all features.
//! - `docs`: no internal reference and no dangling relative link anywhere a
//!   user reads, and a README that fits on its front page (also a test, so
//!   `cargo test --workspace` runs it).

mod docs;
mod rust_version;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["rust-version"] => rust_version::check(),
        ["docs"] => docs::check(),
        _ => Err("usage: cargo run -p xtask -- rust-version|docs".to_owned()),
    };
    match result {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
