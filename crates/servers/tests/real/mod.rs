//! The tests, by server, and what they share.

mod flask;
mod nginx;
mod stalling;

use servers::process::StartError;

/// The server, or `None` after saying the test is skipped because its
/// program is missing. Under CI a missing program fails the test: CI
/// installs them, so it must really run them.
pub fn started<T>(result: Result<T, StartError>) -> Option<T> {
    match result {
        Ok(server) => Some(server),
        Err(StartError::Missing(message)) if std::env::var_os("CI").is_none() => {
            eprintln!("skipped: {message}");
            None
        }
        Err(error) => panic!("{error}"),
    }
}
