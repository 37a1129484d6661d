//! The `budget` section: which of the three published budgets, with which
//! parameters, and [`AnyBudget`] to hold whichever was built.

use core::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};

use super::fields::opt_duration;
use super::LoadError;
use crate::budget::{Budget, BudgetMetrics, RatioBudget, RetryThrottle, TokenBucket};
use crate::classify::Failure;

/// A retry budget ([`crate::budget`]), chosen by `kind`; every parameter left
/// out keeps the published default.
///
/// A parameter of another kind of budget is an error that names it.
///
/// ```toml
/// [budget]
/// kind = "token_bucket"   # or "ratio", "throttle"
/// capacity = 500
/// retry_cost = 5
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BudgetConfig {
    /// The AWS SDK's token bucket ([`TokenBucket`]).
    TokenBucket {
        /// Tokens in a full bucket (500).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        capacity: Option<u32>,
        /// Cost of a retry after a transient error (5).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_cost: Option<u32>,
        /// Cost of a retry after a timeout (10).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_cost: Option<u32>,
        /// Cost of a retry after a throttling error (5).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        throttled_cost: Option<u32>,
        /// Refund of a first-try success (1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        success_refund: Option<u32>,
    },
    /// Finagle's and tower's ratio budget ([`RatioBudget`]).
    Ratio {
        /// How long requests and retries count (`"10s"`; 1 s to 60 s).
        #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_duration")]
        ttl: Option<Duration>,
        /// Retries per second allowed with no traffic (10).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_per_sec: Option<u32>,
        /// Retries allowed per request, as a fraction (0.2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_percent: Option<f64>,
    },
    /// gRPC retry throttling ([`RetryThrottle`]).
    Throttle {
        /// Tokens in a full pool (10; 1 to 1000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_tokens: Option<u32>,
        /// Tokens a success puts back (0.1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token_ratio: Option<f64>,
    },
}

/// Which budget a section describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum BudgetKind {
    TokenBucket,
    Ratio,
    Throttle,
}

impl BudgetKind {
    const fn name(self) -> &'static str {
        match self {
            BudgetKind::TokenBucket => "token_bucket",
            BudgetKind::Ratio => "ratio",
            BudgetKind::Throttle => "throttle",
        }
    }

    const fn parameters(self) -> &'static str {
        match self {
            BudgetKind::TokenBucket => "capacity, retry_cost, timeout_cost, throttled_cost, success_refund",
            BudgetKind::Ratio => "ttl, min_per_sec, retry_percent",
            BudgetKind::Throttle => "max_tokens, token_ratio",
        }
    }
}

/// A budget section as written: its `kind` and every parameter of any kind,
/// read as a plain table so that each error keeps its field and its place
/// (an internally tagged enum would read the section as a whole first).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BudgetFields {
    kind: BudgetKind,
    #[serde(default)]
    capacity: Option<u32>,
    #[serde(default)]
    retry_cost: Option<u32>,
    #[serde(default)]
    timeout_cost: Option<u32>,
    #[serde(default)]
    throttled_cost: Option<u32>,
    #[serde(default)]
    success_refund: Option<u32>,
    #[serde(default, with = "opt_duration")]
    ttl: Option<Duration>,
    #[serde(default)]
    min_per_sec: Option<u32>,
    #[serde(default)]
    retry_percent: Option<f64>,
    #[serde(default)]
    max_tokens: Option<u32>,
    #[serde(default)]
    token_ratio: Option<f64>,
}

impl BudgetFields {
    /// The budget of this kind, or the first parameter given that belongs
    /// to another kind, with what is wrong.
    pub(super) fn into_config(self) -> Result<BudgetConfig, (&'static str, String)> {
        let kind = self.kind;
        let given = [
            ("capacity", self.capacity.is_some(), BudgetKind::TokenBucket),
            ("retry_cost", self.retry_cost.is_some(), BudgetKind::TokenBucket),
            ("timeout_cost", self.timeout_cost.is_some(), BudgetKind::TokenBucket),
            ("throttled_cost", self.throttled_cost.is_some(), BudgetKind::TokenBucket),
            ("success_refund", self.success_refund.is_some(), BudgetKind::TokenBucket),
            ("ttl", self.ttl.is_some(), BudgetKind::Ratio),
            ("min_per_sec", self.min_per_sec.is_some(), BudgetKind::Ratio),
            ("retry_percent", self.retry_percent.is_some(), BudgetKind::Ratio),
            ("max_tokens", self.max_tokens.is_some(), BudgetKind::Throttle),
            ("token_ratio", self.token_ratio.is_some(), BudgetKind::Throttle),
        ];
        if let Some((field, _, owner)) = given.into_iter().find(|&(_, set, owner)| set && owner != kind) {
            return Err((
                field,
                format!(
                    "{field} is a parameter of the {} budget, not of kind = \"{}\" (whose parameters are {})",
                    owner.name(),
                    kind.name(),
                    kind.parameters()
                ),
            ));
        }
        Ok(match kind {
            BudgetKind::TokenBucket => BudgetConfig::TokenBucket {
                capacity: self.capacity,
                retry_cost: self.retry_cost,
                timeout_cost: self.timeout_cost,
                throttled_cost: self.throttled_cost,
                success_refund: self.success_refund,
            },
            BudgetKind::Ratio => BudgetConfig::Ratio {
                ttl: self.ttl,
                min_per_sec: self.min_per_sec,
                retry_percent: self.retry_percent,
            },
            BudgetKind::Throttle => {
                BudgetConfig::Throttle { max_tokens: self.max_tokens, token_ratio: self.token_ratio }
            }
        })
    }
}

impl<'de> Deserialize<'de> for BudgetConfig {
    /// Reads the section as [`RetryConfig`](super::RetryConfig) does; a
    /// parameter of another kind is an error that names it.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields: BudgetFields = super::read::section(deserializer)?;
        fields
            .into_config()
            .map_err(|(field, message)| serde::de::Error::custom(format_args!("{field}: {message}")))
    }
}

impl BudgetConfig {
    /// Builds the budget.
    ///
    /// # Errors
    /// A [`LoadError`] naming the parameter, such as
    /// `budget.ttl: invalid ttl 90s: must be between 1s and 60s`.
    pub fn build(&self) -> Result<AnyBudget, LoadError> {
        match *self {
            BudgetConfig::TokenBucket {
                capacity,
                retry_cost,
                timeout_cost,
                throttled_cost,
                success_refund,
            } => {
                let mut builder = TokenBucket::builder();
                if let Some(capacity) = capacity {
                    builder = builder.with_capacity(capacity);
                }
                if let Some(cost) = retry_cost {
                    builder = builder.with_retry_cost(cost);
                }
                if let Some(cost) = timeout_cost {
                    builder = builder.with_timeout_cost(cost);
                }
                if let Some(cost) = throttled_cost {
                    builder = builder.with_throttled_cost(cost);
                }
                if let Some(refund) = success_refund {
                    builder = builder.with_success_refund(refund);
                }
                Ok(AnyBudget::TokenBucket(builder.build()))
            }
            BudgetConfig::Ratio { ttl, min_per_sec, retry_percent } => {
                let mut builder = RatioBudget::builder();
                if let Some(ttl) = ttl {
                    builder = builder.with_ttl(ttl);
                }
                if let Some(min) = min_per_sec {
                    builder = builder.with_min_per_sec(min);
                }
                if let Some(percent) = retry_percent {
                    builder = builder.with_retry_percent(percent);
                }
                builder
                    .build()
                    .map(AnyBudget::Ratio)
                    .map_err(|error| LoadError::invalid_value("budget", &error))
            }
            BudgetConfig::Throttle { max_tokens, token_ratio } => {
                RetryThrottle::with_parameters(max_tokens.unwrap_or(10), token_ratio.unwrap_or(0.1))
                    .map(AnyBudget::Throttle)
                    .map_err(|error| LoadError::invalid_value("budget", &error))
            }
        }
    }
}

/// Any of the three budgets, as a [`BudgetConfig`] builds them. Clones share
/// one budget, like the handles they hold.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum AnyBudget {
    /// The AWS SDK's token bucket.
    TokenBucket(TokenBucket),
    /// Finagle's and tower's ratio budget.
    Ratio(RatioBudget),
    /// gRPC retry throttling.
    Throttle(RetryThrottle),
}

impl Budget for AnyBudget {
    fn withdraw(&self, failure: &Failure) -> bool {
        match self {
            AnyBudget::TokenBucket(budget) => budget.withdraw(failure),
            AnyBudget::Ratio(budget) => budget.withdraw(failure),
            AnyBudget::Throttle(budget) => budget.withdraw(failure),
        }
    }

    fn deposit(&self, attempt: u32, last_failure: Option<&Failure>) {
        match self {
            AnyBudget::TokenBucket(budget) => budget.deposit(attempt, last_failure),
            AnyBudget::Ratio(budget) => budget.deposit(attempt, last_failure),
            AnyBudget::Throttle(budget) => budget.deposit(attempt, last_failure),
        }
    }

    fn record_failure(&self, failure: &Failure) {
        match self {
            AnyBudget::TokenBucket(budget) => budget.record_failure(failure),
            AnyBudget::Ratio(budget) => budget.record_failure(failure),
            AnyBudget::Throttle(budget) => budget.record_failure(failure),
        }
    }

    fn record_request(&self) {
        match self {
            AnyBudget::TokenBucket(budget) => budget.record_request(),
            AnyBudget::Ratio(budget) => budget.record_request(),
            AnyBudget::Throttle(budget) => budget.record_request(),
        }
    }

    fn metrics(&self) -> Option<BudgetMetrics> {
        match self {
            AnyBudget::TokenBucket(budget) => budget.metrics(),
            AnyBudget::Ratio(budget) => budget.metrics(),
            AnyBudget::Throttle(budget) => budget.metrics(),
        }
    }
}
