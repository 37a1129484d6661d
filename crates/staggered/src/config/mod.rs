//! Retry settings from a file (feature `serde`): a schedule, limits, a
//! classification, a budget, a rate limiter and hedging, in TOML or JSON
//! with human durations.
//!
//! ```
//! use std::time::Duration;
//! use staggered::config::RetryConfig;
//! use staggered::{ErrorKind, Strategy};
//!
//! let config = RetryConfig::from_toml_str(r#"
//!     [schedule]
//!     preset = "interactive"        # start from a preset ...
//!     strategy = "full"             # ... and change what you need
//!     base = "250ms"
//!     max_attempts = 4
//!
//!     [limits]
//!     deadline = "10s"
//!     max_hint = "1m"
//!     attempt_timeout = "1.5s"
//!     max_token_wait = "1s"         # shed an attempt that would wait longer for a token
//!
//!     [classification]
//!     stop_statuses = [501]
//!     retry_exit_codes = [75]       # for `stagger run`: EX_TEMPFAIL
//!     throttling_codes = ["QuotaExceeded"] # besides the AWS SDKs' codes
//!     bare_503_is_throttle = true   # behind a default nginx limit_req
//!
//!     [budget]
//!     kind = "token_bucket"
//!     capacity = 100
//!
//!     [rate_limiter]                # the AWS SDKs' adaptive mode; {} for the defaults
//!     min_rate = 1.0
//!     mode = "tracking"             # or follow the rate the server admitted
//!
//!     [hedging]                     # for async calls: a second copy after the p95
//!     percentile = 0.95
//! "#)?;
//! let backoff = config.backoff()?;
//! assert_eq!((backoff.strategy(), backoff.base()), (Strategy::Full, Duration::from_millis(250)));
//! assert_eq!(config.limits()?.deadline, Some(Duration::from_secs(10)));
//! assert_eq!(config.limits()?.max_token_wait, Some(Duration::from_secs(1)));
//! let limiter = config.rate_limiter()?.expect("a [rate_limiter] table");
//! assert_eq!(limiter.config().mode(), staggered::limiter::AdaptiveMode::Tracking);
//! assert_eq!(config.classification.status_kind(501), Some(ErrorKind::Permanent));
//! // A RetryPolicy with everything the file says: limits, status lists,
//! // budget and, for async operations and the HTTP integrations, the timeout.
//! let policy = config.async_policy()?;
//! assert_eq!(policy.limits().max_token_wait, Some(Duration::from_secs(1)));
//! assert_eq!(policy.classifier().http().status_kind(501), Some(ErrorKind::Permanent));
//! assert!(policy.classifier().http().is_throttling_code("QuotaExceeded"));
//! assert!(policy.classifier().http().bare_503_is_throttle());
//! assert!(policy.rate_limiter().and_then(|limiter| limiter.metrics()).is_some_and(|m| !m.enabled));
//! // A blocking call cannot be cut: the timeout is refused, not dropped.
//! assert_eq!(config.policy().unwrap_err().field(), "limits.attempt_timeout");
//!
//! // Mistakes name the field and its line.
//! let err = RetryConfig::from_toml_str("[schedule]\nmultiplier = 0.5").unwrap_err();
//! assert_eq!(err.to_string(), "schedule.multiplier: invalid multiplier 0.5: must be at least 1 at line 2 column 14");
//! # Ok::<(), staggered::config::LoadError>(())
//! ```
//!
//! Every section and field may be left out; unknown fields are errors, so a
//! typo is never silently ignored, and a section (or a JSON file) must be a
//! table, not a list. A loaded configuration is validated: the schedule by
//! [`BackoffBuilder`], the budget by its builder, the rest here. Every error
//! names the innermost field at fault ([`LoadError::field`]), one the file
//! sets when a rule joins two fields (a `base` above its preset's
//! `max_delay` blames `base`), and the line of its value
//! ([`LoadError::line`]); it quotes at most a short prefix of a bad value,
//! and no value is ever changed to make it fit a rule.
//!
//! A file of several operations, one table each (`[reports.schedule]`,
//! `[uploads.limits]`), is read by
//! [`RetryConfig::operations_from_toml_str`] and its JSON and path
//! siblings, and each error names its operation too
//! (`reports.schedule.base`).
//! [`RetryConfig::to_toml_string`] and [`RetryConfig::to_json_string`] write
//! a configuration that loads back equal.

mod budget;
mod duration;
mod error;
mod fields;
mod hedging;
mod key_path;
mod locate;
mod operations;
mod rate_limiter;
mod read;
mod shared;

use core::time::Duration;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use budget::{AnyBudget, BudgetConfig};
pub use duration::{format_duration, parse_duration, DurationError};
pub use error::{LoadError, LoadErrorKind};
pub use fields::AttemptLimit;
pub use hedging::HedgingConfig;
pub use rate_limiter::RateLimiterConfig;

use fields::{opt_duration, opt_name};

use crate::classify::ErrorKind;
use crate::{
    AttemptTimeout, Backoff, BackoffBuilder, CapMode, ConfigError, DefaultRules, Limits, Preset, RetryPolicy,
    Rule, Strategy,
};

/// A whole retry configuration: see the [module docs](self).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct RetryConfig {
    /// The delays between attempts and how many attempts.
    #[serde(default, skip_serializing_if = "is_default", deserialize_with = "read::section")]
    pub schedule: ScheduleConfig,
    /// The deadline, server hints and per-attempt timeout.
    #[serde(default, skip_serializing_if = "is_default", deserialize_with = "read::section")]
    pub limits: LimitsConfig,
    /// Which failures retry.
    #[serde(default, skip_serializing_if = "is_default", deserialize_with = "read::section")]
    pub classification: ClassificationConfig,
    /// A shared retry budget, if any.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "read::optional_section")]
    pub budget: Option<BudgetConfig>,
    /// A client-side adaptive rate limiter, if any.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "read::optional_section")]
    pub rate_limiter: Option<RateLimiterConfig>,
    /// How to hedge async calls, if they are hedged.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "read::optional_section")]
    pub hedging: Option<HedgingConfig>,
    /// The budget and the limiter built from those sections, shared by
    /// every policy built from this configuration.
    #[serde(skip)]
    built: shared::Built,
}

/// The `schedule` section: a [`Preset`] or a [`Strategy`] with its
/// parameters. Fields left out keep the preset's values, or
/// [`BackoffBuilder`]'s defaults without a preset (`full` jitter, 1 s base,
/// multiplier 2, 30 s cap, 5 attempts).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ScheduleConfig {
    /// Start from this preset (`"standard"`, `"aws"`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_name")]
    pub preset: Option<Preset>,
    /// The strategy (`"full"`, `"decorrelated"`, ...), overriding the preset's.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_name")]
    pub strategy: Option<Strategy>,
    /// The delay unit.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_duration")]
    pub base: Option<Duration>,
    /// Growth per retry; at least 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiplier: Option<f64>,
    /// The ceiling on every delay; not below `base`.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_duration")]
    pub max_delay: Option<Duration>,
    /// The randomization (`proportional`) or jitter (`additive`) factor, in `[0, 1]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factor: Option<f64>,
    /// Where the cap applies: `"delay"` (hard cap) or `"interval"`.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_name")]
    pub cap_mode: Option<CapMode>,
    /// The total number of calls, or `"unlimited"` (then set a deadline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<AttemptLimit>,
    /// The total time budget carried with the schedule.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_duration")]
    pub deadline: Option<Duration>,
    /// Truncate every interval to a multiple of this step.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_duration")]
    pub granularity: Option<Duration>,
    /// A fixed seed, for reproducible delays; at most 2^63 - 1, the largest
    /// integer TOML holds (any smaller seed reproduces as well).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// The `limits` section: what bounds the retrying besides the schedule.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct LimitsConfig {
    /// The total time budget from the start of attempt 1; overrides
    /// `schedule.deadline`; not zero.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_duration")]
    pub deadline: Option<Duration>,
    /// The longest server hint to honour (default: the schedule's largest
    /// delay); a longer one stops with `hint_too_long`.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_duration")]
    pub max_hint: Option<Duration>,
    /// The jitter added to server hints, as a fraction of the hint, in
    /// `[0, 1]` (default 0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint_jitter: Option<f64>,
    /// Cut each attempt after this long (async drivers); not zero.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_duration")]
    pub attempt_timeout: Option<Duration>,
    /// The longest an attempt may wait for the rate limiter's token; a
    /// longer wait stops with `token_wait_too_long` (default: up to the
    /// deadline).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_duration")]
    pub max_token_wait: Option<Duration>,
}

/// The `classification` section: which HTTP statuses and which exit codes
/// (for `stagger run`) are worth retrying, and which HTTP failures are
/// throttles.
///
/// # Default
/// HTTP: 408, 429 and 5xx retry, other 4xx stop; the AWS SDKs' throttling
/// codes, GitHub's rate limits and a 503 with a hint are throttles, a bare
/// 503 is not (see [`throttling`](crate::classify::throttling)).
/// Exit codes: every non-zero code retries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ClassificationConfig {
    /// HTTP statuses to retry besides 408, 429 and 5xx (100 to 599).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retry_statuses: Vec<u16>,
    /// HTTP statuses never to retry; they win over every other rule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_statuses: Vec<u16>,
    /// If not empty, only these non-zero exit codes retry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retry_exit_codes: Vec<i32>,
    /// Exit codes never to retry; they win over `retry_exit_codes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_exit_codes: Vec<i32>,
    /// Error codes that make an HTTP failure a throttle, besides the AWS
    /// SDKs' (`["QuotaExceeded"]`): for a service that names its
    /// throttling its own way, in `x-amzn-ErrorType` or at the start of the
    /// body. Each is letters, digits, `.`, `_` or `-`
    /// ([`ClassifyHttp::with_throttling_codes`](crate::classify::http::ClassifyHttp::with_throttling_codes)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttling_codes: Vec<String>,
    /// Whether a bare 503 (no hint, no error code) is a throttle rather
    /// than a transient failure: for a service behind a rate limiter that
    /// answers its excess so, as nginx's `limit_req` does by default
    /// ([`ClassifyHttp::with_bare_503_as_throttle`](crate::classify::http::ClassifyHttp::with_bare_503_as_throttle)).
    #[serde(default, skip_serializing_if = "is_false")]
    pub bare_503_is_throttle: bool,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl RetryConfig {
    /// Reads and validates a TOML configuration.
    ///
    /// # Errors
    /// A [`LoadError`] naming the field at fault and its line.
    pub fn from_toml_str(text: &str) -> Result<Self, LoadError> {
        read::read(text, read::Format::Toml)
    }

    /// Reads and validates a JSON configuration; its top level must be an
    /// object.
    ///
    /// # Errors
    /// A [`LoadError`] naming the field at fault and its line.
    pub fn from_json_str(text: &str) -> Result<Self, LoadError> {
        read::read(text, read::Format::Json)
    }

    /// Reads and validates a file: JSON if its name ends in `.json`, TOML otherwise.
    ///
    /// # Errors
    /// A [`LoadError`] if the file cannot be read, or as the `from_*_str` functions.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, LoadError> {
        let (text, format) = read::file(path.as_ref())?;
        read::read(&text, format)
    }

    /// Writes the configuration as TOML; it loads back equal.
    ///
    /// # Errors
    /// A [`LoadError`] if TOML cannot hold a value (a seed past 2^63 - 1,
    /// which loading refuses too).
    pub fn to_toml_string(&self) -> Result<String, LoadError> {
        self.schedule.check_seed(LoadErrorKind::Serialize)?;
        toml::to_string(self).map_err(|error| LoadError::new(LoadErrorKind::Serialize, "", error))
    }

    /// Writes the configuration as pretty JSON; it loads back equal.
    ///
    /// # Errors
    /// A [`LoadError`] if a value could not be loaded back (a seed past
    /// 2^63 - 1, as in TOML, so that both formats hold the same files).
    pub fn to_json_string(&self) -> Result<String, LoadError> {
        self.schedule.check_seed(LoadErrorKind::Serialize)?;
        serde_json::to_string_pretty(self)
            .map_err(|error| LoadError::new(LoadErrorKind::Serialize, "", error))
    }

    /// Checks every rule, as loading does.
    ///
    /// # Errors
    /// The first [`LoadError`], naming its field.
    pub fn validate(&self) -> Result<(), LoadError> {
        self.limits()?;
        self.classification.validate()?;
        self.budget()?;
        self.rate_limiter()?;
        self.hedging()?;
        Ok(())
    }

    /// The schedule.
    ///
    /// # Errors
    /// A [`LoadError`] such as `schedule.max_delay: invalid max_delay 10ms: must not be below base`,
    /// naming a field the configuration sets: with a `base` above its
    /// preset's `max_delay` and no `max_delay` of its own, `schedule.base`.
    pub fn backoff(&self) -> Result<Backoff, LoadError> {
        self.schedule.check_seed(LoadErrorKind::Invalid)?;
        self.schedule.builder().build().map_err(|error| self.schedule.blame(&error))
    }

    /// The limits a [`Decision`](crate::Decision) enforces: `max_attempts`
    /// from the schedule, the deadline (`limits.deadline`, else
    /// `schedule.deadline`), the longest hint (`limits.max_hint`, else the
    /// schedule's largest delay) and the hint jitter.
    ///
    /// # Errors
    /// A [`LoadError`] for a bad schedule or limit.
    pub fn limits(&self) -> Result<Limits, LoadError> {
        let backoff = self.backoff()?;
        let limits = &self.limits;
        let invalid = |field: &str, message: String| LoadError::new(LoadErrorKind::Invalid, field, message);
        if let Some(jitter) = limits.hint_jitter {
            if !(0.0..=1.0).contains(&jitter) {
                return Err(invalid(
                    "limits.hint_jitter",
                    format!("invalid hint_jitter {jitter}: must be between 0 and 1"),
                ));
            }
        }
        if limits.attempt_timeout.is_some_and(|timeout| timeout.is_zero()) {
            return Err(invalid(
                "limits.attempt_timeout",
                "invalid attempt_timeout 0s: must not be zero".into(),
            ));
        }
        // A zero deadline stops every retry before it starts: a file that
        // means "no retries" says max_attempts = 1.
        for (field, deadline) in
            [("schedule.deadline", self.schedule.deadline), ("limits.deadline", limits.deadline)]
        {
            if deadline.is_some_and(|deadline| deadline.is_zero()) {
                return Err(invalid(
                    field,
                    "invalid deadline 0s: must be more than 0 (for no retries, set max_attempts = 1)".into(),
                ));
            }
        }
        Ok(Limits::NONE
            .with_max_attempts(backoff.max_attempts())
            .with_deadline(limits.deadline.or(backoff.deadline()))
            .with_max_hint(Some(limits.max_hint.unwrap_or_else(|| backoff.delay_ceiling())))
            .with_hint_jitter(limits.hint_jitter.unwrap_or(Limits::NONE.hint_jitter))
            .with_max_token_wait(limits.max_token_wait))
    }

    /// The per-attempt timeout, for [`RetryPolicy::with_attempt_timeout`].
    pub fn attempt_timeout(&self) -> Option<Duration> {
        self.limits.attempt_timeout
    }

    /// The budget, if the configuration has one: built the first time it
    /// is asked for, then the same budget for every call and every policy
    /// built from this configuration (or from a clone of it with the same
    /// `budget` section), so that it bounds the retries of all their
    /// operations together. For a budget of its own, call
    /// [`BudgetConfig::build`].
    ///
    /// # Errors
    /// A [`LoadError`] such as `budget.token_ratio: invalid token_ratio 0: must be between 0.001 and 10`.
    pub fn budget(&self) -> Result<Option<AnyBudget>, LoadError> {
        self.budget.as_ref().map(|section| self.built.budget(section)).transpose()
    }

    /// The adaptive rate limiter, if the configuration has one: built the
    /// first time it is asked for, then shared as the
    /// [`budget`](Self::budget) is, so that every attempt of every policy
    /// built from this configuration takes its tokens. One configuration
    /// per client, then (per server it talks to); for a limiter of its own,
    /// call [`RateLimiterConfig::build`].
    ///
    /// # Errors
    /// A [`LoadError`] such as `rate_limiter.beta: invalid beta 1: must be less than 1`.
    pub fn rate_limiter(&self) -> Result<Option<crate::AdaptiveLimiter>, LoadError> {
        self.rate_limiter.as_ref().map(|section| self.built.limiter(section)).transpose()
    }

    /// The hedging, if the configuration has one (`[hedging]`), for
    /// [`Retrying::hedge`](crate::Retrying::hedge) and the integrations'
    /// `hedge`: built the first time it is asked for, then shared as the
    /// [`budget`](Self::budget) is, so that a learned delay learns from
    /// every call hedged with it.
    ///
    /// # Errors
    /// A [`LoadError`] such as `hedging.max_attempts: invalid max_attempts 9: must be between 2 and 5`.
    pub fn hedging(&self) -> Result<Option<crate::Hedging>, LoadError> {
        self.hedging.as_ref().map(|section| self.built.hedging(section)).transpose()
    }

    /// A [`RetryPolicy`] with everything the file says: the schedule, the
    /// limits, the classification (as [`DefaultRules`] with the file's
    /// status lists), the budget and the rate limiter (see
    /// [`RetryPolicy::rate_limiter`] for its metrics). Every policy built
    /// from this configuration shares its budget and its limiter, so
    /// building one per operation is as good as cloning one. For blocking calls: a per-attempt
    /// timeout cannot cut a blocking call, so a file with one is refused
    /// here rather than silently dropped; load it with
    /// [`async_policy`](Self::async_policy).
    ///
    /// # Errors
    /// As [`validate`](Self::validate), and `limits.attempt_timeout` when the
    /// file sets one.
    pub fn policy(&self) -> Result<RetryPolicy<Backoff, DefaultRules>, LoadError> {
        if let Some(timeout) = self.limits.attempt_timeout {
            return Err(LoadError::new(
                LoadErrorKind::Invalid,
                "limits.attempt_timeout",
                format_args!(
                    "a per-attempt timeout ({}) cannot cut a blocking call: load this file with \
                     `RetryConfig::async_policy` for async operations and the HTTP integrations",
                    format_duration(timeout)
                ),
            ));
        }
        self.plain_policy()
    }

    /// A [`RetryPolicy`] with everything the file says, for async operations
    /// and the HTTP integrations: as [`policy`](Self::policy), with the
    /// per-attempt timeout if the file sets one (so the operation's error
    /// type must hold a [`TimedOut`](crate::TimedOut): `std::io::Error`,
    /// `Box<dyn Error + Send + Sync>`, reqwest-middleware's error do).
    ///
    /// # Errors
    /// As [`validate`](Self::validate).
    pub fn async_policy(
        &self,
    ) -> Result<RetryPolicy<Backoff, DefaultRules, Option<AttemptTimeout>>, LoadError> {
        let policy = self.plain_policy()?;
        let timeout = self.limits.attempt_timeout;
        Ok(policy.map_timeout(|_| timeout.map(AttemptTimeout)))
    }

    fn plain_policy(&self) -> Result<RetryPolicy<Backoff, DefaultRules>, LoadError> {
        let limits = self.limits()?;
        let rules = DefaultRules::new().with_http(self.classification.http());
        let mut policy =
            RetryPolicy::new(self.backoff()?).classify(rules).with_hint_jitter(limits.hint_jitter);
        if let Some(budget) = self.budget()? {
            policy = policy.with_budget(budget);
        }
        if let Some(deadline) = limits.deadline {
            policy =
                policy.with_deadline(deadline).map_err(|error| LoadError::invalid_value("limits", &error))?;
        }
        // Unset, `max_hint` stays the policy's default, which depends on the
        // driver (the HTTP integrations honour longer hints).
        if let Some(max_hint) = self.limits.max_hint {
            policy = policy.with_max_hint(max_hint);
        }
        if let Some(max_token_wait) = self.limits.max_token_wait {
            policy = policy.with_max_token_wait(max_token_wait);
        }
        if let Some(limiter) = self.rate_limiter()? {
            policy = policy.with_rate_limiter(limiter);
        }
        Ok(policy)
    }
}

impl ScheduleConfig {
    /// The schedule's builder: the preset's (or the default one) with every
    /// field set here applied.
    pub fn builder(&self) -> BackoffBuilder {
        let mut b = match self.preset {
            Some(preset) => preset.builder(),
            None => BackoffBuilder::default(),
        };
        if let Some(strategy) = self.strategy {
            b = b.with_strategy(strategy);
        }
        if let Some(base) = self.base {
            b = b.with_base(base);
        }
        if let Some(multiplier) = self.multiplier {
            b = b.with_multiplier(multiplier);
        }
        if let Some(max_delay) = self.max_delay {
            b = b.with_max_delay(max_delay);
        }
        if let Some(factor) = self.factor {
            b = b.with_factor(factor);
        }
        if let Some(cap_mode) = self.cap_mode {
            b = b.with_cap_mode(cap_mode);
        }
        match self.max_attempts {
            Some(AttemptLimit::Count(n)) => b = b.with_max_attempts(n),
            Some(AttemptLimit::Unlimited) => b = b.without_max_attempts(),
            None => {}
        }
        if let Some(deadline) = self.deadline {
            b = b.with_deadline(deadline);
        }
        if let Some(step) = self.granularity {
            b = b.with_granularity(step);
        }
        if let Some(seed) = self.seed {
            b = b.with_seed(seed);
        }
        b
    }

    /// Refuses a seed TOML cannot hold, as a `kind` error: refused when
    /// read from JSON too, so that both formats hold the same files.
    fn check_seed(&self, kind: LoadErrorKind) -> Result<(), LoadError> {
        match self.seed {
            Some(seed) if i64::try_from(seed).is_err() => Err(LoadError::new(
                kind,
                "schedule.seed",
                format_args!(
                    "invalid seed {seed}: must be at most {}, the largest integer TOML holds",
                    i64::MAX
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The schedule builder's `error` as the file's: a rule between two
    /// fields names the one the file set. `max_delay` below `base` is
    /// `base`'s fault when the file sets `base` and leaves `max_delay` to its
    /// preset or the default.
    fn blame(&self, error: &ConfigError) -> LoadError {
        if let (Rule::NotBelowBase(base), Some(max_delay), None) =
            (error.rule(), error.duration_value(), self.max_delay)
        {
            let of = match self.preset {
                Some(preset) => format!("the {preset} preset's"),
                None => "the default".to_owned(),
            };
            return LoadError::new(
                LoadErrorKind::Invalid,
                "schedule.base",
                format_args!(
                    "invalid base {}: must not be above max_delay ({}, {of})",
                    format_duration(base),
                    format_duration(max_delay)
                ),
            );
        }
        LoadError::invalid_value("schedule", error)
    }
}

impl ClassificationConfig {
    /// The kind of failure an HTTP status is, or `None` for a success: the
    /// stop list, then the retry list (429 throttled, others transient),
    /// then the default rule (408, 429 and 5xx retry, other 4xx stop).
    pub fn status_kind(&self, status: u16) -> Option<ErrorKind> {
        if self.stop_statuses.contains(&status) {
            Some(ErrorKind::Permanent)
        } else if self.retry_statuses.contains(&status) {
            Some(if status == 429 { ErrorKind::Throttled } else { ErrorKind::Transient })
        } else if status >= 400 {
            Some(crate::classify::http::status_kind(status))
        } else {
            None
        }
    }

    /// The kind of failure a command's exit code is, or `None` for 0 (a
    /// success): the stop list, then the retry list if it is not empty (a
    /// code outside it is permanent), otherwise transient.
    pub fn exit_code_kind(&self, code: i32) -> Option<ErrorKind> {
        if code == 0 {
            None
        } else if self.stop_exit_codes.contains(&code) {
            Some(ErrorKind::Permanent)
        } else if self.retry_exit_codes.is_empty() || self.retry_exit_codes.contains(&code) {
            Some(ErrorKind::Transient)
        } else {
            Some(ErrorKind::Permanent)
        }
    }

    /// The HTTP classifier with these status lists and throttling settings.
    pub fn http(&self) -> crate::classify::http::ClassifyHttp {
        crate::classify::http::ClassifyHttp::new()
            .with_status_lists(
                self.retry_statuses.iter().copied().collect(),
                self.stop_statuses.iter().copied().collect(),
            )
            .with_throttling_codes(self.throttling_codes.iter().cloned())
            .with_bare_503_as_throttle(self.bare_503_is_throttle)
    }

    /// Checks the lists: statuses 100 to 599, exit codes 1 to 255, no code
    /// in both lists of a pair, throttling codes of a form a response's
    /// code can match. One pass over each list, with the codes kept as
    /// bits, so a list of any length is checked in linear time.
    fn validate(&self) -> Result<(), LoadError> {
        let invalid =
            |field: String, message: String| Err(LoadError::new(LoadErrorKind::Invalid, field, message));
        let mut codes = self.throttling_codes.iter().enumerate();
        if let Some((i, code)) = codes.find(|(_, code)| !crate::classify::throttling::is_code(code)) {
            return invalid(
                format!("classification.throttling_codes[{i}]"),
                format!("invalid throttling code {code:?}: must be letters, digits, '.', '_' or '-'"),
            );
        }
        for (name, list) in [("retry_statuses", &self.retry_statuses), ("stop_statuses", &self.stop_statuses)]
        {
            if let Some((i, status)) = list.iter().enumerate().find(|(_, s)| !(100..=599).contains(*s)) {
                return invalid(
                    format!("classification.{name}[{i}]"),
                    format!("invalid status {status}: must be between 100 and 599"),
                );
            }
        }
        let stop: crate::classify::http::StatusSet = self.stop_statuses.iter().copied().collect();
        if let Some((i, status)) = self.retry_statuses.iter().enumerate().find(|(_, s)| stop.contains(**s)) {
            return invalid(
                format!("classification.retry_statuses[{i}]"),
                format!("status {status} is also in stop_statuses"),
            );
        }
        for (name, list) in
            [("retry_exit_codes", &self.retry_exit_codes), ("stop_exit_codes", &self.stop_exit_codes)]
        {
            // A process exits with 0 to 255; 0 is a success, never a failure to classify.
            if let Some((i, code)) = list.iter().enumerate().find(|(_, c)| !(1..=255).contains(*c)) {
                let why = if *code == 0 { "0 is a success" } else { "must be between 1 and 255" };
                return invalid(
                    format!("classification.{name}[{i}]"),
                    format!("invalid exit code {code}: {why}"),
                );
            }
        }
        let mut stop = [false; 256];
        for &code in &self.stop_exit_codes {
            stop[code as usize] = true;
        }
        if let Some((i, code)) = self.retry_exit_codes.iter().enumerate().find(|(_, c)| stop[**c as usize]) {
            return invalid(
                format!("classification.retry_exit_codes[{i}]"),
                format!("exit code {code} is also in stop_exit_codes"),
            );
        }
        Ok(())
    }
}
