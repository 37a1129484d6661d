//! The policies the overload scenario compares: no retries, retries with no
//! budget, and retries under each of the library's budgets.

use std::fmt;
use std::str::FromStr;

use super::OverloadError;

/// How a client fleet retries in the overload scenario.
///
/// Every policy but [`NoRetry`](OverloadPolicy::NoRetry) walks the same
/// schedule ([`OverloadConfig::backoff`](super::OverloadConfig::backoff),
/// by default 3 attempts with full jitter); the budgeted ones share one
/// budget, with its published defaults unless configured otherwise, among
/// all the operations of the run, as one fleet sharing one budget would.
///
/// ```
/// use staggered_sim::OverloadPolicy;
///
/// let policy: OverloadPolicy = "retry+token-bucket".parse()?;
/// assert_eq!(policy, OverloadPolicy::TokenBucket);
/// assert_eq!(policy.to_string(), "retry+token-bucket");
/// assert!(policy.has_budget());
/// # Ok::<(), staggered_sim::OverloadError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OverloadPolicy {
    /// `no-retry`: one attempt per operation (`max_attempts` 1).
    NoRetry,
    /// `retry`: the schedule's attempts, no budget.
    Retry,
    /// `retry+token-bucket`: the AWS SDK's token bucket
    /// ([`staggered::TokenBucket`]: 500 tokens, a retry costs 5, a timeout
    /// 10, a first-try success refunds 1).
    TokenBucket,
    /// `retry+ratio`: Finagle's and tower's ratio budget
    /// ([`staggered::RatioBudget`]: 20% of recent requests plus 10 per
    /// second, over 10 s), on the simulation's virtual clock.
    Ratio,
    /// `retry+throttle`: gRPC retry throttling ([`staggered::RetryThrottle`]:
    /// 10 tokens, ratio 0.1, no retry at or below half).
    Throttle,
}

impl OverloadPolicy {
    /// Every policy, in the order the scenario compares them: no retries,
    /// retries, then each budget.
    pub const ALL: [OverloadPolicy; 5] = [
        OverloadPolicy::NoRetry,
        OverloadPolicy::Retry,
        OverloadPolicy::TokenBucket,
        OverloadPolicy::Ratio,
        OverloadPolicy::Throttle,
    ];

    /// The name: `no-retry`, `retry`, `retry+token-bucket`, `retry+ratio`
    /// or `retry+throttle`.
    pub const fn name(self) -> &'static str {
        match self {
            OverloadPolicy::NoRetry => "no-retry",
            OverloadPolicy::Retry => "retry",
            OverloadPolicy::TokenBucket => "retry+token-bucket",
            OverloadPolicy::Ratio => "retry+ratio",
            OverloadPolicy::Throttle => "retry+throttle",
        }
    }

    /// Whether the policy retries under a budget.
    pub const fn has_budget(self) -> bool {
        matches!(self, OverloadPolicy::TokenBucket | OverloadPolicy::Ratio | OverloadPolicy::Throttle)
    }
}

impl serde::Serialize for OverloadPolicy {
    /// The [`name`](OverloadPolicy::name).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl fmt::Display for OverloadPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for OverloadPolicy {
    type Err = OverloadError;

    /// Parses a [`name`](OverloadPolicy::name), ignoring ASCII case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OverloadPolicy::ALL
            .into_iter()
            .find(|policy| policy.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| OverloadError::UnknownPolicy(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_choices() {
        for policy in OverloadPolicy::ALL {
            assert_eq!(policy.name().parse::<OverloadPolicy>(), Ok(policy));
            assert_eq!(policy.name().to_uppercase().parse::<OverloadPolicy>(), Ok(policy));
        }
        let err = "retry+magic".parse::<OverloadPolicy>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown policy \"retry+magic\": expected one of no-retry, retry, retry+token-bucket, \
             retry+ratio, retry+throttle"
        );
    }

    #[test]
    fn only_the_budgets_have_one() {
        let budgeted: Vec<_> = OverloadPolicy::ALL.into_iter().filter(|p| p.has_budget()).collect();
        assert_eq!(budgeted, [OverloadPolicy::TokenBucket, OverloadPolicy::Ratio, OverloadPolicy::Throttle]);
    }
}
