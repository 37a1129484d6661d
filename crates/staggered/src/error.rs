//! The error of building a schedule from bad parameters.

use core::fmt;

/// A parameter of a schedule or a budget, as the builders, configuration
/// files and command line name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Field {
    /// `base`, the delay unit.
    Base,
    /// `multiplier`, the growth per retry.
    Multiplier,
    /// `max_delay`, the ceiling on every delay.
    MaxDelay,
    /// `factor`, the randomization (proportional) or jitter (additive) factor.
    Factor,
    /// `max_attempts`, the total number of calls.
    MaxAttempts,
    /// `granularity`, the step the interval is truncated to.
    Granularity,
    /// A ratio budget's window (`ttl`).
    Ttl,
    /// A ratio budget's `retry_percent`.
    RetryPercent,
    /// A retry throttle's `max_tokens`.
    MaxTokens,
    /// A retry throttle's `token_ratio`.
    TokenRatio,
    /// An adaptive limiter's CUBIC `scale_constant`.
    ScaleConstant,
    /// An adaptive limiter's `beta`, the rate kept after a throttle.
    Beta,
    /// An adaptive limiter's rate-meter `smoothing`.
    Smoothing,
    /// An adaptive limiter's `rate_bucket`, the rate meter's bucket width.
    RateBucket,
    /// An adaptive limiter's `min_rate`.
    MinRate,
    /// An adaptive limiter's `max_rate_scale`.
    MaxRateScale,
    /// A token bucket's `success_reward`.
    SuccessReward,
    /// A policy's `deadline`, the total time for an operation.
    Deadline,
    /// A policy's `attempt_timeout`, the time each async attempt gets.
    AttemptTimeout,
    /// A hedging delay's `percentile` of the latencies seen.
    Percentile,
    /// A hedging delay's `window` of latencies.
    Window,
}

impl Field {
    /// The field's name, as the builders and configuration files spell it.
    pub const fn name(self) -> &'static str {
        match self {
            Field::Base => "base",
            Field::Multiplier => "multiplier",
            Field::MaxDelay => "max_delay",
            Field::Factor => "factor",
            Field::MaxAttempts => "max_attempts",
            Field::Granularity => "granularity",
            Field::Ttl => "ttl",
            Field::RetryPercent => "retry_percent",
            Field::MaxTokens => "max_tokens",
            Field::TokenRatio => "token_ratio",
            Field::ScaleConstant => "scale_constant",
            Field::Beta => "beta",
            Field::Smoothing => "smoothing",
            Field::RateBucket => "rate_bucket",
            Field::MinRate => "min_rate",
            Field::MaxRateScale => "max_rate_scale",
            Field::SuccessReward => "success_reward",
            Field::Deadline => "deadline",
            Field::AttemptTimeout => "attempt_timeout",
            Field::Percentile => "percentile",
            Field::Window => "window",
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which rule a parameter broke.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Rule {
    /// The value must be a finite number (not NaN, not infinite).
    Finite,
    /// The value must be at least this.
    AtLeast(f64),
    /// The value must be at most this.
    AtMost(f64),
    /// The value must be greater than this.
    Above(f64),
    /// The value must be less than this.
    Below(f64),
    /// The value must lie in `[min, max]`.
    Within(f64, f64),
    /// The value must not be zero.
    NonZero,
    /// `max_delay` must not be below `base`, which is this.
    NotBelowBase(core::time::Duration),
    /// At most this many: the schedule has delays for this many attempts,
    /// and cannot be extended.
    WithinSchedule(u32),
    /// A multiple of this step (a ratio kept in thousandths).
    MultipleOf(f64),
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Finite => f.write_str("must be a finite number"),
            Rule::AtLeast(min) => write!(f, "must be at least {min}"),
            Rule::AtMost(max) => write!(f, "must be at most {max}"),
            Rule::Above(min) => write!(f, "must be greater than {min}"),
            Rule::Below(max) => write!(f, "must be less than {max}"),
            Rule::Within(min, max) => write!(f, "must be between {min} and {max}"),
            Rule::NonZero => f.write_str("must not be zero"),
            Rule::NotBelowBase(base) => write!(f, "must not be below base ({base:?})"),
            Rule::WithinSchedule(max) => write!(
                f,
                "must be at most {max}: the schedule has delays for {max} attempts and cannot be extended"
            ),
            Rule::MultipleOf(step) => write!(f, "must be a multiple of {step}"),
        }
    }
}

/// A schedule could not be built: [`field`](ConfigError::field) broke
/// [`rule`](ConfigError::rule). The message names both and the value given,
/// e.g. `invalid multiplier 0.5: must be at least 1`.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    field: Field,
    rule: Rule,
    value: Value,
}

/// The rejected value, kept for the message.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    Float(f64),
    Duration(core::time::Duration),
    Count(u32),
}

impl ConfigError {
    pub(crate) const fn float(field: Field, rule: Rule, value: f64) -> Self {
        ConfigError { field, rule, value: Value::Float(value) }
    }

    pub(crate) const fn duration(field: Field, rule: Rule, value: core::time::Duration) -> Self {
        ConfigError { field, rule, value: Value::Duration(value) }
    }

    pub(crate) const fn count(field: Field, rule: Rule, value: u32) -> Self {
        ConfigError { field, rule, value: Value::Count(value) }
    }

    /// The parameter that is wrong.
    pub const fn field(&self) -> Field {
        self.field
    }

    /// The rule it broke.
    pub const fn rule(&self) -> Rule {
        self.rule
    }

    /// The rejected value, when it is a duration (for a configuration
    /// file's error, which may blame another field).
    #[cfg(feature = "serde")]
    pub(crate) const fn duration_value(&self) -> Option<core::time::Duration> {
        match self.value {
            Value::Duration(d) => Some(d),
            Value::Float(_) | Value::Count(_) => None,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid {} ", self.field)?;
        match self.value {
            // 1e308 in full is 309 digits: very large and very small values
            // are written with an exponent.
            Value::Float(v) if v != 0.0 && !(1e-6..1e15).contains(&v.abs()) => write!(f, "{v:e}")?,
            Value::Float(v) => write!(f, "{v}")?,
            Value::Duration(d) => write!(f, "{d:?}")?,
            Value::Count(n) => write!(f, "{n}")?,
        }
        // A duration's range in durations (`1ms`), as the value is given,
        // not in bare seconds.
        if let (Value::Duration(_), Rule::Within(min, max)) = (self.value, self.rule) {
            let as_duration = core::time::Duration::try_from_secs_f64;
            if let (Ok(min), Ok(max)) = (as_duration(min), as_duration(max)) {
                return write!(f, ": must be between {min:?} and {max:?}");
            }
        }
        write!(f, ": {}", self.rule)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use core::time::Duration;

    use super::*;

    #[test]
    fn a_duration_s_range_is_given_in_durations() {
        let err = ConfigError::duration(Field::RateBucket, Rule::Within(0.001, 60.0), Duration::ZERO);
        assert_eq!(err.to_string(), "invalid rate_bucket 0ns: must be between 1ms and 60s");
        let err = ConfigError::duration(Field::Ttl, Rule::Within(1.0, 60.0), Duration::from_secs(90));
        assert_eq!(err.to_string(), "invalid ttl 90s: must be between 1s and 60s");
        let err = ConfigError::float(Field::Smoothing, Rule::Within(0.0, 1.0), 2.0);
        assert_eq!(err.to_string(), "invalid smoothing 2: must be between 0 and 1");
    }

    #[test]
    fn huge_and_tiny_values_are_written_with_an_exponent() {
        let err = ConfigError::float(Field::ScaleConstant, Rule::AtMost(1000.0), f64::MAX);
        assert_eq!(err.to_string(), "invalid scale_constant 1.7976931348623157e308: must be at most 1000");
        let err = ConfigError::float(Field::MinRate, Rule::AtLeast(1e-6), 1e-21);
        assert_eq!(err.to_string(), "invalid min_rate 1e-21: must be at least 0.000001");
        let err = ConfigError::float(Field::Multiplier, Rule::AtLeast(1.0), 0.5);
        assert_eq!(err.to_string(), "invalid multiplier 0.5: must be at least 1");
    }
}
