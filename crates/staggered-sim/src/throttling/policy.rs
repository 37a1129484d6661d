//! The policies the throttling scenario compares: no retries, retries,
//! the AWS SDKs' standard mode, and their adaptive mode.

use std::fmt;
use std::str::FromStr;

use super::ThrottlingError;

/// How each client of the fleet retries in the throttling scenario.
///
/// Every policy but [`NoRetry`](ThrottlingPolicy::NoRetry) walks the same
/// schedule ([`ThrottlingConfig::backoff`](super::ThrottlingConfig::backoff),
/// by default 3 attempts with full jitter, base 100 ms, cap 1 s). The last
/// two are the AWS SDKs' retry modes, with one retry quota (and one
/// limiter) per client, as each SDK client has its own.
///
/// ```
/// use staggered_sim::ThrottlingPolicy;
///
/// let policy: ThrottlingPolicy = "adaptive".parse()?;
/// assert_eq!(policy, ThrottlingPolicy::Adaptive);
/// assert!(policy.has_limiter() && policy.has_budget());
/// # Ok::<(), staggered_sim::ThrottlingError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ThrottlingPolicy {
    /// `no-retry`: one attempt per operation.
    NoRetry,
    /// `retry`: the schedule's attempts, nothing else.
    Retry,
    /// `retry+token-bucket`: the AWS SDKs' standard mode, the schedule
    /// under the retry quota ([`staggered::TokenBucket`]: 500 tokens, a
    /// throttled retry costs 5, a first-try success refunds 1).
    TokenBucket,
    /// `adaptive`: the AWS SDKs' adaptive mode, the standard mode plus an
    /// [`AdaptiveLimiter`](staggered::limiter::AdaptiveLimiter) that every
    /// attempt, the first included, takes a token from before it is sent.
    Adaptive,
}

impl ThrottlingPolicy {
    /// Every policy, in the order the scenario compares them.
    pub const ALL: [ThrottlingPolicy; 4] = [
        ThrottlingPolicy::NoRetry,
        ThrottlingPolicy::Retry,
        ThrottlingPolicy::TokenBucket,
        ThrottlingPolicy::Adaptive,
    ];

    /// The name: `no-retry`, `retry`, `retry+token-bucket` or `adaptive`.
    pub const fn name(self) -> &'static str {
        match self {
            ThrottlingPolicy::NoRetry => "no-retry",
            ThrottlingPolicy::Retry => "retry",
            ThrottlingPolicy::TokenBucket => "retry+token-bucket",
            ThrottlingPolicy::Adaptive => "adaptive",
        }
    }

    /// Whether the policy retries under the retry quota.
    pub const fn has_budget(self) -> bool {
        matches!(self, ThrottlingPolicy::TokenBucket | ThrottlingPolicy::Adaptive)
    }

    /// Whether the policy's attempts take tokens from an adaptive limiter.
    pub const fn has_limiter(self) -> bool {
        matches!(self, ThrottlingPolicy::Adaptive)
    }
}

impl serde::Serialize for ThrottlingPolicy {
    /// The [`name`](ThrottlingPolicy::name).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl fmt::Display for ThrottlingPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ThrottlingPolicy {
    type Err = ThrottlingError;

    /// Parses a [`name`](ThrottlingPolicy::name), ignoring ASCII case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ThrottlingPolicy::ALL
            .into_iter()
            .find(|policy| policy.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ThrottlingError::UnknownPolicy(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_choices() {
        for policy in ThrottlingPolicy::ALL {
            assert_eq!(policy.name().parse::<ThrottlingPolicy>(), Ok(policy));
            assert_eq!(policy.name().to_uppercase().parse::<ThrottlingPolicy>(), Ok(policy));
        }
        let err = "retry+ratio".parse::<ThrottlingPolicy>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown policy \"retry+ratio\": expected one of no-retry, retry, retry+token-bucket, adaptive"
        );
        assert_eq!(err.parameter(), "policies");
    }
}
