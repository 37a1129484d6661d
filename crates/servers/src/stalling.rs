//! A server with a slow tail, in process (hyper on a tokio task): every
//! request waits for one of a fixed number of workers (a semaphore: the
//! server's capacity), holds it for the service time, and answers `200`;
//! a fraction of the requests, drawn with a seeded generator, stall for
//! much longer instead. The tail a hedge is for.
//!
//! [`StallConfig::frees_worker_on_cancel`] says what a request whose client
//! went away does: a server that notices (hyper drops the request's future
//! when its connection closes mid-request) frees its worker at once; one
//! that does not (a thread pool that runs each request to its end) keeps
//! the worker until the work is done, so every hedge the client drops
//! still costs the server a whole stall.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use staggered::{FastRng, Rng};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::{JoinHandle, JoinSet};

/// The stalling server's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StallConfig {
    /// Requests served at once; the rest queue for a worker.
    pub workers: usize,
    /// How long an ordinary request holds its worker.
    pub service_time: Duration,
    /// The fraction of requests that stall, 0 to 1.
    pub stall_fraction: f64,
    /// How long a stalled request holds its worker.
    pub stall_time: Duration,
    /// Whether a request whose client has gone frees its worker at once
    /// (`true`), or holds it until its work is done (`false`).
    pub frees_worker_on_cancel: bool,
    /// The seed of the draws of which requests stall.
    pub seed: u64,
}

impl StallConfig {
    /// The matrix's server: 16 workers, 10 ms a request, 2% stalling for
    /// a second; cancelled requests free their workers.
    pub const fn new() -> Self {
        StallConfig {
            workers: 16,
            service_time: Duration::from_millis(10),
            stall_fraction: 0.02,
            stall_time: Duration::from_secs(1),
            frees_worker_on_cancel: true,
            seed: 2013,
        }
    }

    /// The mean time a request holds a worker.
    pub fn mean_service(&self) -> Duration {
        let f = self.stall_fraction.clamp(0.0, 1.0);
        self.service_time.mul_f64(1.0 - f) + self.stall_time.mul_f64(f)
    }

    /// The requests a second it serves at `load` (0 to 1) of its capacity,
    /// `workers / mean_service`.
    pub fn rate_at(&self, load: f64) -> f64 {
        load * self.workers as f64 / self.mean_service().as_secs_f64()
    }
}

impl Default for StallConfig {
    fn default() -> Self {
        StallConfig::new()
    }
}

/// What the server has seen, counted as it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StallCounts {
    /// Requests received.
    pub received: u64,
    /// Requests drawn to stall.
    pub stalled: u64,
    /// Requests whose work ran to its end (answered, or, when the server
    /// keeps workers, done after the client had gone).
    pub completed: u64,
    /// Requests dropped before their work was done, their worker freed then.
    pub cancelled: u64,
    /// Workers busy now.
    pub busy: u64,
}

#[derive(Debug, Default)]
struct Counters {
    received: AtomicU64,
    stalled: AtomicU64,
    completed: AtomicU64,
    cancelled: AtomicU64,
}

struct Shared {
    config: StallConfig,
    workers: Arc<Semaphore>,
    rng: Mutex<FastRng>,
    counters: Counters,
}

/// A running stalling server; dropping it stops it (the accept loop and
/// every connection).
#[derive(Debug)]
pub struct StallingServer {
    address: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("config", &self.config).finish_non_exhaustive()
    }
}

impl StallingServer {
    /// Starts the server at a free port on 127.0.0.1, on the current tokio runtime.
    pub async fn start(config: StallConfig) -> std::io::Result<StallingServer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let shared = Arc::new(Shared {
            config,
            workers: Arc::new(Semaphore::new(config.workers.max(1))),
            rng: Mutex::new(FastRng::seed(config.seed)),
            counters: Counters::default(),
        });
        let task = tokio::spawn(serve(listener, Arc::clone(&shared)));
        Ok(StallingServer { address, shared, task })
    }

    /// The URL of `path` on it.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// Its counts now.
    pub fn counts(&self) -> StallCounts {
        let shared = &self.shared;
        let c = &shared.counters;
        let available = shared.workers.available_permits() as u64;
        StallCounts {
            received: c.received.load(Ordering::SeqCst),
            stalled: c.stalled.load(Ordering::SeqCst),
            completed: c.completed.load(Ordering::SeqCst),
            cancelled: c.cancelled.load(Ordering::SeqCst),
            busy: (shared.config.workers.max(1) as u64).saturating_sub(available),
        }
    }

    /// Waits until no worker is busy, polling at `every`, at most `limit`
    /// in all; the counts then.
    pub async fn settle(&self, every: Duration, limit: Duration) -> StallCounts {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let counts = self.counts();
            if counts.busy == 0 || tokio::time::Instant::now() >= deadline {
                return counts;
            }
            tokio::time::sleep(every).await;
        }
    }
}

impl Drop for StallingServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    // Aborting this task drops the set, which aborts every connection.
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let _ = stream.set_nodelay(true);
                let shared = Arc::clone(&shared);
                connections.spawn(async move {
                    let service = service_fn(move |_request| {
                        let shared = Arc::clone(&shared);
                        async move { Ok::<_, Infallible>(answer(shared).await) }
                    });
                    let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn answer(shared: Arc<Shared>) -> hyper::Response<Full<Bytes>> {
    shared.counters.received.fetch_add(1, Ordering::SeqCst);
    let stalls = {
        let mut rng = shared.rng.lock().unwrap_or_else(PoisonError::into_inner);
        rng.next_f64() < shared.config.stall_fraction
    };
    if stalls {
        shared.counters.stalled.fetch_add(1, Ordering::SeqCst);
    }
    let hold = if stalls { shared.config.stall_time } else { shared.config.service_time };
    if shared.config.frees_worker_on_cancel {
        work(&shared, hold).await;
    } else {
        // The work goes on in a task of its own, whatever becomes of this
        // request: dropping its handle does not stop it.
        let worker = Arc::clone(&shared);
        let _ = tokio::spawn(async move { work(&worker, hold).await }).await;
    }
    hyper::Response::new(Full::new(Bytes::from_static(b"ok")))
}

/// Waits for a worker, holds it for `hold`; counts a completion, or a
/// cancellation if dropped before the end.
async fn work(shared: &Shared, hold: Duration) {
    struct Cancelled<'a>(Option<&'a Counters>);
    impl Drop for Cancelled<'_> {
        fn drop(&mut self) {
            if let Some(counters) = self.0 {
                counters.cancelled.fetch_add(1, Ordering::SeqCst);
            }
        }
    }
    let mut pending = Cancelled(Some(&shared.counters));
    // The semaphore is never closed.
    let _permit = shared.workers.acquire().await;
    tokio::time::sleep(hold).await;
    shared.counters.completed.fetch_add(1, Ordering::SeqCst);
    pending.0 = None;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_is_the_share_of_the_workers_busy() {
        let config = StallConfig::new();
        // 0.98 * 10 ms + 0.02 * 1 s = 29.8 ms a request, 16 workers.
        assert_eq!(config.mean_service(), Duration::from_micros(29_800));
        let full = 16.0 / 0.0298;
        assert!((config.rate_at(1.0) - full).abs() < 1e-6);
        assert!((config.rate_at(0.1) - full / 10.0).abs() < 1e-6);
    }
}
