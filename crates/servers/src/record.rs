//! What a run records: every attempt that went to the server (seen by a
//! middleware inside the retry middleware, so each retry and each hedged
//! copy is one) and every request as its caller saw it.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use http::Extensions;
use reqwest::{Request as HttpRequest, Response};
use reqwest_middleware::{Middleware, Next};

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// A response with this status.
    Status(u16),
    /// No response: a connection or protocol error.
    Error,
    /// Dropped before it answered: a hedged copy that lost, or a request
    /// its caller gave up on.
    Cancelled,
}

/// One attempt sent to the server.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attempt {
    /// Which client sent it.
    pub client: usize,
    /// When it was sent, from the start of the run.
    pub sent: Duration,
    /// From sending to its response's head (or its end).
    pub latency: Duration,
    /// How it ended.
    pub outcome: AttemptOutcome,
}

impl Attempt {
    /// Its status, if it got a response.
    pub const fn status(&self) -> Option<u16> {
        match self.outcome {
            AttemptOutcome::Status(status) => Some(status),
            _ => None,
        }
    }

    /// Whether the server admitted it (200).
    pub const fn is_admitted(&self) -> bool {
        matches!(self.outcome, AttemptOutcome::Status(200))
    }

    /// Whether the server turned it away for its rate: 429, or 503 (what
    /// nginx's `limit_req` and S3 answer by default). Whether the library
    /// reads it so is another matter: see the limiter's metrics.
    pub const fn is_throttled(&self) -> bool {
        matches!(self.outcome, AttemptOutcome::Status(429 | 503))
    }
}

/// How a request ended for its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestOutcome {
    /// The retrying ended on a response with this status.
    Status(u16),
    /// The retrying ended on an error: the deadline, a token wait too
    /// long, a connection error.
    Error,
    /// The caller's timeout ran out first.
    TimedOut,
}

/// One request, as its caller saw it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestRecord {
    /// Which client sent it.
    pub client: usize,
    /// When the caller asked, from the start of the run.
    pub started: Duration,
    /// From asking to the end, body included (the caller's timeout for
    /// one that ran out).
    pub latency: Duration,
    /// How it ended.
    pub outcome: RequestOutcome,
    /// The attempts the retry middleware reports (0 where it reported none).
    pub attempts: u32,
}

impl RequestRecord {
    /// Whether it succeeded (200) within `timeout`.
    pub fn is_goodput(&self, timeout: Duration) -> bool {
        self.outcome == RequestOutcome::Status(200) && self.latency <= timeout
    }
}

/// The attempts of a run, shared by its clients' recorders.
#[derive(Debug, Clone, Default)]
pub struct Attempts(Arc<Mutex<Vec<Attempt>>>);

impl Attempts {
    fn push(&self, attempt: Attempt) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).push(attempt);
    }

    /// Every attempt recorded, in the order they ended, taken out.
    pub fn take(&self) -> Vec<Attempt> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// A middleware that records each attempt passing through it: put it
/// after the retry middleware, which runs it once per attempt.
#[derive(Debug, Clone)]
pub struct Recorder {
    client: usize,
    origin: Instant,
    attempts: Attempts,
}

impl Recorder {
    /// Records `client`'s attempts into `attempts`, timed from `origin`.
    pub const fn new(client: usize, origin: Instant, attempts: Attempts) -> Self {
        Recorder { client, origin, attempts }
    }
}

/// An attempt in flight: recorded as cancelled if dropped before it ends.
struct InFlight<'a> {
    recorder: &'a Recorder,
    sent: Instant,
    outcome: Option<AttemptOutcome>,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let recorder = self.recorder;
        recorder.attempts.push(Attempt {
            client: recorder.client,
            sent: self.sent.saturating_duration_since(recorder.origin),
            latency: self.sent.elapsed(),
            outcome: self.outcome.unwrap_or(AttemptOutcome::Cancelled),
        });
    }
}

impl Middleware for Recorder {
    // The shape `async_trait` gives the trait's method, written out as the
    // library's own middleware does.
    fn handle<'life0, 'life1, 'life2, 'async_trait>(
        &'life0 self,
        request: HttpRequest,
        extensions: &'life1 mut Extensions,
        next: Next<'life2>,
    ) -> Pin<Box<dyn Future<Output = reqwest_middleware::Result<Response>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        'life2: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move {
            let mut in_flight = InFlight { recorder: self, sent: Instant::now(), outcome: None };
            let result = next.run(request, extensions).await;
            in_flight.outcome = Some(match &result {
                Ok(response) => AttemptOutcome::Status(response.status().as_u16()),
                Err(_) => AttemptOutcome::Error,
            });
            result
        })
    }
}
