//! The benchmark's points: which server, how many clients, which policy,
//! how much load, and the table of what each came to.

use std::fmt::Write as _;
use std::time::Duration;

use staggered::limiter::AdaptiveMode;

use crate::driver::{drive, ClientPolicy, HedgeChoice, LimiterChoice, Load, Run};
use crate::flask::{FlaskLimiter, PER_MINUTE, PER_MINUTE_PATH, PER_SECOND, PER_SECOND_PATH};
use crate::nginx::{most_per_second, Nginx, NginxConfig, Rejection};
use crate::process::StartError;
use crate::stalling::{StallConfig, StallingServer};
use crate::summary::{summarize, Summary};

/// Which server a point runs against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Server {
    /// nginx's `limit_req`.
    Nginx(NginxConfig),
    /// Flask-Limiter's route at this path.
    Flask(&'static str),
    /// The in-process stalling server.
    Stalling(StallConfig),
}

impl Server {
    /// The table it goes in.
    pub const fn group(&self) -> &'static str {
        match self {
            Server::Nginx(config) => config.rejection.name(),
            Server::Flask(_) => "flask-limiter",
            Server::Stalling(_) => "stalling",
        }
    }
}

/// One point of the matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Its name, unique: `--only` matches parts of it.
    pub id: String,
    /// The server.
    pub server: Server,
    /// Clients.
    pub clients: usize,
    /// Requests a second offered by all the clients.
    pub offered: f64,
    /// The server's limit, requests a second, if it has one.
    pub limit: Option<f64>,
    /// The clients' policy.
    pub policy: ClientPolicy,
    /// The policy's name in the table.
    pub policy_name: String,
    /// The most requests, if fewer than the load would offer.
    pub max_requests: Option<usize>,
    /// The point's own run length, where the flag's would not fit it (a
    /// quota of a minute).
    pub run_length: Option<Duration>,
}

/// The matrix: nginx 429 and 503 at 50, 200 and 1000 a second with 1, 4,
/// 16 and 64 clients (offered twice the limit), a shared limiter at 16 and
/// 64; Flask-Limiter's 20 a second with 1 and 8 clients, its 100 a minute
/// with one client and 100 requests; the S3-style endpoint at 200 a second
/// with 16 clients; the stalling server at 10% and 80% load, unhedged and
/// hedged at the 95th percentile (on a server that frees a cancelled
/// request's worker, and on one that keeps it).
pub fn points(mode: AdaptiveMode) -> Vec<Point> {
    let mut points = Vec::new();
    let adaptive = ClientPolicy::adaptive(mode);
    let shared = ClientPolicy::shared(mode);
    for rejection in [Rejection::Status429, Rejection::Default503] {
        for rate in [50, 200, 1000] {
            let server = Server::Nginx(NginxConfig::new(rate, rejection));
            for clients in [1, 4, 16, 64] {
                points.push(limited(server, rate as f64, clients, adaptive));
            }
            for clients in [16, 64] {
                points.push(limited(server, rate as f64, clients, shared));
            }
        }
    }
    let flask = Server::Flask(PER_SECOND_PATH);
    for clients in [1, 8] {
        points.push(limited(flask, f64::from(PER_SECOND), clients, adaptive));
    }
    let per_minute = f64::from(PER_MINUTE) / 60.0;
    let mut point = limited(Server::Flask(PER_MINUTE_PATH), per_minute, 1, adaptive);
    point.id = format!("flask-limiter/limit=100/min/clients=1/{}", policy_name(&adaptive));
    point.max_requests = Some(PER_MINUTE as usize);
    // Its 100 requests arrive in 30 s at twice the limit.
    point.run_length = Some(Duration::from_secs(30));
    points.push(point);
    points.push(limited(Server::Nginx(NginxConfig::new(200, Rejection::SlowDown)), 200.0, 16, adaptive));
    for load in [0.1_f64, 0.8] {
        let frees = StallConfig::new();
        let keeps = StallConfig { frees_worker_on_cancel: false, ..frees };
        let hedged = ClientPolicy::hedged(HedgeChoice::Percentile(0.95));
        for (config, policy, name) in [
            (frees, ClientPolicy::retries(), "retries"),
            (frees, hedged, "hedged-p95/frees-worker"),
            (keeps, hedged, "hedged-p95/keeps-worker"),
        ] {
            points.push(Point {
                id: format!("stalling/load={}%/{name}", (load * 100.0).round()),
                server: Server::Stalling(config),
                clients: 4,
                offered: config.rate_at(load),
                limit: None,
                policy,
                policy_name: name.to_owned(),
                max_requests: None,
                run_length: None,
            });
        }
    }
    points
}

/// A point against a limit of `limit` a second, offered twice that.
fn limited(server: Server, limit: f64, clients: usize, policy: ClientPolicy) -> Point {
    let name = policy_name(&policy);
    Point {
        id: format!("{}/limit={limit}/clients={clients}/{name}", server.group()),
        server,
        clients,
        offered: 2.0 * limit,
        limit: Some(limit),
        policy,
        policy_name: name,
        max_requests: None,
        run_length: None,
    }
}

fn policy_name(policy: &ClientPolicy) -> String {
    match policy.limiter {
        LimiterChoice::None => "retries".to_owned(),
        LimiterChoice::PerClient(mode) => format!("{mode}"),
        LimiterChoice::Shared(mode) => format!("{mode}-shared"),
    }
}

/// What a point came to.
#[derive(Debug, Clone)]
pub struct PointResult {
    /// The point.
    pub point: Point,
    /// Its run's figures.
    pub summary: Summary,
    /// What it recorded.
    pub run: Run,
    /// For nginx, the most 200s it logged in one second.
    pub server_most_per_second: Option<u64>,
}

/// How to run the points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Each point's run length, unless the point has its own.
    pub run_length: Duration,
    /// The caller's timeout.
    pub caller_timeout: Duration,
    /// The seed of the arrivals.
    pub seed: u64,
}

/// Runs `point`: starts its server, drives the load, stops the server.
/// A server whose program is missing is a [`StartError::Missing`].
pub async fn run_point(point: &Point, settings: &Settings) -> Result<PointResult, anyhow::Error> {
    let run_length = point.run_length.unwrap_or(settings.run_length);
    let load = |url: String| {
        let mut load = Load::new(url, point.clients, point.offered, run_length);
        load.caller_timeout = settings.caller_timeout;
        load.seed = settings.seed;
        if let Some(max) = point.max_requests {
            load.max_requests = max;
        }
        load
    };
    let (run, server_most_per_second) = match point.server {
        Server::Nginx(config) => {
            let nginx = tokio::task::block_in_place(|| Nginx::start(config))?;
            let run = drive(&load(nginx.url("/object")), &point.policy).await?;
            (run, Some(most_per_second(&nginx.access_log(), 200)))
        }
        Server::Flask(path) => {
            let flask = tokio::task::block_in_place(FlaskLimiter::start)?;
            let run = drive(&load(flask.url(path)), &point.policy).await?;
            tokio::task::block_in_place(|| drop(flask));
            (run, None)
        }
        Server::Stalling(config) => {
            let server = StallingServer::start(config).await?;
            (drive(&load(server.url("/")), &point.policy).await?, None)
        }
    };
    let summary = summarize(&run, point.limit);
    Ok(PointResult { point: point.clone(), summary, run, server_most_per_second })
}

/// Whether `error` says a server's program is missing.
pub fn is_missing(error: &anyhow::Error) -> bool {
    matches!(error.downcast_ref::<StartError>(), Some(StartError::Missing(_)))
}

/// The results as Markdown tables, one per server, in the order run.
pub fn tables(results: &[PointResult]) -> String {
    let mut out = String::new();
    let mut groups: Vec<&'static str> = Vec::new();
    for result in results {
        if !groups.contains(&result.point.server.group()) {
            groups.push(result.point.server.group());
        }
    }
    for group in groups {
        let _ = writeln!(out, "\n### {group}\n");
        out.push_str("| limit/s | clients | policy | offered/s | attempts/request | admitted/s (last half) | of limit | throttled | limiter throttles | goodput | p50 | p99 | p99.9 | to 90% | server max/s |\n");
        out.push_str("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for result in results.iter().filter(|r| r.point.server.group() == group) {
            out.push_str(&row(result));
        }
    }
    out
}

fn row(result: &PointResult) -> String {
    let (point, s) = (&result.point, &result.summary);
    let limit = point
        .limit
        .map_or("-".to_owned(), |l| format!("{l:.4}").trim_end_matches('0').trim_end_matches('.').to_owned());
    let of_limit = point.limit.map_or("-".to_owned(), |l| format!("{:.0}%", 100.0 * s.admitted_rate / l));
    let throttles = match point.policy.limiter {
        LimiterChoice::None => "-".to_owned(),
        _ => result.run.limiter_throttles().to_string(),
    };
    let to_90 = match (point.limit, s.first_throttle, s.to_90) {
        (None, _, _) | (_, None, _) => "-".to_owned(),
        (_, Some(_), None) => "never".to_owned(),
        (_, Some(_), Some(t)) => format!("{:.1}s", t.as_secs_f64()),
    };
    let server = result.server_most_per_second.map_or("-".to_owned(), |n| n.to_string());
    format!(
        "| {limit} | {} | {} | {:.1} | {:.2} | {:.1} | {of_limit} | {:.1}% | {throttles} | {:.1}% | {} | {} | {} | {to_90} | {server} |\n",
        point.clients,
        point.policy_name,
        point.offered,
        s.attempts as f64 / s.requests.max(1) as f64,
        s.admitted_rate,
        100.0 * s.throttled_fraction,
        100.0 * s.goodput,
        millis(s.p50),
        millis(s.p99),
        millis(s.p999),
    )
}

fn millis(duration: Duration) -> String {
    let ms = duration.as_secs_f64() * 1000.0;
    if ms >= 100.0 {
        format!("{ms:.0}ms")
    } else {
        format!("{ms:.1}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matrix_has_every_point_once() {
        let points = points(AdaptiveMode::Aws);
        // nginx: 2 statuses x 3 limits x (4 + 2 shared); Flask 3; S3 1; stalling 6.
        assert_eq!(points.len(), 36 + 3 + 1 + 6);
        let mut ids: Vec<&str> = points.iter().map(|p| p.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), points.len(), "ids are unique");
        assert!(ids.contains(&"nginx-429/limit=50/clients=16/aws-shared"), "{ids:?}");
        assert!(ids.contains(&"s3-slowdown/limit=200/clients=16/aws"), "{ids:?}");
        assert!(points.iter().filter(|p| p.limit.is_some()).all(|p| p.offered == 2.0 * p.limit.unwrap()));
    }
}
