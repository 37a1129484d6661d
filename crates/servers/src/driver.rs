//! The driver: N clients, each its own reqwest client through
//! `RetryMiddleware`, offering Poisson arrivals at a given rate in all
//! (each client an equal share, from its own seeded generator), each
//! request under the caller's timeout, for a bounded time and a bounded
//! number of requests. Open loop: a request arrives whether or not the
//! earlier ones have ended, as a server's users do.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use staggered::limiter::{AdaptiveLimiter, AdaptiveMode, LimiterMetrics};
use staggered::reqwest::{RetryMiddleware, RetryReport};
use staggered::{Backoff, FastRng, Hedging, Rng, Strategy, TokenBucket};
use tokio::task::JoinSet;

use crate::record::{Attempt, Attempts, Recorder, RequestOutcome, RequestRecord};

/// The caller's timeout unless told otherwise.
pub const CALLER_TIMEOUT: Duration = Duration::from_secs(5);

/// Which rate limiter the clients' policies have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimiterChoice {
    /// None: retries on the backoff and the budget alone.
    None,
    /// One [`AdaptiveLimiter`] per client, as the library advises.
    PerClient(AdaptiveMode),
    /// One [`AdaptiveLimiter`] shared by every client.
    Shared(AdaptiveMode),
}

/// How to hedge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HedgeChoice {
    /// [`Hedging::at_percentile`] of the latencies each client has seen.
    Percentile(f64),
    /// [`Hedging::after`] a fixed delay.
    After(Duration),
}

/// The clients' retry policy: the simulator's throttling scenario's
/// (full jitter, base 100 ms, cap 1 s, 3 attempts, the AWS SDKs' retry
/// quota per client, the caller's timeout as the deadline), with a
/// limiter or hedging as chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientPolicy {
    /// The rate limiter.
    pub limiter: LimiterChoice,
    /// The longest an attempt waits for its token before the request is
    /// shed; `None` waits as long as the deadline allows.
    pub max_token_wait: Option<Duration>,
    /// Hedging instead of retrying, if set: one [`Hedging`] shared by the
    /// clients.
    pub hedging: Option<HedgeChoice>,
    /// Attempts per request, the first included.
    pub max_attempts: u32,
    /// Whether a bare 503 (no hint, no throttling code) is a throttle: for
    /// a server behind a rate limiter that answers excess so, as nginx's
    /// `limit_req` does by default.
    pub bare_503_is_throttle: bool,
}

impl ClientPolicy {
    /// Retries alone.
    pub const fn retries() -> Self {
        ClientPolicy {
            limiter: LimiterChoice::None,
            max_token_wait: None,
            hedging: None,
            max_attempts: 3,
            bare_503_is_throttle: false,
        }
    }

    /// Retries and one adaptive limiter per client in `mode`, a token
    /// waited for at most 1 s.
    pub const fn adaptive(mode: AdaptiveMode) -> Self {
        ClientPolicy {
            limiter: LimiterChoice::PerClient(mode),
            max_token_wait: Some(Duration::from_secs(1)),
            ..ClientPolicy::retries()
        }
    }

    /// Retries and one adaptive limiter in `mode` for all the clients.
    pub const fn shared(mode: AdaptiveMode) -> Self {
        ClientPolicy { limiter: LimiterChoice::Shared(mode), ..ClientPolicy::adaptive(mode) }
    }

    /// The same, with a bare 503 read as a throttle.
    pub const fn with_bare_503_as_throttle(mut self) -> Self {
        self.bare_503_is_throttle = true;
        self
    }

    /// Hedging (2 copies at most) instead of retries.
    pub const fn hedged(hedging: HedgeChoice) -> Self {
        ClientPolicy { hedging: Some(hedging), ..ClientPolicy::retries() }
    }
}

/// The load: who sends what, how fast, for how long.
#[derive(Debug, Clone, PartialEq)]
pub struct Load {
    /// The URL every request gets.
    pub url: String,
    /// Clients, each its own reqwest client and policy.
    pub clients: usize,
    /// Requests a second offered by all the clients together.
    pub offered: f64,
    /// How long requests arrive.
    pub run_length: Duration,
    /// The most requests in all.
    pub max_requests: usize,
    /// How long a caller waits for a request.
    pub caller_timeout: Duration,
    /// The seed of the arrivals.
    pub seed: u64,
}

impl Load {
    /// `clients` offering `offered` a second to `url` for `run_length`,
    /// at most twice the requests expected, with the default caller timeout.
    pub fn new(url: impl Into<String>, clients: usize, offered: f64, run_length: Duration) -> Self {
        let expected = offered * run_length.as_secs_f64();
        Load {
            url: url.into(),
            clients,
            offered,
            run_length,
            max_requests: (2.0 * expected).ceil() as usize + 10,
            caller_timeout: CALLER_TIMEOUT,
            seed: 2015,
        }
    }
}

/// What a run recorded.
#[derive(Debug, Clone)]
pub struct Run {
    /// Every attempt sent.
    pub attempts: Vec<Attempt>,
    /// Every request offered.
    pub requests: Vec<RequestRecord>,
    /// Each limiter's metrics at the end (one per client, or the shared one).
    pub limiters: Vec<LimiterMetrics>,
    /// When the last request arrived, or the run length if the bound on
    /// requests was not reached: the span the rates are over.
    pub arrivals_end: Duration,
    /// The caller's timeout.
    pub caller_timeout: Duration,
}

impl Run {
    /// The throttles every limiter recorded, added up.
    pub fn limiter_throttles(&self) -> u64 {
        self.limiters.iter().map(|m| m.throttles).sum()
    }

    /// The attempts that waited for a token (or the quota), added up.
    pub fn limiter_waits(&self) -> u64 {
        self.limiters.iter().map(|m| m.waits).sum()
    }
}

/// Runs `load` with `policy`, on the current tokio runtime.
pub async fn drive(load: &Load, policy: &ClientPolicy) -> anyhow::Result<Run> {
    anyhow::ensure!(load.clients > 0 && load.offered > 0.0, "no clients or no load: {load:?}");
    let origin = Instant::now();
    let attempts = Attempts::default();
    let shared = match policy.limiter {
        LimiterChoice::Shared(mode) => Some(AdaptiveLimiter::builder().with_mode(mode).build()?),
        _ => None,
    };
    // One learned delay for all the clients, so that it learns from all
    // their latencies (a hedge waits for 100 of them).
    let hedging = match policy.hedging {
        Some(HedgeChoice::Percentile(percentile)) => Some(Hedging::at_percentile(percentile)?),
        Some(HedgeChoice::After(delay)) => Some(Hedging::after(delay)),
        None => None,
    };
    let mut limiters = Vec::new();
    let mut clients = Vec::new();
    for client in 0..load.clients {
        let limiter = match policy.limiter {
            LimiterChoice::None => None,
            LimiterChoice::PerClient(mode) => Some(AdaptiveLimiter::builder().with_mode(mode).build()?),
            LimiterChoice::Shared(_) => shared.clone(),
        };
        if let Some(limiter) = &limiter {
            if client == 0 || shared.is_none() {
                limiters.push(limiter.clone());
            }
        }
        let recorder = Recorder::new(client, origin, attempts.clone());
        clients.push(client_for(policy, limiter, hedging.clone(), load.caller_timeout, recorder)?);
    }

    let issued = Arc::new(AtomicUsize::new(0));
    let mut arrivals = JoinSet::new();
    for (index, client) in clients.into_iter().enumerate() {
        let (load, issued) = (load.clone(), Arc::clone(&issued));
        arrivals.spawn(arrive(index, client, load, issued, origin));
    }
    let mut requests = Vec::new();
    while let Some(done) = arrivals.join_next().await {
        requests.extend(done.context("a client's task failed")?);
    }
    requests.sort_by_key(|r| r.started);
    let arrivals_end = if issued.load(Ordering::SeqCst) >= load.max_requests {
        requests.last().map_or(load.run_length, |last| last.started)
    } else {
        load.run_length
    };
    let mut attempts = attempts.take();
    attempts.sort_by_key(|a| a.sent);
    Ok(Run {
        attempts,
        requests,
        limiters: limiters.iter().map(AdaptiveLimiter::metrics).collect(),
        arrivals_end,
        caller_timeout: load.caller_timeout,
    })
}

fn client_for(
    policy: &ClientPolicy,
    limiter: Option<AdaptiveLimiter>,
    hedging: Option<Hedging>,
    caller_timeout: Duration,
    recorder: Recorder,
) -> anyhow::Result<ClientWithMiddleware> {
    let backoff = Backoff::builder(Strategy::Full)
        .with_base(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(1))
        .with_max_attempts(policy.max_attempts)
        .build()?;
    let classify =
        staggered::http::ClassifyHttp::new().with_bare_503_as_throttle(policy.bare_503_is_throttle);
    let mut retry_policy = RetryMiddleware::policy_for(backoff)
        .classify(classify)
        .with_deadline(caller_timeout)?
        .with_budget(TokenBucket::new());
    if let Some(limiter) = limiter {
        retry_policy = retry_policy.with_rate_limiter(limiter);
        if let Some(wait) = policy.max_token_wait {
            retry_policy = retry_policy.with_max_token_wait(wait);
        }
    }
    let mut retry = RetryMiddleware::from_policy(retry_policy);
    if let Some(hedging) = hedging {
        retry = retry.hedge(hedging);
    }
    let inner = reqwest::Client::builder().no_proxy().build()?;
    Ok(ClientBuilder::new(inner).with(retry).with(recorder).build())
}

/// Splits a seed among the clients: SplitMix64's finalizer on their index.
fn client_seed(seed: u64, client: usize) -> u64 {
    let mut z = seed.wrapping_add((client as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One client's arrivals: a Poisson stream of its share of the load,
/// each request spawned as it arrives; its requests once all have ended.
async fn arrive(
    index: usize,
    client: ClientWithMiddleware,
    load: Load,
    issued: Arc<AtomicUsize>,
    origin: Instant,
) -> Vec<RequestRecord> {
    let mut rng = FastRng::seed(client_seed(load.seed, index));
    let rate = load.offered / load.clients as f64;
    let start = tokio::time::Instant::from_std(origin);
    let mut at = 0.0;
    let mut requests = JoinSet::new();
    loop {
        at += -(1.0 - rng.next_f64()).ln() / rate;
        if at >= load.run_length.as_secs_f64() || issued.fetch_add(1, Ordering::SeqCst) >= load.max_requests {
            break;
        }
        tokio::time::sleep_until(start + Duration::from_secs_f64(at)).await;
        let (client, url) = (client.clone(), load.url.clone());
        requests.spawn(request(index, client, url, load.caller_timeout, origin));
    }
    let mut done = Vec::new();
    while let Some(record) = requests.join_next().await {
        if let Ok(record) = record {
            done.push(record);
        }
    }
    done
}

async fn request(
    client_index: usize,
    client: ClientWithMiddleware,
    url: String,
    timeout: Duration,
    origin: Instant,
) -> RequestRecord {
    let asked = Instant::now();
    let send = async {
        let response = client.get(&url).send().await.ok()?;
        let status = response.status().as_u16();
        let attempts = response.extensions().get::<RetryReport>().map_or(0, |report| report.attempts);
        response.bytes().await.ok()?;
        Some((status, attempts))
    };
    let (outcome, attempts) = match tokio::time::timeout(timeout, send).await {
        Ok(Some((status, attempts))) => (RequestOutcome::Status(status), attempts),
        Ok(None) => (RequestOutcome::Error, 0),
        Err(_) => (RequestOutcome::TimedOut, 0),
    };
    let latency = if outcome == RequestOutcome::TimedOut { timeout } else { asked.elapsed() };
    RequestRecord {
        client: client_index,
        started: asked.saturating_duration_since(origin),
        latency,
        outcome,
        attempts,
    }
}
