//! The peer crates, each configured to the closest equivalent of
//! [`BASE`], [`MULTIPLIER`], [`MAX_DELAY`] and [`DELAYS_PER_SEQUENCE`].

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use backoff::backoff::Backoff as _;
use backon::BackoffBuilder as _;
use retry_policies::RetryPolicy as _;

use super::{Contender, Info, Role, Shape, BASE, DELAYS_PER_SEQUENCE, MAX_DELAY, MULTIPLIER};

/// backon's `ExponentialBuilder` with jitter: it adds `U[0, 1) * x` to the
/// interval `x`, which it caps at max delay, so a delay can reach twice the
/// max. Its backoff is neither `Clone` nor resettable, so each sequence
/// builds a new one from the builder (which seeds it from fastrand's
/// thread-local generator).
#[derive(Debug)]
pub struct Backon {
    builder: backon::ExponentialBuilder,
    backoff: backon::ExponentialBackoff,
}

impl Backon {
    /// The configured builder and a first backoff.
    pub fn new() -> Self {
        let builder = backon::ExponentialBuilder::new()
            .with_jitter()
            .with_min_delay(black_box(BASE))
            .with_factor(black_box(MULTIPLIER as f32))
            .with_max_delay(black_box(MAX_DELAY))
            .with_max_times(black_box(DELAYS_PER_SEQUENCE));
        Backon { backoff: builder.build(), builder }
    }
}

impl Default for Backon {
    fn default() -> Self {
        Self::new()
    }
}

impl Contender for Backon {
    type Output = Option<Duration>;

    fn info(&self) -> Info {
        Info {
            name: "backon",
            slug: "backon",
            role: Role::Peer,
            shape: Shape::Additive,
            jitter: "x + U[0, x), cap on x (f32 math)",
            per_sequence: "new backoff: builder.build()",
            clamped: false,
        }
    }

    #[inline]
    fn start(&mut self) {
        self.backoff = self.builder.build();
    }

    #[inline]
    fn next_delay(&mut self) -> Option<Duration> {
        self.backoff.next()
    }

    fn delay(output: &Option<Duration>, _: SystemTime) -> Option<Duration> {
        *output
    }
}

/// backoff's `ExponentialBackoff` (google-http-java-client's algorithm):
/// randomization factor 0.5 around an interval capped at max interval, no
/// elapsed-time limit. It is resettable, so one backoff is built outside the
/// timed loop; `reset` and every `next_backoff` read the clock (it checks the
/// elapsed time even when there is no limit).
#[derive(Debug)]
pub struct Backoff {
    backoff: backoff::ExponentialBackoff,
}

impl Backoff {
    /// The configured backoff.
    pub fn new() -> Self {
        let backoff = backoff::ExponentialBackoffBuilder::new()
            .with_initial_interval(black_box(BASE))
            .with_multiplier(black_box(f64::from(MULTIPLIER)))
            .with_randomization_factor(black_box(0.5))
            .with_max_interval(black_box(MAX_DELAY))
            .with_max_elapsed_time(None)
            .build();
        Backoff { backoff }
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Self::new()
    }
}

impl Contender for Backoff {
    type Output = Option<Duration>;

    fn info(&self) -> Info {
        Info {
            name: "backoff",
            slug: "backoff",
            role: Role::Peer,
            shape: Shape::Proportional,
            jitter: "U[x/2, 3x/2] (+1 ns), cap on x",
            per_sequence: "reset(): one backoff reused",
            clamped: false,
        }
    }

    #[inline]
    fn start(&mut self) {
        self.backoff.reset();
    }

    #[inline]
    fn next_delay(&mut self) -> Option<Duration> {
        self.backoff.next_backoff()
    }

    fn delay(output: &Option<Duration>, _: SystemTime) -> Option<Duration> {
        // Its formula draws from [min, max + 1 ns]: allow that one nanosecond.
        output.map(|d| d.saturating_sub(Duration::from_nanos(1)))
    }
}

/// tokio-retry's `ExponentialBackoff` with its `jitter` (full jitter, from
/// `rand`'s thread-local generator). Its interval is `base^n * factor` in
/// milliseconds, so `from_millis(2).factor(50)` gives 100, 200, 400 ms...
/// The strategy is `Clone`; each sequence clones the configured one and
/// takes [`DELAYS_PER_SEQUENCE`] from it, as `Retry::spawn(strategy.map(jitter).take(n), ..)` does.
#[derive(Debug)]
pub struct TokioRetry {
    strategy: tokio_retry::strategy::ExponentialBackoff,
    delays: std::iter::Take<tokio_retry::strategy::ExponentialBackoff>,
}

impl TokioRetry {
    /// The configured strategy.
    pub fn new() -> Self {
        let strategy =
            tokio_retry::strategy::ExponentialBackoff::from_millis(black_box(u64::from(MULTIPLIER)))
                .factor(black_box(BASE.as_millis() as u64 / u64::from(MULTIPLIER)))
                .max_delay(black_box(MAX_DELAY));
        TokioRetry { delays: strategy.clone().take(DELAYS_PER_SEQUENCE), strategy }
    }
}

impl Default for TokioRetry {
    fn default() -> Self {
        Self::new()
    }
}

impl Contender for TokioRetry {
    type Output = Option<Duration>;

    fn info(&self) -> Info {
        Info {
            name: "tokio-retry",
            slug: "tokio-retry",
            role: Role::Peer,
            shape: Shape::Full,
            jitter: "full: x * U[0, 1)",
            per_sequence: "strategy.clone().take(10), map(jitter)",
            clamped: true,
        }
    }

    #[inline]
    fn start(&mut self) {
        self.delays = self.strategy.clone().take(DELAYS_PER_SEQUENCE);
    }

    #[inline]
    fn next_delay(&mut self) -> Option<Duration> {
        // What `.map(jitter)` does, without a function pointer in the type.
        self.delays.next().map(tokio_retry::strategy::jitter)
    }

    fn delay(output: &Option<Duration>, _: SystemTime) -> Option<Duration> {
        *output
    }
}

/// exponential-backoff's `Backoff` with jitter 0.5: it draws an integer
/// `k` in `0..100`; below 50 the delay is `x * (1 - k/100)`, else
/// `x * (1 + (k/2)/100)`, then clamped to `[min, max]`. So not uniform:
/// `[0.51x, x]` or `[1.25x, 1.49x]`, in 1-2 % steps. It yields
/// `max_attempts - 1` delays (then `Some(None)`), so 11 attempts give 10.
/// Each sequence is a new iterator: `backoff.iter()` clones the config and
/// seeds a generator from fastrand's thread-local one.
#[derive(Debug)]
pub struct ExponentialBackoff {
    backoff: exponential_backoff::Backoff,
    delays: exponential_backoff::IntoIter,
}

impl ExponentialBackoff {
    /// The configured backoff.
    pub fn new() -> Self {
        let attempts = DELAYS_PER_SEQUENCE as u32 + 1;
        let mut backoff =
            exponential_backoff::Backoff::new(black_box(attempts), black_box(BASE), black_box(MAX_DELAY));
        backoff.set_factor(black_box(MULTIPLIER));
        backoff.set_jitter(black_box(0.5));
        ExponentialBackoff { delays: backoff.iter(), backoff }
    }
}

impl Default for ExponentialBackoff {
    fn default() -> Self {
        Self::new()
    }
}

impl Contender for ExponentialBackoff {
    type Output = Option<Option<Duration>>;

    fn info(&self) -> Info {
        Info {
            name: "exponential-backoff",
            slug: "exponential-backoff",
            role: Role::Peer,
            shape: Shape::Proportional,
            jitter: "x*[0.51, 1] or x*[1.25, 1.49], clamped",
            per_sequence: "new iterator: backoff.iter()",
            clamped: true,
        }
    }

    #[inline]
    fn start(&mut self) {
        self.delays = self.backoff.iter();
    }

    #[inline]
    fn next_delay(&mut self) -> Option<Option<Duration>> {
        self.delays.next()
    }

    fn delay(output: &Option<Option<Duration>>, _: SystemTime) -> Option<Duration> {
        output.flatten()
    }
}

/// retry-policies' `ExponentialBackoff` with `Jitter::Full` (from `rand`'s
/// thread-local generator). The policy is stateless: a sequence is the
/// retry count going from 0 to 9. It answers with a wake-up time,
/// `SystemTime::now() + delay`, so every delay includes a clock read.
#[derive(Debug)]
pub struct RetryPolicies {
    policy: retry_policies::policies::ExponentialBackoff,
    started_at: SystemTime,
    past_retries: u32,
}

impl RetryPolicies {
    /// The configured policy.
    pub fn new() -> Self {
        let policy = retry_policies::policies::ExponentialBackoff::builder()
            .retry_bounds(black_box(BASE), black_box(MAX_DELAY))
            .base(black_box(MULTIPLIER))
            .jitter(retry_policies::Jitter::Full)
            .build_with_max_retries(black_box(DELAYS_PER_SEQUENCE as u32));
        // The policy ignores the start time; it is read once, not per sequence.
        RetryPolicies { policy, started_at: SystemTime::now(), past_retries: 0 }
    }
}

impl Default for RetryPolicies {
    fn default() -> Self {
        Self::new()
    }
}

impl Contender for RetryPolicies {
    type Output = retry_policies::RetryDecision;

    fn info(&self) -> Info {
        Info {
            name: "retry-policies",
            slug: "retry-policies",
            role: Role::Peer,
            shape: Shape::Full,
            jitter: "full: x * U[0, 1)",
            per_sequence: "retry count back to 0 (stateless)",
            clamped: true,
        }
    }

    #[inline]
    fn start(&mut self) {
        self.past_retries = 0;
    }

    #[inline]
    fn next_delay(&mut self) -> retry_policies::RetryDecision {
        let decision = self.policy.should_retry(self.started_at, self.past_retries);
        self.past_retries += 1;
        decision
    }

    fn delay(output: &retry_policies::RetryDecision, called_at: SystemTime) -> Option<Duration> {
        match output {
            retry_policies::RetryDecision::Retry { execute_after } => {
                execute_after.duration_since(called_at).ok()
            }
            retry_policies::RetryDecision::DoNotRetry => None,
        }
    }
}
