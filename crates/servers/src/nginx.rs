//! nginx's `limit_req` as the rate-limited server: Debian's `nginx`, run as
//! one foreground process (`daemon off; master_process off;`) with its
//! prefix, configuration, logs, pid file and temporary paths in a
//! temporary directory, so nothing under `/etc` or `/var` is read or written.
//!
//! Every request is counted against one `limit_req_zone` keyed by the
//! client address (all clients here are 127.0.0.1, so they share it) at
//! `rate` requests a second with `burst` and `nodelay`: nginx's leaky
//! bucket admits a request at once while the bucket has room and rejects
//! the rest. What a rejected request gets is the [`Rejection`]. An admitted
//! one gets `200 ok`, a static file served in the content phase, after
//! `limit_req` (a `return 200` would answer in the rewrite phase, before
//! the limit is ever checked).
//!
//! Each response is logged as `$msec $status`: the server's own count of
//! what it admitted ([`Nginx::access_log`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::process::{find_program, Guarded, StartError};

/// The body of an S3-style `SlowDown`, as S3 sends it with its 503.
pub const SLOW_DOWN_BODY: &str = r#"<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"#;

/// The burst every configuration here allows (`limit_req ... burst=20 nodelay`).
pub const BURST: u32 = 20;

/// How long nginx may take to listen.
const STARTUP: Duration = Duration::from_secs(10);

/// What nginx answers a request over the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rejection {
    /// `limit_req_status 429`: Too Many Requests, with no hint.
    Status429,
    /// nginx's default: 503 Service Unavailable, with no hint.
    Default503,
    /// S3's throttle: 503 with the [`SLOW_DOWN_BODY`] XML error.
    SlowDown,
}

impl Rejection {
    /// A short name, for tables.
    pub const fn name(self) -> &'static str {
        match self {
            Rejection::Status429 => "nginx-429",
            Rejection::Default503 => "nginx-503",
            Rejection::SlowDown => "s3-slowdown",
        }
    }

    /// The status a rejected request gets.
    pub const fn status(self) -> u16 {
        match self {
            Rejection::Status429 => 429,
            Rejection::Default503 | Rejection::SlowDown => 503,
        }
    }
}

/// One rate-limited nginx.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NginxConfig {
    /// Requests admitted per second (`rate=<R>r/s`).
    pub rate: u32,
    /// Requests admitted at once above the rate (`burst=`).
    pub burst: u32,
    /// What a request over the limit gets.
    pub rejection: Rejection,
}

impl NginxConfig {
    /// `rate` a second with the usual [`BURST`], rejecting with `rejection`.
    pub const fn new(rate: u32, rejection: Rejection) -> Self {
        NginxConfig { rate, burst: BURST, rejection }
    }

    /// The configuration file for a server at `port` with everything under `dir`.
    pub fn text(&self, dir: &Path, port: u16) -> String {
        let dir = dir.display();
        let NginxConfig { rate, burst, rejection } = *self;
        let mut conf = String::new();
        let _ = write!(
            conf,
            "\
worker_rlimit_nofile 8192;
pid {dir}/nginx.pid;
error_log {dir}/logs/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {dir}/tmp/body;
    proxy_temp_path {dir}/tmp/proxy;
    fastcgi_temp_path {dir}/tmp/fastcgi;
    uwsgi_temp_path {dir}/tmp/uwsgi;
    scgi_temp_path {dir}/tmp/scgi;
    log_format counts '$msec $status';
    keepalive_requests 100000;
    limit_req_zone $binary_remote_addr zone=quota:1m rate={rate}r/s;
    server {{
        listen 127.0.0.1:{port};
        access_log {dir}/logs/access.log counts;
        root {dir}/html;
        default_type text/plain;
        location / {{
            limit_req zone=quota burst={burst} nodelay;
"
        );
        match rejection {
            Rejection::Status429 => conf.push_str("            limit_req_status 429;\n"),
            Rejection::Default503 => {}
            Rejection::SlowDown => conf.push_str("            error_page 503 = @slowdown;\n"),
        }
        conf.push_str("            try_files /ok =404;\n        }\n");
        if rejection == Rejection::SlowDown {
            let _ = write!(
                conf,
                "        location @slowdown {{\n            default_type application/xml;\n            return 503 '{SLOW_DOWN_BODY}';\n        }}\n"
            );
        }
        conf.push_str("    }\n}\n");
        conf
    }
}

/// One response in nginx's access log.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogLine {
    /// When it was logged, in seconds since the Unix epoch (`$msec`).
    pub at: f64,
    /// Its status.
    pub status: u16,
}

/// A running nginx; dropping it stops it and removes its directory.
#[derive(Debug)]
pub struct Nginx {
    // Declared first, dropped first: the process stops before its directory goes.
    guard: Guarded,
    dir: tempfile::TempDir,
    config: NginxConfig,
}

impl Nginx {
    /// Where Debian installs it, or the first `nginx` in `PATH`.
    pub fn program() -> Result<PathBuf, StartError> {
        find_program(&["nginx"], &["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"])
            .ok_or_else(|| StartError::Missing("nginx is not installed: apt-get install nginx".to_owned()))
    }

    /// Starts nginx with `config` at a free port on 127.0.0.1, and waits
    /// for the port.
    pub fn start(config: NginxConfig) -> Result<Nginx, StartError> {
        let program = Nginx::program()?;
        let failed = |e: std::io::Error| StartError::Failed(format!("nginx's directory: {e}"));
        let dir = tempfile::Builder::new().prefix("servers-nginx-").tempdir().map_err(failed)?;
        for sub in ["html", "logs", "tmp"] {
            std::fs::create_dir_all(dir.path().join(sub)).map_err(failed)?;
        }
        std::fs::write(dir.path().join("html/ok"), "ok").map_err(failed)?;
        let path = dir.path().to_owned();
        let guard = Guarded::start("nginx", &path.join("logs/stderr.log"), STARTUP, |port| {
            let conf = path.join("nginx.conf");
            std::fs::write(&conf, config.text(&path, port))?;
            let mut command = Command::new(&program);
            command
                .arg("-p")
                .arg(&path)
                .arg("-e")
                .arg(path.join("logs/error.log"))
                .arg("-c")
                .arg(&conf)
                .args(["-g", "daemon off; master_process off;"]);
            Ok(command)
        })?;
        Ok(Nginx { guard, dir, config })
    }

    /// Its configuration.
    pub const fn config(&self) -> NginxConfig {
        self.config
    }

    /// Its port on 127.0.0.1.
    pub const fn port(&self) -> u16 {
        self.guard.port()
    }

    /// The URL of `path` on it.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port())
    }

    /// Every response it has logged so far, in order.
    pub fn access_log(&self) -> Vec<LogLine> {
        let text = std::fs::read_to_string(self.dir.path().join("logs/access.log")).unwrap_or_default();
        parse_access_log(&text)
    }
}

/// Lines of `$msec $status`; anything else is skipped.
pub fn parse_access_log(text: &str) -> Vec<LogLine> {
    text.lines()
        .filter_map(|line| {
            let (at, status) = line.trim().split_once(' ')?;
            Some(LogLine { at: at.parse().ok()?, status: status.parse().ok()? })
        })
        .collect()
}

/// The most responses of `status` logged within one second (whole
/// seconds of the epoch).
pub fn most_per_second(log: &[LogLine], status: u16) -> u64 {
    let mut counts = std::collections::BTreeMap::<u64, u64>::new();
    for line in log.iter().filter(|line| line.status == status) {
        *counts.entry(line.at as u64).or_default() += 1;
    }
    counts.values().copied().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rejection_writes_its_directives() {
        let dir = Path::new("/tmp/x");
        let conf = NginxConfig::new(50, Rejection::Status429).text(dir, 8080);
        assert!(conf.contains("rate=50r/s;") && conf.contains("burst=20 nodelay;"), "{conf}");
        assert!(conf.contains("limit_req_status 429;") && !conf.contains("@slowdown"), "{conf}");
        assert!(conf.contains("listen 127.0.0.1:8080;") && conf.contains("pid /tmp/x/nginx.pid;"));
        let conf = NginxConfig::new(200, Rejection::Default503).text(dir, 8080);
        assert!(!conf.contains("limit_req_status") && !conf.contains("@slowdown"), "{conf}");
        let conf = NginxConfig::new(200, Rejection::SlowDown).text(dir, 8080);
        assert!(
            conf.contains("error_page 503 = @slowdown;") && conf.contains("<Code>SlowDown</Code>"),
            "{conf}"
        );
        assert!(conf.contains("default_type application/xml;"));
    }

    #[test]
    fn the_access_log_reads_back_and_counts_per_second() {
        let log = parse_access_log(
            "1700000000.100 200\n1700000000.900 200\n1700000001.000 429\nbad\n1700000001.5 200\n",
        );
        assert_eq!(log.len(), 4);
        assert_eq!(most_per_second(&log, 200), 2);
        assert_eq!(most_per_second(&log, 429), 1);
        assert_eq!(most_per_second(&log, 503), 0);
    }
}
