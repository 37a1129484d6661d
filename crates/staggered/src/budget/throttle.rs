//! gRPC retry throttling: failures drain a small token pool, successes refill
//! it by a fraction, and below half no call is retried.

use crate::sync::{Arc, AtomicU32, Ordering};

use super::{Budget, BudgetMetrics, Tally};
use crate::classify::Failure;

/// Tokens are kept in thousandths, so `token_ratio` 0.1 is exact.
const MILLI: f64 = 1000.0;

/// gRPC's retry throttling (gRFC A6).
///
/// The pool starts at `max_tokens`. Every retryable failure takes one token,
/// whether or not it is retried (the last attempt's failure too); every
/// success adds `token_ratio`. A retry is allowed only while the pool, after
/// the failure's token is taken, stays above `max_tokens / 2`. Defaults:
/// `max_tokens` 10, `token_ratio` 0.1, as in gRPC's service config examples.
/// Permanent failures take no token.
///
/// Clones share the pool; each update is one compare-and-swap loop.
#[derive(Debug, Clone)]
pub struct RetryThrottle {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    milli_tokens: AtomicU32,
    max: u32,
    ratio: u32,
    tally: Tally,
}

impl RetryThrottle {
    /// gRPC's example defaults: `max_tokens` 10, `token_ratio` 0.1.
    pub fn new() -> Self {
        RetryThrottle::with_parameters(10, 0.1).unwrap_or_else(|_| unreachable!("the defaults are valid"))
    }

    /// A throttle with `max_tokens` in `1..=1000` and `token_ratio` in
    /// `[0.001, max_tokens]`, in thousandths, as gRPC keeps it (three
    /// decimal places). A ratio that would have to be rounded to fit is
    /// refused, never changed.
    ///
    /// # Errors
    /// A [`ConfigError`](crate::ConfigError) naming the parameter.
    pub fn with_parameters(max_tokens: u32, token_ratio: f64) -> Result<Self, crate::ConfigError> {
        use crate::error::{ConfigError, Field, Rule};
        if !(1..=1000).contains(&max_tokens) {
            return Err(ConfigError::count(Field::MaxTokens, Rule::Within(1.0, 1000.0), max_tokens));
        }
        if !token_ratio.is_finite() {
            return Err(ConfigError::float(Field::TokenRatio, Rule::Finite, token_ratio));
        }
        if token_ratio < 0.001 || token_ratio > f64::from(max_tokens) {
            return Err(ConfigError::float(
                Field::TokenRatio,
                Rule::Within(0.001, f64::from(max_tokens)),
                token_ratio,
            ));
        }
        // gRPC keeps three decimal places of the ratio: a fourth is refused
        // rather than rounded away (0.1 is 100.00000000000001 thousandths in
        // floating point, hence the tolerance).
        let thousandths = token_ratio * MILLI;
        if (thousandths - thousandths.round()).abs() > 1e-6 {
            return Err(ConfigError::float(Field::TokenRatio, Rule::MultipleOf(0.001), token_ratio));
        }
        let max = max_tokens * 1000;
        let ratio = thousandths.round() as u32;
        Ok(RetryThrottle {
            inner: Arc::new(Inner { milli_tokens: AtomicU32::new(max), max, ratio, tally: Tally::default() }),
        })
    }

    /// The tokens in the pool.
    pub fn tokens(&self) -> f64 {
        f64::from(self.inner.milli_tokens.load(Ordering::Acquire)) / MILLI
    }

    /// Whether retries are currently allowed (the pool is above half).
    pub fn is_open(&self) -> bool {
        self.inner.milli_tokens.load(Ordering::Acquire) > self.inner.max / 2
    }
}

impl Default for RetryThrottle {
    fn default() -> Self {
        RetryThrottle::new()
    }
}

impl Budget for RetryThrottle {
    fn withdraw(&self, _: &Failure) -> bool {
        // The failure's token was taken by `record_failure`.
        self.inner.tally.record(self.is_open())
    }

    fn record_failure(&self, _: &Failure) {
        let _ = self
            .inner
            .milli_tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| Some(t.saturating_sub(1000)));
    }

    /// The withdrawal took no token (the failure's was taken when it was
    /// recorded, sent or not): only the count of allowed retries changes.
    fn refund(&self, _: &Failure) {
        self.inner.tally.unrecord_allowed();
    }

    fn deposit(&self, _: u32, _: Option<&Failure>) {
        let inner = &self.inner;
        let _ = inner.milli_tokens.fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
            Some(t.saturating_add(inner.ratio).min(inner.max))
        });
    }

    fn metrics(&self) -> Option<BudgetMetrics> {
        Some(self.inner.tally.metrics(self.tokens(), Some(f64::from(self.inner.max) / MILLI)))
    }
}

/// The parameters a [`RetryThrottle`] was built with.
impl RetryThrottle {
    /// The pool's size, `max_tokens`, where it starts.
    pub fn max_tokens(&self) -> u32 {
        self.inner.max / 1000
    }
    /// The tokens a success puts back, `token_ratio`, as the throttle keeps
    /// it: to three decimal places, as gRPC does.
    pub fn token_ratio(&self) -> f64 {
        f64::from(self.inner.ratio) / MILLI
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_defaults_close_at_half_and_reopen_with_successes() {
        let throttle = RetryThrottle::new();
        // 10 -> 9 -> 8 -> 7 -> 6 are above 5: four retries allowed.
        for _ in 0..4 {
            throttle.record_failure(&Failure::TRANSIENT);
            assert!(throttle.withdraw(&Failure::TRANSIENT));
        }
        throttle.record_failure(&Failure::TRANSIENT);
        assert!(!throttle.withdraw(&Failure::TRANSIENT), "5 is not above half");
        assert_eq!(throttle.tokens(), 5.0);
        assert!(!throttle.is_open());
        for _ in 0..11 {
            throttle.deposit(1, None);
        }
        assert!((throttle.tokens() - 6.1).abs() < 1e-9);
        assert!(throttle.is_open());
        for _ in 0..1000 {
            throttle.deposit(1, None);
        }
        assert_eq!(throttle.tokens(), 10.0);
    }

    #[test]
    fn validates_like_grpc() {
        assert!(RetryThrottle::with_parameters(0, 0.1).is_err());
        assert!(RetryThrottle::with_parameters(1001, 0.1).is_err());
        assert!(RetryThrottle::with_parameters(10, 0.0).is_err());
        assert!(RetryThrottle::with_parameters(10, f64::NAN).is_err());
        let err = RetryThrottle::with_parameters(10, 11.0).unwrap_err();
        assert_eq!(err.field(), crate::Field::TokenRatio);
    }
}
