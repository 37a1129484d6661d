//! The AWS SDK's retry quota: a token bucket that retries drain and successes
//! refill.

use crate::sync::{Arc, AtomicU64, Ordering};

use super::{Budget, BudgetMetrics, Tally};
use crate::classify::{ErrorKind, Failure};
use crate::error::{ConfigError, Field, Rule};

/// Tokens are kept in thousandths, so a fractional success reward is exact.
const MILLI: u64 = 1000;

/// The AWS SDK's retry token bucket (standard retry mode).
///
/// The bucket starts full. A retry after a failure costs `retry_cost`
/// tokens (`timeout_cost` after a timeout, `throttled_cost` after a
/// throttling error); with too few tokens left the retry is refused. A
/// success on the first try puts back `success_refund`; a success after
/// retries puts back what the last retry cost, as the SDK releases the
/// capacity that retry acquired.
///
/// # Default
/// | parameter | default |
/// |---|---|
/// | `capacity` | 500 |
/// | `retry_cost` | 5 |
/// | `timeout_cost` | 10 |
/// | `throttled_cost` | 5 (set it lower to let throttled calls retry longer) |
/// | `success_refund` | 1 |
/// | `success_reward` | none: successes refund as above |
///
/// # Any cost
/// The bucket is also a plain quota: [`try_acquire`](TokenBucket::try_acquire)
/// takes any number of tokens and [`release`](TokenBucket::release) gives
/// them back (botocore's `RetryQuota.acquire(n)` and `release(n)`), and
/// [`with_success_reward`](TokenBucketBuilder::with_success_reward) rewards
/// every success with a fraction of a token instead of refunding (smithy-rs's
/// `success_reward`). The AWS SDKs' retry behaviour 2.1 charges 14 per retry
/// and 5 per throttled retry:
///
/// ```
/// use staggered::{Budget, Failure, TokenBucket};
///
/// let v2_1 = TokenBucket::builder().with_retry_cost(14).with_timeout_cost(14).build();
/// assert!(v2_1.withdraw(&Failure::TRANSIENT));
/// assert_eq!(v2_1.tokens(), 486);
/// v2_1.deposit(2, Some(&Failure::TRANSIENT)); // a retried success gives back its cost
/// assert_eq!(v2_1.tokens(), 500);
///
/// let rewarded = TokenBucket::builder().with_capacity(10).with_success_reward(0.4)?.build();
/// assert!(rewarded.try_acquire(10));
/// (0..3).for_each(|_| rewarded.deposit(1, None));
/// assert_eq!((rewarded.tokens(), rewarded.level()), (1, 1.2));
/// # Ok::<(), staggered::ConfigError>(())
/// ```
///
/// Clones share the bucket. Every operation is one compare-and-swap loop on
/// one atomic: no lock, the level never goes below zero nor above capacity,
/// and no token is created or lost under contention.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// Thousandths of a token.
    milli_tokens: AtomicU64,
    config: TokenBucketBuilder,
    tally: Tally,
}

/// The parameters of a [`TokenBucket`]; every value is valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct TokenBucketBuilder {
    capacity: u32,
    retry_cost: u32,
    timeout_cost: u32,
    throttled_cost: u32,
    success_refund: u32,
    /// Thousandths of a token added by every success, refunds aside.
    success_reward: Option<u64>,
}

impl TokenBucketBuilder {
    /// The AWS defaults.
    pub const fn new() -> Self {
        TokenBucketBuilder {
            capacity: 500,
            retry_cost: 5,
            timeout_cost: 10,
            throttled_cost: 5,
            success_refund: 1,
            success_reward: None,
        }
    }
    /// Sets the bucket's size, and its starting level.
    pub const fn with_capacity(mut self, capacity: u32) -> Self {
        self.capacity = capacity;
        self
    }
    /// Sets the cost of a retry after a transient error.
    pub const fn with_retry_cost(mut self, cost: u32) -> Self {
        self.retry_cost = cost;
        self
    }
    /// Sets the cost of a retry after a timeout.
    pub const fn with_timeout_cost(mut self, cost: u32) -> Self {
        self.timeout_cost = cost;
        self
    }
    /// Sets the cost of a retry after a throttling error.
    pub const fn with_throttled_cost(mut self, cost: u32) -> Self {
        self.throttled_cost = cost;
        self
    }
    /// Sets the refund of a first-try success.
    pub const fn with_success_refund(mut self, refund: u32) -> Self {
        self.success_refund = refund;
        self
    }
    /// Rewards every success, first try or not, with `reward` tokens, kept
    /// to the thousandth, instead of refunding: a success after retries no
    /// longer gets its last retry's cost back (smithy-rs's `success_reward`,
    /// where 0.4 adds a token every third success).
    ///
    /// # Errors
    /// A [`ConfigError`] unless `reward` is finite and at least 0.001 (a
    /// thousandth, the bucket's resolution), at most `u32::MAX`.
    pub fn with_success_reward(mut self, reward: f64) -> Result<Self, ConfigError> {
        if !reward.is_finite() {
            return Err(ConfigError::float(Field::SuccessReward, Rule::Finite, reward));
        }
        let max = f64::from(u32::MAX);
        if !(0.001..=max).contains(&reward) {
            return Err(ConfigError::float(Field::SuccessReward, Rule::Within(0.001, max), reward));
        }
        self.success_reward = Some((reward * MILLI as f64).round() as u64);
        Ok(self)
    }
    /// A full bucket with these parameters.
    pub fn build(self) -> TokenBucket {
        TokenBucket {
            inner: Arc::new(Inner {
                milli_tokens: AtomicU64::new(u64::from(self.capacity) * MILLI),
                config: self,
                tally: Tally::default(),
            }),
        }
    }
}

impl Default for TokenBucketBuilder {
    fn default() -> Self {
        TokenBucketBuilder::new()
    }
}

impl TokenBucket {
    /// A full bucket with the AWS defaults.
    pub fn new() -> Self {
        TokenBucketBuilder::new().build()
    }

    /// A builder, to change the defaults.
    pub const fn builder() -> TokenBucketBuilder {
        TokenBucketBuilder::new()
    }

    /// The whole tokens left (a fraction from a success reward is not counted).
    pub fn tokens(&self) -> u32 {
        (self.milli() / MILLI) as u32
    }

    /// The tokens left, fractions included.
    pub fn level(&self) -> f64 {
        self.milli() as f64 / MILLI as f64
    }

    fn milli(&self) -> u64 {
        self.inner.milli_tokens.load(Ordering::Acquire)
    }

    /// Takes `cost` tokens if there are that many, and says whether it did:
    /// botocore's `RetryQuota.acquire`. Not counted in the
    /// [metrics](Budget::metrics)' allowed and refused retries, which are the
    /// retry decision's.
    pub fn try_acquire(&self, cost: u32) -> bool {
        let cost = u64::from(cost) * MILLI;
        self.inner
            .milli_tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| t.checked_sub(cost))
            .is_ok()
    }

    /// Gives back `amount` tokens, never above capacity: botocore's
    /// `RetryQuota.release`.
    pub fn release(&self, amount: u32) {
        self.refill(u64::from(amount) * MILLI);
    }

    /// The bucket's size.
    pub fn capacity(&self) -> u32 {
        self.inner.config.capacity
    }

    /// The cost of a retry after `failure`.
    pub fn cost(&self, failure: &Failure) -> u32 {
        let c = &self.inner.config;
        if failure.timed_out {
            c.timeout_cost
        } else if failure.kind == ErrorKind::Throttled {
            c.throttled_cost
        } else {
            c.retry_cost
        }
    }

    /// Adds `milli` thousandths of a token, never above capacity.
    fn refill(&self, milli: u64) {
        let capacity = u64::from(self.inner.config.capacity) * MILLI;
        let _ = self.inner.milli_tokens.fetch_update(Ordering::AcqRel, Ordering::Acquire, |tokens| {
            Some(tokens.saturating_add(milli).min(capacity))
        });
    }
}

impl Default for TokenBucket {
    fn default() -> Self {
        TokenBucket::new()
    }
}

impl Budget for TokenBucket {
    fn withdraw(&self, failure: &Failure) -> bool {
        self.inner.tally.record(self.try_acquire(self.cost(failure)))
    }

    fn refund(&self, failure: &Failure) {
        self.release(self.cost(failure));
        self.inner.tally.unrecord_allowed();
    }

    fn deposit(&self, _: u32, last_failure: Option<&Failure>) {
        if let Some(reward) = self.inner.config.success_reward {
            return self.refill(reward);
        }
        self.release(match last_failure {
            Some(failure) => self.cost(failure),
            None => self.inner.config.success_refund,
        });
    }

    fn metrics(&self) -> Option<BudgetMetrics> {
        Some(self.inner.tally.metrics(self.level(), Some(f64::from(self.capacity()))))
    }
}

/// What a [`TokenBucketBuilder`] was given, so a caller (a report, a
/// config dump) can show the parameters without keeping a copy of them.
impl TokenBucketBuilder {
    /// The bucket's size, and its starting level.
    pub const fn capacity(&self) -> u32 {
        self.capacity
    }
    /// The cost of a retry after a transient error.
    pub const fn retry_cost(&self) -> u32 {
        self.retry_cost
    }
    /// The cost of a retry after a timeout.
    pub const fn timeout_cost(&self) -> u32 {
        self.timeout_cost
    }
    /// The cost of a retry after a throttling error.
    pub const fn throttled_cost(&self) -> u32 {
        self.throttled_cost
    }
    /// The refund of a first-try success.
    pub const fn success_refund(&self) -> u32 {
        self.success_refund
    }
}

/// The parameters a [`TokenBucket`] was built with.
impl TokenBucket {
    /// The cost of a retry after a transient error.
    pub fn retry_cost(&self) -> u32 {
        self.inner.config.retry_cost
    }
    /// The cost of a retry after a timeout.
    pub fn timeout_cost(&self) -> u32 {
        self.inner.config.timeout_cost
    }
    /// The cost of a retry after a throttling error.
    pub fn throttled_cost(&self) -> u32 {
        self.inner.config.throttled_cost
    }
    /// The refund of a first-try success.
    pub fn success_refund(&self) -> u32 {
        self.inner.config.success_refund
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aws_defaults_drain_and_refill() {
        let bucket = TokenBucket::new();
        assert_eq!(bucket.tokens(), 500);
        assert!(bucket.withdraw(&Failure::TRANSIENT));
        assert!(bucket.withdraw(&Failure::timeout()));
        assert_eq!(bucket.tokens(), 485);
        bucket.deposit(1, None);
        assert_eq!(bucket.tokens(), 486);
        bucket.deposit(3, Some(&Failure::TRANSIENT));
        assert_eq!(bucket.tokens(), 491);
        bucket.deposit(2, Some(&Failure::timeout()));
        assert_eq!(bucket.tokens(), 500, "a timed-out retry's 10 come back, capped at capacity");
        for _ in 0..2 {
            assert!(bucket.withdraw(&Failure::TRANSIENT));
        }
        for _ in 0..97 {
            assert!(bucket.withdraw(&Failure::TRANSIENT));
        }
        assert_eq!(bucket.tokens(), 5);
        assert!(bucket.withdraw(&Failure::new(crate::ErrorKind::Throttled)));
        bucket.deposit(1, None);
        assert_eq!(bucket.tokens(), 1);
        assert!(!bucket.withdraw(&Failure::TRANSIENT), "an empty bucket means no retry");
        assert_eq!(bucket.tokens(), 1, "a refusal takes nothing");
        let m = bucket.metrics().unwrap();
        assert_eq!((m.allowed, m.refused, m.level, m.capacity), (102, 1, 1.0, Some(500.0)));
        for _ in 0..1000 {
            bucket.deposit(1, None);
        }
        assert_eq!(bucket.tokens(), 500, "never above capacity");
    }

    #[test]
    fn any_cost_and_fractional_rewards() {
        // botocore's quota: acquire and release any amount, capped at capacity.
        let quota = TokenBucket::builder().with_capacity(14).build();
        assert!(quota.try_acquire(14) && !quota.try_acquire(1));
        quota.release(50);
        assert_eq!(quota.tokens(), 14);
        // smithy-rs's reward: 0.4 per success, fractions kept, retries not refunded.
        let bucket = TokenBucket::builder().with_capacity(10).with_success_reward(0.4).unwrap().build();
        assert!(bucket.withdraw(&Failure::timeout()));
        for (successes, whole) in [(1, 0), (2, 0), (3, 1)] {
            bucket.deposit(2, Some(&Failure::timeout()));
            assert_eq!(bucket.tokens(), whole, "after {successes} successes");
        }
        assert!((bucket.level() - 1.2).abs() < 1e-12);
        for _ in 0..100 {
            bucket.deposit(1, None);
        }
        assert_eq!(bucket.level(), 10.0, "never above capacity");
        for bad in [f64::NAN, -0.5, 0.0004, f64::INFINITY, 5e9] {
            let err = TokenBucket::builder().with_success_reward(bad).unwrap_err();
            assert_eq!(err.field(), Field::SuccessReward, "{bad}");
        }
    }

    #[test]
    fn throttled_errors_may_cost_less() {
        let bucket = TokenBucket::builder().with_throttled_cost(1).build();
        assert!(bucket.withdraw(&Failure::THROTTLED));
        assert_eq!(bucket.tokens(), 499);
        let clone = bucket.clone();
        assert!(clone.withdraw(&Failure::TRANSIENT));
        assert_eq!(bucket.tokens(), 494, "clones share one bucket");
    }
}
