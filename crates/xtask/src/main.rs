//! `cargo run -p xtask -- <check>`: the project's own checks, run by CI.
//!
//! - `rust-version`: every publishable crate's `rust-version` claim is at
//!   least the highest `rust-version` among the locked dependencies it builds
//!   with its default features, and its README states the version its
//!   dependencies need with all features.
//! - `docs`: no internal reference and no dangling relative link anywhere a
//!   user reads, a README that fits on its front page, and published crates
//!   that link only to docs.rs, crates.io and their own pages (also a test,
//!   so `cargo test --workspace` runs it).
//! - `doc-html DOC_DIR`: the documentation as docs.rs builds it (`cargo
//!   +nightly doc` with `--cfg docsrs` and all features, into DOC_DIR)
//!   names the feature of gated items, reaches every chapter of the guide,
//!   shows its charts, and has every page and id its links name.

mod doc_html;
mod docs;
mod published;
mod rust_version;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["rust-version"] => rust_version::check(),
        ["docs"] => docs::check(),
        ["doc-html", doc] => doc_html::check(std::path::Path::new(doc)),
        _ => Err("usage: cargo run -p xtask -- rust-version|docs|doc-html DOC_DIR".to_owned()),
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
