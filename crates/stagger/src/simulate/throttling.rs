//! `--scenario throttling`: its flag, the flags it shares with the other
//! scenarios, and the simulator's configuration they set. What is not given
//! keeps the simulator's default; every error names the option that set
//! the parameter.

use anyhow::{anyhow, Context};
use staggered_sim::{ThrottlingConfig, ThrottlingError, ThrottlingPolicy, MAX_THROTTLING_CLIENTS};

use super::overload::{backoff, values::rate};
use super::{given, SimulateArgs};
use crate::exit::UsageError;

/// The help heading of the scenario's flag.
const HEADING: &str = "Throttling options (--scenario throttling)";

/// The flags of other scenarios' groups that this scenario reads too:
/// contention's `--clients` (here one count), and overload's load and
/// policy flags (`--seed`, `--base`, `--cap` and the formats are every
/// scenario's).
pub const SHARED: [&str; 5] = ["--clients", "--policies", "--duration", "--arrival-rate", "--attempts"];

/// The throttling scenario's own flag. It also reads `--clients`,
/// `--policies`, `--duration`, `--arrival-rate` and `--attempts`.
#[derive(Debug, Clone, Default, clap::Args)]
#[group(id = "throttling-options")]
pub struct Flags {
    /// The requests per second the server admits (a token bucket holding one
    /// second of them; the excess is throttled at once), such as `500` or
    /// `500/s` [default: 500/s]. The scenario also takes --clients,
    /// --arrival-rate, --duration, --policies and --attempts.
    #[arg(long, value_name = "R", value_parser = rate, allow_hyphen_values = true, help_heading = HEADING)]
    pub rate_limit: Option<f64>,
}

impl Flags {
    /// The flags given, as typed.
    pub fn given(&self) -> Vec<String> {
        given!(self; rate_limit)
    }
}

/// The experiment the options ask for, and notes on the options that were
/// accepted but change nothing.
///
/// # Errors
/// A [`UsageError`] naming the option at fault.
pub fn configure(args: &SimulateArgs) -> anyhow::Result<(ThrottlingConfig, Vec<String>)> {
    let load = &args.overload;
    let defaults = ThrottlingConfig::default();
    let mut builder = defaults.to_builder().with_backoff(backoff(args, defaults.backoff())?);
    if let Some(names) = &load.policies {
        let policies = names.iter().map(|name| name.trim().parse::<ThrottlingPolicy>());
        builder = builder.with_policies(
            policies.collect::<Result<Vec<_>, _>>().context(UsageError::option("--policies"))?,
        );
    }
    if let Some(clients) = &args.contention.clients {
        builder = builder.with_clients(client_count(clients).context(UsageError::option("--clients"))?);
    }
    builder = builder
        .with_seed(args.seed.unwrap_or(defaults.seed()))
        .with_duration(load.duration.unwrap_or(defaults.duration()))
        .with_arrival_rate(load.arrival_rate.unwrap_or(defaults.arrival_rate()))
        .with_rate_limit(args.throttling.rate_limit.unwrap_or(defaults.rate_limit()));
    let config = builder.build().map_err(|err| blame(err, args))?;
    let retries = config.policies().iter().any(|&p| p != ThrottlingPolicy::NoRetry);
    let warnings = if retries {
        Vec::new()
    } else {
        let flags = given!(args; base, cap).into_iter().chain(given!(load; attempts));
        flags.map(|flag| format!("{flag} has no effect: no policy retries")).collect()
    };
    Ok((config, warnings))
}

/// `--clients` as this scenario reads it: one whole number. Anything else
/// is answered with this scenario's range, not the one of a count in
/// general (up to `u32::MAX`), which would be wrong here.
fn client_count(text: &str) -> anyhow::Result<u32> {
    crate::numbers::count(text).map_err(|_| {
        anyhow!(
            "must be one whole number from 1 to {MAX_THROTTLING_CLIENTS}, such as 20: \
             the throttling scenario takes one client count"
        )
    })
}

/// The simulator's error, blamed on the option that set the parameter.
fn blame(err: ThrottlingError, args: &SimulateArgs) -> anyhow::Error {
    let load = &args.overload;
    let flag = match (&err, err.parameter()) {
        (ThrottlingError::TooManyOperations(_), _) => {
            match (load.duration.is_some(), load.arrival_rate.is_some()) {
                (true, false) => "--duration",
                (false, true) => "--arrival-rate",
                _ => return anyhow::Error::new(err).context(UsageError::options()),
            }
        }
        (_, "backoff") => "--attempts",
        (_, "clients") => "--clients",
        (_, "duration") => "--duration",
        (_, "arrival-rate") => "--arrival-rate",
        (_, "rate-limit") => "--rate-limit",
        (_, "policies") => "--policies",
        _ => return anyhow::Error::new(err).context(UsageError::options()),
    };
    anyhow::Error::new(err).context(UsageError::option(flag))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::tests::{flags_of, parse};
    use super::*;
    use crate::exit::Exit;

    fn configured(options: &[&str]) -> anyhow::Result<(ThrottlingConfig, Vec<String>)> {
        configure(&parse(&[&["--scenario", "throttling"], options].concat()))
    }

    fn usage_message(options: &[&str]) -> String {
        let err = configured(options).unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage, "{err:#}");
        format!("{err:#}")
    }

    #[test]
    fn every_flag_is_given_by_its_name() {
        assert_eq!(parse(&["--rate-limit=5"]).throttling.given(), flags_of::<Flags>());
    }

    #[test]
    fn defaults_are_the_simulator_s_and_options_set_the_experiment() {
        let (config, warnings) = configured(&[]).unwrap();
        assert_eq!((config, warnings), (ThrottlingConfig::default(), Vec::<String>::new()));
        let (c, warnings) = configured(&[
            "--clients",
            "5",
            "--arrival-rate",
            "200/s",
            "--rate-limit",
            "100",
            "--duration",
            "30s",
            "--policies",
            "retry, adaptive",
            "--seed",
            "9",
            "--attempts",
            "4",
            "--base",
            "50ms",
            "--cap",
            "2s",
        ])
        .unwrap();
        assert_eq!((c.clients(), c.arrival_rate(), c.rate_limit()), (5, 200.0, 100.0));
        assert_eq!((c.duration(), c.seed()), (Duration::from_secs(30), 9));
        assert_eq!(c.policies(), [ThrottlingPolicy::Retry, ThrottlingPolicy::Adaptive]);
        let b = c.backoff();
        assert_eq!(
            (b.max_attempts(), b.base(), b.max_delay()),
            (Some(4), Duration::from_millis(50), Duration::from_secs(2))
        );
        assert!(warnings.is_empty());
        let (_, warnings) =
            configured(&["--policies", "no-retry", "--attempts", "2", "--cap", "3s"]).unwrap();
        assert_eq!(
            warnings,
            ["--cap has no effect: no policy retries", "--attempts has no effect: no policy retries"]
        );
    }

    #[test]
    fn errors_name_the_option() {
        let cases: [(&[&str], &str); 9] = [
            (&["--policies", "retry+ratio"], "invalid value for --policies: unknown policy \"retry+ratio\""),
            (
                &["--policies", "adaptive,adaptive"],
                "invalid value for --policies: invalid policies: adaptive",
            ),
            (&["--clients", "10..20/5"], "invalid value for --clients: must be one whole number"),
            (&["--clients", "0"], "invalid value for --clients: invalid clients 0: must be from 1 to 100000"),
            (&["--duration", "0s"], "invalid value for --duration: invalid duration 0s"),
            (&["--attempts", "0"], "invalid value for --attempts: "),
            (&["--base", "2s"], "invalid value for --base: base is above the cap 1s; raise --cap as well"),
            (
                &["--arrival-rate", "1e9"],
                "invalid value for --arrival-rate: invalid arrival-rate and duration",
            ),
            (
                &["--arrival-rate", "1e9", "--duration", "1h"],
                "invalid options: invalid arrival-rate and duration",
            ),
        ];
        for (options, expected) in cases {
            let message = usage_message(options);
            assert!(message.starts_with(expected), "{options:?}: {message}");
        }
    }

    #[test]
    fn a_client_count_that_does_not_parse_is_given_this_scenario_s_range() {
        for text in ["1,2", "x", "99999999999", "-3"] {
            let message = usage_message(&["--clients", text]);
            assert_eq!(
                message,
                "invalid value for --clients: must be one whole number from 1 to 100000, such as 20: \
                 the throttling scenario takes one client count",
                "{text}"
            );
        }
    }
}
