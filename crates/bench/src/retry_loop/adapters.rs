//! Each crate's retry loop behind [`BlockingRetry`] and [`AsyncRetry`],
//! configured for both paths: `jittered()` for the success path (full jitter
//! where the crate has it, base [`BASE`], [`MAX_ATTEMPTS`] attempts) and
//! `zero()` for the fail-once path (zero delay, same attempts).
//!
//! Whatever the crate's API makes a user build per call is built per call
//! here (backon's backoff from its builder, backoff's cloned backoff,
//! retry's and tokio-retry's delay iterators); the rest is built once.

use std::future::Future;
use std::iter::{Map, Take};
use std::time::Duration;

use staggered::{RetryPolicy, Strategy};

use super::{AsyncRetry, BlockingRetry, Failed, BASE, MAX_ATTEMPTS};

/// A jitter function, as a pointer so the iterator's type can be named (it
/// is called only on a retry, never on the success path).
type Jitter = fn(Duration) -> Duration;

/// Retries after the first attempt.
const RETRIES: u32 = MAX_ATTEMPTS - 1;

/// No retry crate. On the fail-once path it calls the operation a second
/// time by hand, without waiting.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bare;

impl BlockingRetry for Bare {
    #[inline]
    fn call<F: FnMut() -> Result<u64, Failed>>(&self, mut op: F) -> Option<u64> {
        match op() {
            Ok(value) => Some(value),
            Err(_) => op().ok(),
        }
    }
}

impl AsyncRetry for Bare {
    #[inline]
    async fn call<F, Fut>(&self, mut op: F) -> Option<u64>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<u64, Failed>>,
    {
        match op().await {
            Ok(value) => Some(value),
            Err(_) => op().await.ok(),
        }
    }
}

/// [`Bare`] with `tokio::time::sleep(Duration::ZERO)` before the second
/// attempt: what a zero delay costs on tokio's timer, whatever the crate.
#[derive(Debug, Clone, Copy, Default)]
pub struct BareSleepZero;

impl AsyncRetry for BareSleepZero {
    #[inline]
    async fn call<F, Fut>(&self, mut op: F) -> Option<u64>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<u64, Failed>>,
    {
        match op().await {
            Ok(value) => Some(value),
            Err(_) => {
                tokio::time::sleep(Duration::ZERO).await;
                op().await.ok()
            }
        }
    }
}

/// staggered's [`RetryPolicy`] over a [`staggered::Backoff`], built once
/// and kept, as its docs advise.
#[derive(Debug, Clone)]
pub struct Staggered {
    policy: RetryPolicy<staggered::Backoff>,
}

impl Staggered {
    fn new(strategy: Strategy, base: Duration) -> Self {
        let backoff = staggered::Backoff::builder(strategy)
            .with_base(base)
            .with_max_attempts(MAX_ATTEMPTS)
            .build()
            .expect("a valid configuration");
        Staggered { policy: RetryPolicy::new(backoff) }
    }

    /// Full jitter, base [`BASE`], [`MAX_ATTEMPTS`] attempts.
    pub fn jittered() -> Self {
        Staggered::new(Strategy::Full, BASE)
    }

    /// `Strategy::Constant` with base 0: every delay is zero.
    pub fn zero() -> Self {
        Staggered::new(Strategy::Constant, Duration::ZERO)
    }
}

impl BlockingRetry for Staggered {
    #[inline]
    fn call<F: FnMut() -> Result<u64, Failed>>(&self, mut op: F) -> Option<u64> {
        self.policy.retry(|_| op()).call().ok()
    }
}

impl AsyncRetry for Staggered {
    #[inline]
    async fn call<F, Fut>(&self, mut op: F) -> Option<u64>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<u64, Failed>>,
    {
        self.policy.retry(move |_| op()).call().await.ok()
    }
}

/// [`Staggered`] with a sleeper that is ready at once (`with_timer`): the async loop's own cost on the fail-once path, without tokio's
/// timer (whose `sleep(ZERO)` waits for the next 1 ms tick).
#[derive(Debug, Clone)]
pub struct StaggeredReady(Staggered);

impl StaggeredReady {
    /// [`Staggered::zero`].
    pub fn zero() -> Self {
        StaggeredReady(Staggered::zero())
    }
}

impl AsyncRetry for StaggeredReady {
    #[inline]
    async fn call<F, Fut>(&self, mut op: F) -> Option<u64>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<u64, Failed>>,
    {
        let ready = |_: Duration| std::future::ready(());
        let clock = staggered::sleep::TokioClock;
        self.0.policy.retry(move |_| op()).with_timer(&ready, &clock).call().await.ok()
    }
}

/// backon's `Retryable` and `BlockingRetryable`: each call builds its
/// backoff from the builder (`Copy`), which seeds a `fastrand::Rng` from
/// fastrand's thread-local generator.
#[derive(Debug, Clone, Copy)]
pub struct Backon<B> {
    builder: B,
}

impl Backon<backon::ExponentialBuilder> {
    /// backon's only jitter (`x + U[0, x)`), min delay [`BASE`], 2 retries.
    pub fn jittered() -> Self {
        let builder = backon::ExponentialBuilder::new()
            .with_jitter()
            .with_min_delay(BASE)
            .with_max_times(RETRIES as usize);
        Backon { builder }
    }
}

impl Backon<backon::ConstantBuilder> {
    /// A constant zero delay, 2 retries.
    pub fn zero() -> Self {
        let builder =
            backon::ConstantBuilder::new().with_delay(Duration::ZERO).with_max_times(RETRIES as usize);
        Backon { builder }
    }
}

impl<B: backon::BackoffBuilder + Copy> BlockingRetry for Backon<B> {
    #[inline]
    fn call<F: FnMut() -> Result<u64, Failed>>(&self, op: F) -> Option<u64> {
        use backon::BlockingRetryable as _;
        op.retry(self.builder).call().ok()
    }
}

impl<B: backon::BackoffBuilder + Copy> AsyncRetry for Backon<B> {
    #[inline]
    async fn call<F, Fut>(&self, op: F) -> Option<u64>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<u64, Failed>>,
    {
        use backon::Retryable as _;
        op.retry(self.builder).await.ok()
    }
}

/// [`Backon`] with `.sleep(|_| ready(()))`: its async loop without tokio's timer.
#[derive(Debug, Clone, Copy)]
pub struct BackonReady<B>(Backon<B>);

impl BackonReady<backon::ConstantBuilder> {
    /// [`Backon::zero`].
    pub fn zero() -> Self {
        BackonReady(Backon::zero())
    }
}

impl<B: backon::BackoffBuilder + Copy> AsyncRetry for BackonReady<B> {
    #[inline]
    async fn call<F, Fut>(&self, op: F) -> Option<u64>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<u64, Failed>>,
    {
        use backon::Retryable as _;
        op.retry(self.0.builder).sleep(|_| std::future::ready(())).await.ok()
    }
}

/// backoff's `retry` and `future::retry`, which take the backoff by value
/// and `reset()` it first: `make` is what the user passes per call.
#[derive(Debug, Clone, Copy)]
pub struct Backoff<M> {
    make: M,
}

impl Backoff<()> {
    /// backoff's `ExponentialBackoff`, initial interval [`BASE`], cloned per
    /// call. It has neither full jitter (randomization factor 0.5, its
    /// default) nor an attempt limit (max elapsed time 15 min, its default);
    /// its `reset()` reads the clock.
    pub fn jittered() -> Backoff<impl Fn() -> backoff::ExponentialBackoff> {
        let config = backoff::ExponentialBackoffBuilder::new().with_initial_interval(BASE).build();
        Backoff { make: move || config.clone() }
    }

    /// `backoff::backoff::Constant::new(Duration::ZERO)`, made per call (it is
    /// not `Clone`), with no attempt limit.
    pub fn zero() -> Backoff<impl Fn() -> backoff::backoff::Constant> {
        Backoff { make: || backoff::backoff::Constant::new(Duration::ZERO) }
    }
}

impl<M, B> BlockingRetry for Backoff<M>
where
    M: Fn() -> B,
    B: backoff::backoff::Backoff,
{
    #[inline]
    fn call<F: FnMut() -> Result<u64, Failed>>(&self, mut op: F) -> Option<u64> {
        backoff::retry((self.make)(), || op().map_err(backoff::Error::transient)).ok()
    }
}

impl<M, B> AsyncRetry for Backoff<M>
where
    M: Fn() -> B,
    B: backoff::backoff::Backoff,
{
    #[inline]
    async fn call<F, Fut>(&self, mut op: F) -> Option<u64>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<u64, Failed>>,
    {
        let op = || {
            let attempt = op();
            async move { attempt.await.map_err(backoff::Error::transient) }
        };
        backoff::future::retry((self.make)(), op).await.ok()
    }
}

/// The retry crate's `retry`, blocking only, over a delay iterator built
/// per call as its docs do.
#[derive(Debug, Clone, Copy)]
pub struct Retry<M> {
    make: M,
}

impl Retry<()> {
    /// `Exponential::from_millis(100).map(jitter).take(2)`: full jitter.
    pub fn jittered() -> Retry<impl Fn() -> Take<Map<retry::delay::Exponential, Jitter>>> {
        let base = BASE.as_millis() as u64;
        Retry {
            make: move || {
                retry::delay::Exponential::from_millis(base)
                    .map(retry::delay::jitter as Jitter)
                    .take(RETRIES as usize)
            },
        }
    }

    /// `NoDelay.take(2)`.
    pub fn zero() -> Retry<impl Fn() -> Take<retry::delay::NoDelay>> {
        Retry { make: || retry::delay::NoDelay.take(RETRIES as usize) }
    }
}

impl<M, I> BlockingRetry for Retry<M>
where
    M: Fn() -> I,
    I: IntoIterator<Item = Duration>,
{
    #[inline]
    fn call<F: FnMut() -> Result<u64, Failed>>(&self, op: F) -> Option<u64> {
        retry::retry((self.make)(), op).ok()
    }
}

/// tokio-retry's `Retry`, async only, over a delay iterator built per call.
/// `Retry::start` is the 0.3.2 name of `Retry::spawn`.
#[derive(Debug, Clone, Copy)]
pub struct TokioRetry<M> {
    make: M,
}

impl TokioRetry<()> {
    /// `ExponentialBackoff::from_millis(2).factor(50).map(jitter).take(2)`:
    /// 100 ms then 200 ms (its interval is `2^n * 50` ms), full jitter.
    pub fn jittered() -> TokioRetry<impl Fn() -> Take<Map<tokio_retry::strategy::ExponentialBackoff, Jitter>>>
    {
        let factor = BASE.as_millis() as u64 / 2;
        TokioRetry {
            make: move || {
                tokio_retry::strategy::ExponentialBackoff::from_millis(2)
                    .factor(factor)
                    .map(tokio_retry::strategy::jitter as Jitter)
                    .take(RETRIES as usize)
            },
        }
    }

    /// `FixedInterval::from_millis(0).take(2)`.
    pub fn zero() -> TokioRetry<impl Fn() -> Take<tokio_retry::strategy::FixedInterval>> {
        TokioRetry { make: || tokio_retry::strategy::FixedInterval::from_millis(0).take(RETRIES as usize) }
    }
}

impl<M, I> AsyncRetry for TokioRetry<M>
where
    M: Fn() -> I,
    I: IntoIterator<Item = Duration>,
{
    #[inline]
    async fn call<F, Fut>(&self, op: F) -> Option<u64>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<u64, Failed>>,
    {
        tokio_retry::Retry::start((self.make)(), op).await.ok()
    }
}
