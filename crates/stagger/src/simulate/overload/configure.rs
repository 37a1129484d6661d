//! The overload options turned into the simulator's validated
//! [`OverloadConfig`]: what is not given keeps the issue's value, and every
//! error names the option that set the parameter.

use std::time::Duration;

use anyhow::{anyhow, Context};
use staggered::budget::{RatioBudgetBuilder, TokenBucketBuilder};
use staggered::{Backoff, ConfigError, Field};
use staggered_sim::{OverloadConfig, OverloadError, OverloadPolicy, Trigger, MAX_OPERATIONS};

use super::options::TriggerWindow;
use crate::duration;
use crate::exit::UsageError;
use crate::simulate::args::{Opt, SimulateArgs};

/// The most attempts a run may expect at worst (`--attempts` times the
/// operations expected, when every attempt fails): ten times the
/// simulator's limit on operations, about ten minutes per policy.
pub const MAX_ATTEMPTS_TOTAL: f64 = 10.0 * MAX_OPERATIONS;

/// A validated overload experiment: the simulator's configuration, and the
/// budgets' parameters, which the library's builders do not give back.
#[derive(Debug, Clone, PartialEq)]
pub struct OverloadSetup {
    /// The simulator's configuration.
    pub config: OverloadConfig,
    /// The parameters of `retry+token-bucket`'s budget.
    pub token_bucket: TokenBucketParams,
    /// The parameters of `retry+ratio`'s budget.
    pub ratio_budget: RatioParams,
}

/// The AWS token bucket's parameters, as the options set them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenBucketParams {
    /// Tokens in a full bucket, where it starts.
    pub capacity: u32,
    /// The cost of a retry after an error.
    pub retry_cost: u32,
    /// The cost of a retry after a timeout.
    pub timeout_cost: u32,
    /// The tokens a first-try success puts back.
    pub success_refund: u32,
}

impl TokenBucketParams {
    /// The AWS SDK's defaults, as [`TokenBucketBuilder::new`] has them (a
    /// test checks that they agree).
    pub const AWS: TokenBucketParams =
        TokenBucketParams { capacity: 500, retry_cost: 5, timeout_cost: 10, success_refund: 1 };

    /// The library's builder with these parameters (the throttled cost
    /// stays the default: the model has no throttling errors).
    pub const fn builder(self) -> TokenBucketBuilder {
        TokenBucketBuilder::new()
            .with_capacity(self.capacity)
            .with_retry_cost(self.retry_cost)
            .with_timeout_cost(self.timeout_cost)
            .with_success_refund(self.success_refund)
    }
}

/// Finagle's ratio budget's parameters, as the options set them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioParams {
    /// Retries allowed per request (0.2 is 20%).
    pub retry_percent: f64,
    /// Retries allowed per second with no traffic.
    pub min_per_sec: u32,
    /// How long requests and retries count.
    pub ttl: Duration,
}

impl RatioParams {
    /// Finagle's defaults, as [`RatioBudgetBuilder::new`] has them (a test
    /// checks that they agree).
    pub const FINAGLE: RatioParams =
        RatioParams { retry_percent: 0.2, min_per_sec: 10, ttl: Duration::from_secs(10) };

    /// The library's builder with these parameters.
    pub const fn builder(self) -> RatioBudgetBuilder {
        RatioBudgetBuilder::new()
            .with_retry_percent(self.retry_percent)
            .with_min_per_sec(self.min_per_sec)
            .with_ttl(self.ttl)
    }
}

/// Builds the experiment from the options, and notes the options that were
/// accepted but change nothing (a budget's option without its policy).
///
/// # Errors
/// A [`UsageError`] naming the option at fault.
pub fn configure(args: &SimulateArgs) -> anyhow::Result<(OverloadSetup, Vec<String>)> {
    let defaults = OverloadConfig::default();
    let policies = match &args.policies {
        Some(names) => names
            .iter()
            .map(|name| name.trim().parse::<OverloadPolicy>())
            .collect::<Result<Vec<_>, _>>()
            .context(UsageError::option(Opt::Policies.flag()))?,
        None => defaults.policies().to_vec(),
    };
    let capacity = args.capacity.unwrap_or(defaults.service_rate());
    let mut builder = defaults
        .to_builder()
        .with_policies(policies.iter().copied())
        .with_service_rate(capacity)
        .with_backoff(backoff(args, defaults.backoff())?);
    if let Some(seed) = args.seed {
        builder = builder.with_seed(seed);
    }
    if let Some(duration) = args.duration {
        builder = builder.with_duration(duration);
    }
    if let Some(rate) = args.arrival_rate {
        builder = builder.with_arrival_rate(rate);
    }
    if let Some(timeout) = args.timeout {
        builder = builder.with_timeout(timeout);
    }
    let default_trigger = Trigger::default();
    builder = match args
        .trigger
        .unwrap_or(TriggerWindow::Between(default_trigger.start(), default_trigger.end()))
    {
        TriggerWindow::None => builder.without_trigger(),
        TriggerWindow::Between(start, end) => {
            let share = args.trigger_capacity.map_or(default_trigger.capacity(), |c| c.share_of(capacity));
            builder.with_trigger(Trigger::new(start, end, share))
        }
    };
    if let Some(error_rate) = args.error_rate {
        builder = builder.with_error_rate(error_rate);
    }
    let token_bucket = TokenBucketParams {
        capacity: args.bucket_capacity.unwrap_or(TokenBucketParams::AWS.capacity),
        retry_cost: args.bucket_retry_cost.unwrap_or(TokenBucketParams::AWS.retry_cost),
        timeout_cost: args.bucket_timeout_cost.unwrap_or(TokenBucketParams::AWS.timeout_cost),
        success_refund: args.bucket_refund.unwrap_or(TokenBucketParams::AWS.success_refund),
    };
    let ratio_budget = RatioParams {
        retry_percent: args.ratio_percent.unwrap_or(RatioParams::FINAGLE.retry_percent),
        min_per_sec: args.ratio_min_per_sec.unwrap_or(RatioParams::FINAGLE.min_per_sec),
        ttl: args.ratio_ttl.unwrap_or(RatioParams::FINAGLE.ttl),
    };
    let (max_tokens, token_ratio) = defaults.retry_throttle();
    builder = builder
        .with_token_bucket(token_bucket.builder())
        .with_ratio_budget(ratio_budget.builder())
        .with_retry_throttle(
            args.throttle_max_tokens.unwrap_or(max_tokens),
            args.throttle_token_ratio.unwrap_or(token_ratio),
        )
        .with_recovery(
            args.recovery_threshold.unwrap_or(defaults.recovery_threshold()),
            args.recovery_window.unwrap_or(defaults.recovery_window()),
        );
    let config = builder.build().map_err(|err| usage_error(err, args))?;
    check_work(&config)?;
    let warnings = warnings(args, &config);
    Ok((OverloadSetup { config, token_bucket, ratio_budget }, warnings))
}

/// The default schedule with `--base`, `--cap` and `--attempts` applied.
fn backoff(args: &SimulateArgs, default: &Backoff) -> anyhow::Result<Backoff> {
    let parse = |text: &Option<String>, opt: Opt| {
        text.as_deref()
            .map(|text| duration::parse(text.trim()).context(UsageError::option(opt.flag())))
            .transpose()
    };
    let (base, cap) = (parse(&args.base, Opt::Base)?, parse(&args.cap, Opt::Cap)?);
    let mut builder = default.to_builder();
    if let Some(base) = base {
        builder = builder.with_base(base);
    }
    if let Some(cap) = cap {
        builder = builder.with_max_delay(cap);
    }
    if let Some(attempts) = args.attempts {
        builder = builder.with_max_attempts(attempts);
    }
    builder.build().map_err(|err| match (err.field(), base, cap) {
        // A --base above the default cap: the user never typed --cap.
        (Field::MaxDelay, Some(base), None) => anyhow::Error::new(err)
            .context(format!(
                "base {} is above the cap {}; raise --cap as well",
                duration::format(base),
                duration::format(default.max_delay())
            ))
            .context(UsageError::option(Opt::Base.flag())),
        (field, _, _) => blame_config(err, field),
    })
}

/// The library's error, blamed on the option that sets `field`.
fn blame_config(err: ConfigError, field: Field) -> anyhow::Error {
    match option_of(field) {
        Some(opt) => anyhow::Error::new(err).context(UsageError::option(opt.flag())),
        None => anyhow::Error::new(err).context(UsageError::options()),
    }
}

/// The option that sets the library's `field`, if one does.
fn option_of(field: Field) -> Option<Opt> {
    Some(match field {
        Field::Base => Opt::Base,
        Field::MaxDelay => Opt::Cap,
        Field::MaxAttempts => Opt::Attempts,
        Field::Ttl => Opt::RatioTtl,
        Field::RetryPercent => Opt::RatioPercent,
        Field::MaxTokens => Opt::ThrottleMaxTokens,
        Field::TokenRatio => Opt::ThrottleTokenRatio,
        _ => return None,
    })
}

/// The simulator's error, blamed on the option that set the parameter.
fn usage_error(err: OverloadError, args: &SimulateArgs) -> anyhow::Error {
    let opt = match &err {
        OverloadError::Duration(_) => Opt::Duration,
        OverloadError::ArrivalRate(_) => Opt::ArrivalRate,
        OverloadError::ServiceRate(_) => Opt::Capacity,
        OverloadError::Timeout(_) => Opt::Timeout,
        OverloadError::TriggerWindow { start, end } => {
            if args.trigger.is_some() {
                // The parser checked that it starts before it ends.
                let hint = format!(
                    "the trigger {}..{} ends after the duration {}; set --duration to at least {}",
                    duration::format(*start),
                    duration::format(*end),
                    duration::format(args.duration.unwrap_or(OverloadConfig::default().duration())),
                    duration::format(*end)
                );
                return anyhow::Error::new(err)
                    .context(hint)
                    .context(UsageError::option(Opt::Trigger.flag()));
            } else {
                // The default trigger does not fit a short --duration.
                let hint = format!(
                    "the default trigger {}..{} ends after the duration; set --trigger or a longer --duration",
                    duration::format(*start),
                    duration::format(*end)
                );
                return anyhow::Error::new(err)
                    .context(hint)
                    .context(UsageError::option(Opt::Duration.flag()));
            }
        }
        OverloadError::TriggerCapacity(_) => Opt::TriggerCapacity,
        OverloadError::ErrorRate(_) => Opt::ErrorRate,
        OverloadError::NoPolicies | OverloadError::DuplicatePolicy(_) | OverloadError::UnknownPolicy(_) => {
            Opt::Policies
        }
        OverloadError::UnboundedBackoff => Opt::Attempts,
        OverloadError::RecoveryThreshold(_) => Opt::RecoveryThreshold,
        OverloadError::RecoveryWindow(_) => Opt::RecoveryWindow,
        OverloadError::TooManyOperations(_) => match (args.duration.is_some(), args.arrival_rate.is_some()) {
            (true, false) => Opt::Duration,
            (false, true) => Opt::ArrivalRate,
            _ => return anyhow::Error::new(err).context(UsageError::options()),
        },
        OverloadError::Budget { source, .. } => {
            // Its message has the library's reason already: as text, so the
            // chain does not say it twice.
            let usage =
                option_of(source.field()).map_or(UsageError::options(), |opt| UsageError::option(opt.flag()));
            return anyhow!("{err}").context(usage);
        }
        _ => return anyhow::Error::new(err).context(UsageError::options()),
    };
    anyhow::Error::new(err).context(UsageError::option(opt.flag()))
}

/// Refuses a run that could make more than [`MAX_ATTEMPTS_TOTAL`] attempts:
/// without a budget, an overload makes every operation use all of them.
fn check_work(config: &OverloadConfig) -> anyhow::Result<()> {
    let retries = config.policies().iter().any(|&p| p != OverloadPolicy::NoRetry);
    let attempts = f64::from(config.backoff().max_attempts().unwrap_or(1));
    let operations = config.arrival_rate() * config.duration().as_secs_f64();
    if retries && attempts * operations > MAX_ATTEMPTS_TOTAL {
        return Err(anyhow!(
            "{attempts} attempts x {operations:.0} operations expected could be {:.0} attempts, more than the \
             limit of {MAX_ATTEMPTS_TOTAL:e}",
            attempts * operations
        ))
        .context(UsageError::option(Opt::Attempts.flag()));
    }
    Ok(())
}

/// Options that were accepted but change nothing here, explained.
fn warnings(args: &SimulateArgs, config: &OverloadConfig) -> Vec<String> {
    let has = |policy| config.policies().contains(&policy);
    let groups: [(&[Opt], bool, &str); 4] = [
        (
            &[Opt::Base, Opt::Cap, Opt::Attempts],
            config.policies().iter().any(|&p| p != OverloadPolicy::NoRetry),
            "no policy retries",
        ),
        (
            &[Opt::BucketCapacity, Opt::BucketRetryCost, Opt::BucketTimeoutCost, Opt::BucketRefund],
            has(OverloadPolicy::TokenBucket),
            "retry+token-bucket is not among the policies",
        ),
        (
            &[Opt::RatioPercent, Opt::RatioMinPerSec, Opt::RatioTtl],
            has(OverloadPolicy::Ratio),
            "retry+ratio is not among the policies",
        ),
        (
            &[Opt::ThrottleMaxTokens, Opt::ThrottleTokenRatio],
            has(OverloadPolicy::Throttle),
            "retry+throttle is not among the policies",
        ),
    ];
    let mut warnings = Vec::new();
    for (opts, applies, reason) in groups {
        if !applies {
            warnings.extend(
                opts.iter()
                    .filter(|&&opt| args.has(opt))
                    .map(|opt| format!("{} has no effect: {reason}", opt.flag())),
            );
        }
    }
    if config.trigger().is_none() && args.trigger_capacity.is_some() {
        warnings.push("--trigger-capacity has no effect: --trigger none".to_owned());
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;
    use clap::Parser;

    /// `stagger simulate`'s options alone, to parse them as the CLI does.
    #[derive(Debug, Parser)]
    struct Options {
        #[command(flatten)]
        args: SimulateArgs,
    }

    fn configured(options: &[&str]) -> anyhow::Result<(OverloadSetup, Vec<String>)> {
        let all = ["simulate", "--scenario", "overload"].iter().chain(options);
        configure(&Options::try_parse_from(all).expect("clap accepts").args)
    }

    fn usage_message(options: &[&str]) -> String {
        let err = configured(options).unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage, "{err:#}");
        format!("{err:#}")
    }

    #[test]
    fn the_published_defaults_agree_with_the_library() {
        assert_eq!(TokenBucketParams::AWS.builder(), TokenBucketBuilder::new());
        assert_eq!(RatioParams::FINAGLE.builder(), RatioBudgetBuilder::new());
    }

    #[test]
    fn defaults_are_the_issue_scenario() {
        let (setup, warnings) = configured(&[]).unwrap();
        assert_eq!(setup.config, OverloadConfig::default());
        assert_eq!((setup.token_bucket, setup.ratio_budget), (TokenBucketParams::AWS, RatioParams::FINAGLE));
        assert!(warnings.is_empty());
    }

    #[test]
    fn options_set_the_experiment() {
        let (setup, warnings) = configured(&[
            "--policies",
            "retry, retry+ratio",
            "--seed",
            "9",
            "--duration",
            "30s",
            "--arrival-rate",
            "800/s",
            "--capacity",
            "2000",
            "--timeout",
            "50ms",
            "--trigger",
            "5s..8s",
            "--trigger-capacity",
            "500/s",
            "--error-rate",
            "1%",
            "--attempts",
            "4",
            "--base",
            "50ms",
            "--cap",
            "2s",
            "--recovery-threshold",
            "90%",
            "--recovery-window",
            "3s",
            "--ratio-percent",
            "10%",
            "--ratio-min-per-sec",
            "5",
            "--ratio-ttl",
            "20s",
            "--bucket-capacity",
            "100",
        ])
        .unwrap();
        let c = &setup.config;
        assert_eq!(c.policies(), [OverloadPolicy::Retry, OverloadPolicy::Ratio]);
        assert_eq!(
            (c.seed(), c.duration(), c.arrival_rate(), c.service_rate()),
            (9, Duration::from_secs(30), 800.0, 2000.0)
        );
        assert_eq!(c.timeout(), Duration::from_millis(50));
        assert_eq!(c.trigger(), Some(Trigger::new(Duration::from_secs(5), Duration::from_secs(8), 0.25)));
        assert_eq!(c.error_rate(), 0.01);
        let b = c.backoff();
        assert_eq!(
            (b.max_attempts(), b.base(), b.max_delay()),
            (Some(4), Duration::from_millis(50), Duration::from_secs(2))
        );
        assert_eq!((c.recovery_threshold(), c.recovery_window()), (0.9, Duration::from_secs(3)));
        assert_eq!(
            setup.ratio_budget,
            RatioParams { retry_percent: 0.1, min_per_sec: 5, ttl: Duration::from_secs(20) }
        );
        assert_eq!(c.ratio_budget(), setup.ratio_budget.builder());
        assert_eq!(
            warnings,
            ["--bucket-capacity has no effect: retry+token-bucket is not among the policies"]
        );
        let (setup, warnings) = configured(&["--trigger", "none", "--trigger-capacity", "0.2x"]).unwrap();
        assert_eq!(setup.config.trigger(), None);
        assert_eq!(warnings, ["--trigger-capacity has no effect: --trigger none"]);
    }

    #[test]
    fn errors_name_the_option() {
        let cases: [(&[&str], &str); 14] = [
            (&["--policies", "nope"], "invalid value for --policies: unknown policy \"nope\""),
            (
                &["--policies", "retry,retry"],
                "invalid value for --policies: invalid policies: retry is given twice",
            ),
            (&["--duration", "0"], "invalid value for --duration: invalid duration 0ns"),
            (&["--duration", "12s"], "invalid value for --duration: the default trigger 10s..15s ends after"),
            (
                &["--trigger", "50s..70s"],
                "invalid value for --trigger: the trigger 50s..1m10s ends after the duration 1m",
            ),
            (&["--timeout", "0"], "invalid value for --timeout: invalid timeout"),
            (&["--base", "5"], "invalid value for --base: missing unit after 5"),
            (&["--base", "2s"], "invalid value for --base: base 2s is above the cap 1s; raise --cap as well"),
            (&["--cap", "10ms"], "invalid value for --cap: "),
            (&["--attempts", "0"], "invalid value for --attempts: "),
            (&["--ratio-ttl", "2m"], "invalid value for --ratio-ttl: invalid budget for retry+ratio: "),
            (&["--throttle-max-tokens", "0"], "invalid value for --throttle-max-tokens: "),
            (&["--recovery-window", "1.5s"], "invalid value for --recovery-window: "),
            (
                &["--attempts", "1000000", "--duration", "24h"],
                "invalid value for --attempts: 1000000 attempts x",
            ),
        ];
        for (options, expected) in cases {
            let message = usage_message(options);
            assert!(message.starts_with(expected), "{options:?}: {message}");
        }
        assert!(usage_message(&["--arrival-rate", "1e9"]).starts_with("invalid value for --arrival-rate: "));
        // Without retries the attempts cannot pile up.
        assert!(configured(&["--attempts", "1000000", "--duration", "24h", "--policies", "no-retry"]).is_ok());
    }
}
