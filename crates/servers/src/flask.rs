//! Flask-Limiter under gunicorn as the server that announces its quota:
//! [`APP`] (`flask_app.py` beside this file) written to a temporary
//! directory and served by one gunicorn worker (its in-memory counts are
//! then the one quota every client meets), threaded so that a slow client
//! does not hold the others.
//!
//! With `headers_enabled`, Flask-Limiter 3.x and 4.x send, on every
//! response of a limited route, `X-RateLimit-Limit` (the window's quota),
//! `X-RateLimit-Remaining`, `X-RateLimit-Reset` (the end of the window as
//! a Unix timestamp in whole seconds, rounded up past the window's end) and
//! `Retry-After` (seconds to that reset); over the limit it answers `429`.
//! The windows are fixed (Flask-Limiter's default strategy): one starts at
//! the first request after the last one ended.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use crate::process::{Guarded, StartError};

/// The Flask app, with its two limited routes.
pub const APP: &str = include_str!("flask_app.py");

/// The route limited to [`PER_SECOND`] requests a second.
pub const PER_SECOND_PATH: &str = "/per-second";
/// The route limited to [`PER_MINUTE`] requests a minute.
pub const PER_MINUTE_PATH: &str = "/per-minute";
/// The first route's limit, a second.
pub const PER_SECOND: u32 = 20;
/// The second route's limit, a minute.
pub const PER_MINUTE: u32 = 100;

/// Python's imports take a while on a busy machine.
const STARTUP: Duration = Duration::from_secs(30);

const MISSING: &str = "gunicorn with Flask and Flask-Limiter is not installed: \
                       python3 -m pip install flask flask-limiter gunicorn";

/// A running gunicorn; dropping it stops its master and worker and removes
/// its directory.
#[derive(Debug)]
pub struct FlaskLimiter {
    guard: Guarded,
    _dir: tempfile::TempDir,
}

impl FlaskLimiter {
    /// The Python that has Flask, Flask-Limiter and gunicorn: the
    /// interpreter itself, not a shim (gunicorn runs with `HOME` in its
    /// temporary directory, where it puts its control socket, and a pyenv
    /// shim would look for its versions there).
    pub fn python() -> Result<PathBuf, StartError> {
        let probe = "import sys, flask, flask_limiter, gunicorn; print(sys.executable)";
        let output = Command::new("python3").args(["-c", probe]).output();
        match output {
            Ok(output) if output.status.success() => {
                let path = String::from_utf8_lossy(&output.stdout).trim().to_owned();
                Ok(if path.is_empty() { PathBuf::from("python3") } else { PathBuf::from(path) })
            }
            _ => Err(StartError::Missing(MISSING.to_owned())),
        }
    }

    /// Starts gunicorn with the app at a free port on 127.0.0.1, and waits
    /// for the port.
    pub fn start() -> Result<FlaskLimiter, StartError> {
        let python = FlaskLimiter::python()?;
        let failed = |e: std::io::Error| StartError::Failed(format!("gunicorn's directory: {e}"));
        let dir = tempfile::Builder::new().prefix("servers-flask-").tempdir().map_err(failed)?;
        std::fs::write(dir.path().join("flask_app.py"), APP).map_err(failed)?;
        let path = dir.path().to_owned();
        let guard = Guarded::start("gunicorn", &path.join("gunicorn.log"), STARTUP, |port| {
            let mut command = Command::new(&python);
            command
                .args(["-m", "gunicorn", "--workers", "1", "--threads", "8"])
                .arg("--bind")
                .arg(format!("127.0.0.1:{port}"))
                .arg("--chdir")
                .arg(&path)
                .arg("--worker-tmp-dir")
                .arg(&path)
                .arg("flask_app:app")
                .env("HOME", &path)
                .env("PYTHONDONTWRITEBYTECODE", "1")
                .env("SERVERS_PER_SECOND", format!("{PER_SECOND} per second"))
                .env("SERVERS_PER_MINUTE", format!("{PER_MINUTE} per minute"));
            Ok(command)
        })?;
        Ok(FlaskLimiter { guard, _dir: dir })
    }

    /// Its port on 127.0.0.1.
    pub const fn port(&self) -> u16 {
        self.guard.port()
    }

    /// The URL of `path` on it.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port())
    }
}
