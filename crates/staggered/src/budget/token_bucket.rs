//! The AWS SDK's retry quota: a token bucket that retries drain and successes
//! refill.

use core::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use super::{Budget, BudgetMetrics, Tally};
use crate::classify::{ErrorKind, Failure};

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
    tokens: AtomicU32,
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
    /// A full bucket with these parameters.
    pub fn build(self) -> TokenBucket {
        TokenBucket {
            inner: Arc::new(Inner {
                tokens: AtomicU32::new(self.capacity),
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

    /// The tokens left.
    pub fn tokens(&self) -> u32 {
        self.inner.tokens.load(Ordering::Acquire)
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

    fn refill(&self, amount: u32) {
        let capacity = self.inner.config.capacity;
        let _ = self.inner.tokens.fetch_update(Ordering::AcqRel, Ordering::Acquire, |tokens| {
            Some(tokens.saturating_add(amount).min(capacity))
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
        let cost = self.cost(failure);
        let taken = self
            .inner
            .tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |tokens| tokens.checked_sub(cost));
        self.inner.tally.record(taken.is_ok())
    }

    fn deposit(&self, _: u32, last_failure: Option<&Failure>) {
        self.refill(match last_failure {
            Some(failure) => self.cost(failure),
            None => self.inner.config.success_refund,
        });
    }

    fn metrics(&self) -> Option<BudgetMetrics> {
        Some(self.inner.tally.metrics(f64::from(self.tokens()), Some(f64::from(self.capacity()))))
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
    fn throttled_errors_may_cost_less() {
        let bucket = TokenBucket::builder().with_throttled_cost(1).build();
        assert!(bucket.withdraw(&Failure::THROTTLED));
        assert_eq!(bucket.tokens(), 499);
        let clone = bucket.clone();
        assert!(clone.withdraw(&Failure::TRANSIENT));
        assert_eq!(bucket.tokens(), 494, "clones share one bucket");
    }
}
