//! `--scenario overload`: its flags and the simulator's configuration they
//! set.
//! What is not given keeps the simulator's default; every error names the
//! option that set the parameter.

use std::time::Duration;

use anyhow::Context;
use staggered::{Backoff, ConfigError, Field};
use staggered_sim::{OverloadConfig, OverloadError, OverloadPolicy, Trigger};

pub(super) mod values;

pub use values::share;
use values::{probability, rate, trigger_capacity, trigger_window, TriggerCapacity, TriggerWindow};

use super::{given, SimulateArgs};
use crate::duration;
use crate::exit::UsageError;

/// The help heading of the scenario's flags.
const HEADING: &str = "Overload options (--scenario overload)";
/// The help heading of the budgets' flags.
const BUDGETS: &str = "Budget options (--scenario overload)";

/// The overload scenario's own flags (`--seed`, `--base` and `--cap` are
/// shared, on [`SimulateArgs`]).
#[derive(Debug, Clone, Default, clap::Args)]
#[group(id = "overload-options")]
pub struct Flags {
    /// Policies to compare, comma-separated. overload: no-retry, retry,
    /// retry+token-bucket, retry+ratio, retry+throttle [default: all five].
    /// throttling: no-retry, retry, retry+token-bucket, adaptive [default:
    /// all four].
    #[arg(long, value_name = "LIST", value_delimiter = ',', allow_hyphen_values = true, help_heading = HEADING)]
    pub policies: Option<Vec<String>>,

    /// Simulated time during which operations start, 1s to 24h (overload
    /// and throttling) [default: 60s].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true, help_heading = HEADING)]
    pub duration: Option<Duration>,

    /// Operations started per second (a Poisson stream), such as `700` or
    /// `700/s`. overload [default: 700/s]; throttling: all clients together,
    /// split evenly [default: 1000/s].
    #[arg(long, value_name = "R", value_parser = rate, allow_hyphen_values = true, help_heading = HEADING)]
    pub arrival_rate: Option<f64>,

    /// The server's capacity in requests per second (one worker,
    /// exponential service times) [default: 1000/s].
    #[arg(long, value_name = "R", value_parser = rate, allow_hyphen_values = true, help_heading = HEADING)]
    pub capacity: Option<f64>,

    /// The client's timeout on every attempt [default: 100ms].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true, help_heading = HEADING)]
    pub timeout: Option<Duration>,

    /// When the server loses capacity, `START..END` since the run began
    /// (`10s..15s`), or `none` [default: 10s..15s].
    #[arg(long, value_name = "START..END|none", value_parser = trigger_window, allow_hyphen_values = true, help_heading = HEADING)]
    pub trigger: Option<TriggerWindow>,

    /// The capacity during the trigger: a rate (`500`, `500/s`) or a share of
    /// --capacity (`0.5x`, `50%`) [default: 0.5x].
    #[arg(long, value_name = "R|Fx|P%", value_parser = trigger_capacity, allow_hyphen_values = true, help_heading = HEADING)]
    pub trigger_capacity: Option<TriggerCapacity>,

    /// The probability that the server answers an attempt with an error, a
    /// transient failure that is retried: `0.01` or `1%` [default: 0].
    #[arg(long, value_name = "F|P%", value_parser = probability, allow_hyphen_values = true, help_heading = HEADING)]
    pub error_rate: Option<f64>,

    /// max_attempts of the retrying policies, first attempt included
    /// (overload and throttling) [default: 3].
    #[arg(long, value_name = "N", value_parser = crate::numbers::count, allow_negative_numbers = true, help_heading = HEADING)]
    pub attempts: Option<u32>,

    /// Goodput must reach this share of the offered load in every second of
    /// the recovery window: `0.95` or `95%` [default: 95%].
    #[arg(long, value_name = "F|P%", value_parser = probability, allow_hyphen_values = true, help_heading = HEADING)]
    pub recovery_threshold: Option<f64>,

    /// How long goodput must hold the threshold, whole seconds [default: 5s].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true, help_heading = HEADING)]
    pub recovery_window: Option<Duration>,

    /// retry+token-bucket: the bucket's tokens, full at the start [default: 500].
    #[arg(long, value_name = "N", allow_negative_numbers = true, help_heading = BUDGETS)]
    pub bucket_capacity: Option<u32>,

    /// retry+token-bucket: the cost of a retry after an error [default: 5].
    #[arg(long, value_name = "N", allow_negative_numbers = true, help_heading = BUDGETS)]
    pub bucket_retry_cost: Option<u32>,

    /// retry+token-bucket: the cost of a retry after a timeout [default: 10].
    #[arg(long, value_name = "N", allow_negative_numbers = true, help_heading = BUDGETS)]
    pub bucket_timeout_cost: Option<u32>,

    /// retry+token-bucket: the tokens a first-try success puts back [default: 1].
    #[arg(long, value_name = "N", allow_negative_numbers = true, help_heading = BUDGETS)]
    pub bucket_refund: Option<u32>,

    /// retry+ratio: retries allowed per recent request, `0.2` or `20%`, up
    /// to 1000 (100000%) [default: 20%].
    #[arg(long, value_name = "F|P%", value_parser = share, allow_hyphen_values = true, help_heading = BUDGETS)]
    pub ratio_percent: Option<f64>,

    /// retry+ratio: retries allowed per second with no traffic [default: 10].
    #[arg(long, value_name = "N", allow_negative_numbers = true, help_heading = BUDGETS)]
    pub ratio_min_per_sec: Option<u32>,

    /// retry+ratio: how long requests and retries count, 1s to 60s [default: 10s].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true, help_heading = BUDGETS)]
    pub ratio_ttl: Option<Duration>,

    /// retry+throttle: max_tokens, 1 to 1000; no retry at or below half
    /// [default: 10].
    #[arg(long, value_name = "N", allow_negative_numbers = true, help_heading = BUDGETS)]
    pub throttle_max_tokens: Option<u32>,

    /// retry+throttle: token_ratio, the tokens a success puts back, 0.001 to
    /// max_tokens [default: 0.1].
    #[arg(long, value_name = "F", allow_negative_numbers = true, help_heading = BUDGETS)]
    pub throttle_token_ratio: Option<f64>,
}

impl Flags {
    /// The flags given, as typed.
    pub fn given(&self) -> Vec<String> {
        given!(self; policies, duration, arrival_rate, capacity, timeout, trigger, trigger_capacity, error_rate,
            attempts, recovery_threshold, recovery_window, bucket_capacity, bucket_retry_cost, bucket_timeout_cost,
            bucket_refund, ratio_percent, ratio_min_per_sec, ratio_ttl, throttle_max_tokens, throttle_token_ratio)
    }
}

/// The experiment the options ask for, and notes on the options that were
/// accepted but change nothing (a budget's option without its policy).
///
/// # Errors
/// A [`UsageError`] naming the option at fault.
pub fn configure(args: &SimulateArgs) -> anyhow::Result<(OverloadConfig, Vec<String>)> {
    let f = &args.overload;
    let defaults = OverloadConfig::default();
    let mut builder = defaults.to_builder().with_backoff(backoff(args, defaults.backoff())?);
    if let Some(names) = &f.policies {
        let policies = names.iter().map(|name| name.trim().parse::<OverloadPolicy>());
        builder = builder.with_policies(
            policies.collect::<Result<Vec<_>, _>>().context(UsageError::option("--policies"))?,
        );
    }
    let capacity = f.capacity.unwrap_or(defaults.service_rate());
    builder = builder.with_service_rate(capacity);
    let default_trigger = defaults.trigger().unwrap_or_default();
    builder =
        match f.trigger.unwrap_or(TriggerWindow::Between(default_trigger.start(), default_trigger.end())) {
            TriggerWindow::None => builder.without_trigger(),
            TriggerWindow::Between(start, end) => {
                let share = f.trigger_capacity.map_or(default_trigger.capacity(), |c| c.share_of(capacity));
                builder.with_trigger(Trigger::new(start, end, share))
            }
        };
    let bucket = defaults.token_bucket();
    let ratio = defaults.ratio_budget();
    let (max_tokens, token_ratio) = defaults.retry_throttle();
    builder = builder
        .with_seed(args.seed.unwrap_or(defaults.seed()))
        .with_duration(f.duration.unwrap_or(defaults.duration()))
        .with_arrival_rate(f.arrival_rate.unwrap_or(defaults.arrival_rate()))
        .with_timeout(f.timeout.unwrap_or(defaults.timeout()))
        .with_error_rate(f.error_rate.unwrap_or(defaults.error_rate()))
        .with_token_bucket(
            bucket
                .with_capacity(f.bucket_capacity.unwrap_or(bucket.capacity()))
                .with_retry_cost(f.bucket_retry_cost.unwrap_or(bucket.retry_cost()))
                .with_timeout_cost(f.bucket_timeout_cost.unwrap_or(bucket.timeout_cost()))
                .with_success_refund(f.bucket_refund.unwrap_or(bucket.success_refund())),
        )
        .with_ratio_budget(
            ratio
                .with_retry_percent(f.ratio_percent.unwrap_or(ratio.retry_percent()))
                .with_min_per_sec(f.ratio_min_per_sec.unwrap_or(ratio.min_per_sec()))
                .with_ttl(f.ratio_ttl.unwrap_or(ratio.ttl())),
        )
        .with_retry_throttle(
            f.throttle_max_tokens.unwrap_or(max_tokens),
            f.throttle_token_ratio.unwrap_or(token_ratio),
        )
        .with_recovery(
            f.recovery_threshold.unwrap_or(defaults.recovery_threshold()),
            f.recovery_window.unwrap_or(defaults.recovery_window()),
        );
    let config = builder.build().map_err(|err| blame(err, args))?;
    let warnings = warnings(args, &config);
    Ok((config, warnings))
}

/// The default schedule with `--base`, `--cap` and `--attempts` applied
/// (the throttling scenario's too).
pub(super) fn backoff(args: &SimulateArgs, default: &Backoff) -> anyhow::Result<Backoff> {
    let parse = |text: &Option<String>, flag: &'static str| {
        text.as_deref().map(|text| duration::parse(text.trim()).context(UsageError::option(flag))).transpose()
    };
    let (base, cap) = (parse(&args.base, "--base")?, parse(&args.cap, "--cap")?);
    let mut builder = default.to_builder();
    if let Some(base) = base {
        builder = builder.with_base(base);
    }
    if let Some(cap) = cap {
        builder = builder.with_max_delay(cap);
    }
    if let Some(attempts) = args.overload.attempts {
        builder = builder.with_max_attempts(attempts);
    }
    builder.build().map_err(|err: ConfigError| {
        let flag = match err.field() {
            // A --base above the default cap: the user never typed --cap.
            Field::MaxDelay if cap.is_none() => {
                let hint = format!(
                    "base is above the cap {}; raise --cap as well",
                    duration::format(default.max_delay())
                );
                return anyhow::Error::new(err).context(hint).context(UsageError::option("--base"));
            }
            Field::Base => "--base",
            Field::MaxDelay => "--cap",
            Field::MaxAttempts => "--attempts",
            _ => return anyhow::Error::new(err).context(UsageError::options()),
        };
        anyhow::Error::new(err).context(UsageError::option(flag))
    })
}

/// The simulator's error, blamed on the option that set the parameter.
fn blame(err: OverloadError, args: &SimulateArgs) -> anyhow::Error {
    let f = &args.overload;
    let flag = match (&err, err.parameter()) {
        // The default trigger does not fit a short --duration.
        (OverloadError::TriggerWindow { .. }, _) if f.trigger.is_none() => "--duration".to_owned(),
        (OverloadError::TooManyOperations(_), _) => match (f.duration.is_some(), f.arrival_rate.is_some()) {
            (true, false) => "--duration".to_owned(),
            (false, true) => "--arrival-rate".to_owned(),
            _ => return anyhow::Error::new(err).context(UsageError::options()),
        },
        (_, "service-rate") => "--capacity".to_owned(),
        (_, "backoff") => "--attempts".to_owned(),
        (_, parameter) if parameter.starts_with("retry") => {
            return anyhow::Error::new(err).context(UsageError::options());
        }
        (_, parameter) => format!("--{parameter}"),
    };
    anyhow::Error::new(err).context(UsageError::option(flag))
}

/// Options that were accepted but change nothing here, explained.
fn warnings(args: &SimulateArgs, config: &OverloadConfig) -> Vec<String> {
    let has = |policy| config.policies().contains(&policy);
    let retries = config.policies().iter().any(|&p| p != OverloadPolicy::NoRetry);
    let f = &args.overload;
    let groups = [
        (
            given!(args; base, cap).into_iter().chain(given!(f; attempts)).collect::<Vec<_>>(),
            retries,
            "no policy retries",
        ),
        (
            given!(f; bucket_capacity, bucket_retry_cost, bucket_timeout_cost, bucket_refund),
            has(OverloadPolicy::TokenBucket),
            "retry+token-bucket is not among the policies",
        ),
        (
            given!(f; ratio_percent, ratio_min_per_sec, ratio_ttl),
            has(OverloadPolicy::Ratio),
            "retry+ratio is not among the policies",
        ),
        (
            given!(f; throttle_max_tokens, throttle_token_ratio),
            has(OverloadPolicy::Throttle),
            "retry+throttle is not among the policies",
        ),
        (given!(f; trigger_capacity), config.trigger().is_some(), "--trigger none"),
    ];
    let mut warnings = Vec::new();
    for (flags, applies, reason) in groups {
        if !applies {
            warnings.extend(flags.iter().map(|flag: &String| format!("{flag} has no effect: {reason}")));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::super::tests::{flags_of, parse};
    use super::*;
    use crate::exit::Exit;

    fn configured(options: &[&str]) -> anyhow::Result<(OverloadConfig, Vec<String>)> {
        configure(&parse(&[&["--scenario", "overload"], options].concat()))
    }

    fn usage_message(options: &[&str]) -> String {
        let err = configured(options).unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage, "{err:#}");
        format!("{err:#}")
    }

    #[test]
    fn every_flag_is_given_by_its_name() {
        let all = [
            "--policies=retry",
            "--duration=30s",
            "--arrival-rate=8",
            "--capacity=9",
            "--timeout=1s",
            "--trigger=none",
            "--trigger-capacity=1x",
            "--error-rate=0",
            "--attempts=2",
            "--recovery-threshold=1",
            "--recovery-window=1s",
            "--bucket-capacity=1",
            "--bucket-retry-cost=1",
            "--bucket-timeout-cost=1",
            "--bucket-refund=1",
            "--ratio-percent=1",
            "--ratio-min-per-sec=1",
            "--ratio-ttl=1s",
            "--throttle-max-tokens=1",
            "--throttle-token-ratio=1",
        ];
        assert_eq!(parse(&all).overload.given(), flags_of::<Flags>());
    }

    #[test]
    fn defaults_are_the_simulator_s_and_options_set_the_experiment() {
        let (config, warnings) = configured(&[]).unwrap();
        assert_eq!((config, warnings), (OverloadConfig::default(), Vec::<String>::new()));
        let (c, warnings) = configured(&[
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
        assert_eq!(c.policies(), [OverloadPolicy::Retry, OverloadPolicy::Ratio]);
        assert_eq!(
            (c.seed(), c.duration(), c.arrival_rate(), c.service_rate()),
            (9, Duration::from_secs(30), 800.0, 2000.0)
        );
        assert_eq!(c.trigger(), Some(Trigger::new(Duration::from_secs(5), Duration::from_secs(8), 0.25)));
        assert_eq!((c.timeout(), c.error_rate()), (Duration::from_millis(50), 0.01));
        let b = c.backoff();
        assert_eq!(
            (b.max_attempts(), b.base(), b.max_delay()),
            (Some(4), Duration::from_millis(50), Duration::from_secs(2))
        );
        assert_eq!((c.recovery_threshold(), c.recovery_window()), (0.9, Duration::from_secs(3)));
        let r = c.ratio_budget();
        assert_eq!((r.retry_percent(), r.min_per_sec(), r.ttl()), (0.1, 5, Duration::from_secs(20)));
        assert_eq!(c.token_bucket().capacity(), 100);
        assert_eq!(
            warnings,
            ["--bucket-capacity has no effect: retry+token-bucket is not among the policies"]
        );
        let (c, warnings) = configured(&["--trigger", "none", "--trigger-capacity", "0.2x"]).unwrap();
        assert_eq!(c.trigger(), None);
        assert_eq!(warnings, ["--trigger-capacity has no effect: --trigger none"]);
    }

    #[test]
    fn errors_name_the_option() {
        let cases: [(&[&str], &str); 15] = [
            (&["--policies", "nope"], "invalid value for --policies: unknown policy \"nope\""),
            (
                &["--policies", "retry,retry"],
                "invalid value for --policies: invalid policies: retry is given twice",
            ),
            (&["--duration", "0"], "invalid value for --duration: invalid duration 0s"),
            (
                &["--duration", "12s"],
                "invalid value for --duration: invalid trigger 10s..15s: ends after the run's duration, 12s",
            ),
            (&["--trigger", "50s..70s"], "invalid value for --trigger: invalid trigger 50s..1m10s"),
            (&["--timeout", "0"], "invalid value for --timeout: invalid timeout"),
            (
                &["--arrival-rate", "1e9", "--duration", "60s"],
                "invalid options: invalid arrival-rate and duration",
            ),
            (&["--base", "5"], "invalid value for --base: missing unit after 5"),
            (&["--base", "2s"], "invalid value for --base: base is above the cap 1s; raise --cap as well"),
            (&["--cap", "10ms"], "invalid value for --cap: "),
            (&["--attempts", "0"], "invalid value for --attempts: "),
            (
                &["--ratio-ttl", "2m"],
                "invalid value for --ratio-ttl: invalid budget for retry+ratio: invalid ttl",
            ),
            (&["--throttle-max-tokens", "0"], "invalid value for --throttle-max-tokens: "),
            (&["--recovery-window", "1.5s"], "invalid value for --recovery-window: "),
            (
                &["--attempts", "1000000", "--duration", "24h"],
                "invalid value for --attempts: invalid backoff: ",
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
