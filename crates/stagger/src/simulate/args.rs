//! The raw options of `stagger simulate`, as clap parses them. Lists, names
//! and the shared `--base` and `--cap` stay text here: the scenario reads
//! them, because what a valid value is depends on the scenario
//! ([`SimulateConfig`](super::config::SimulateConfig) checks them all, and
//! refuses an option of one scenario given with the other).

use std::path::PathBuf;
use std::time::Duration;

use super::overload::options::{self, TriggerCapacity, TriggerWindow};
use crate::duration;
use crate::output::Format;

/// The most runs `--runs` may ask for per point.
pub const MAX_RUNS: u32 = 1_000_000;

/// The experiments `stagger simulate` can run. A new scenario is one variant
/// here, one in [`Experiment`](super::config::Experiment), and one module
/// beside `contention`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scenario {
    /// N clients race to update one row with optimistic concurrency (SPEC
    /// section 8, the AWS 2015 experiment).
    Contention,
    /// A server at 70% load loses half its capacity for 5 s while clients
    /// time out and retry, with no budget or with each budget (SPEC
    /// section 7).
    Overload,
}

impl Scenario {
    /// The name, as `--scenario` takes it.
    pub const fn name(self) -> &'static str {
        match self {
            Scenario::Contention => "contention",
            Scenario::Overload => "overload",
        }
    }
}

/// The options of `stagger simulate` (its help text is on
/// [`Command::Simulate`](crate::cli::Command::Simulate)).
#[derive(Debug, Clone, clap::Args)]
pub struct SimulateArgs {
    /// The experiment to run.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = Scenario::Contention)]
    pub scenario: Scenario,

    /// Seed of every run's generators: the same seed gives the same output on
    /// every machine [default: 2015].
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub seed: Option<u64>,

    /// The backoff base. contention: a positive number of time units, in the
    /// 2015 convention (the exponential family's first ceiling is 2 x base,
    /// decorrelated's sleep starts at base) [default: 5]. overload: a
    /// duration, the first retry's ceiling [default: 100ms].
    #[arg(long, value_name = "UNITS|DUR", allow_hyphen_values = true)]
    pub base: Option<String>,

    /// The backoff cap, at least --base. contention: a number of time units
    /// [default: 2000]. overload: a duration, the max_delay [default: 1s].
    #[arg(long, value_name = "UNITS|DUR", allow_hyphen_values = true)]
    pub cap: Option<String>,

    /// The output format.
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Also write a chart to FILE.svg. contention: calls and completion time
    /// against the client count, one line per strategy. overload: offered
    /// load, server arrivals and goodput per second, one panel per policy.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Client counts, one point each: `100`, `10,50,100`, or `FROM..TO/STEP`
    /// with both ends included (`10..190/10`); items combine with commas
    /// [default: 10..190/10].
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, help_heading = CONTENTION)]
    pub clients: Option<String>,

    /// Independent runs averaged into each point [default: 100].
    #[arg(long, value_name = "R", allow_negative_numbers = true, help_heading = CONTENTION,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_RUNS)))]
    pub runs: Option<u32>,

    /// Strategies to compare, comma-separated: `none` or a SPEC name
    /// (constant, exponential, full, equal, decorrelated, proportional,
    /// additive, smooth) [default: none,exponential,equal,full,decorrelated].
    #[arg(long, value_name = "LIST", value_delimiter = ',', allow_hyphen_values = true, help_heading = CONTENTION)]
    pub strategies: Option<Vec<String>>,

    /// Policies to compare, comma-separated: no-retry, retry,
    /// retry+token-bucket, retry+ratio, retry+throttle [default: all five].
    #[arg(long, value_name = "LIST", value_delimiter = ',', allow_hyphen_values = true, help_heading = OVERLOAD)]
    pub policies: Option<Vec<String>>,

    /// Simulated time during which operations start, 1s to 24h [default: 60s].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true, help_heading = OVERLOAD)]
    pub duration: Option<Duration>,

    /// Operations started per second (a Poisson stream), such as `700` or
    /// `700/s` [default: 700/s].
    #[arg(long, value_name = "R", value_parser = options::rate, allow_hyphen_values = true, help_heading = OVERLOAD)]
    pub arrival_rate: Option<f64>,

    /// The server's capacity in requests per second (one worker,
    /// exponential service times) [default: 1000/s].
    #[arg(long, value_name = "R", value_parser = options::rate, allow_hyphen_values = true, help_heading = OVERLOAD)]
    pub capacity: Option<f64>,

    /// The client's timeout on every attempt [default: 100ms].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true, help_heading = OVERLOAD)]
    pub timeout: Option<Duration>,

    /// When the server loses capacity, `START..END` since the run began
    /// (`10s..15s`), or `none` [default: 10s..15s].
    #[arg(long, value_name = "START..END|none", value_parser = options::trigger_window, allow_hyphen_values = true, help_heading = OVERLOAD)]
    pub trigger: Option<TriggerWindow>,

    /// The capacity during the trigger: a rate (`500`, `500/s`) or a share of
    /// --capacity (`0.5x`, `50%`) [default: 0.5x].
    #[arg(long, value_name = "R|Fx|P%", value_parser = options::trigger_capacity, allow_hyphen_values = true, help_heading = OVERLOAD)]
    pub trigger_capacity: Option<TriggerCapacity>,

    /// The probability that the server answers an attempt with an error, a
    /// transient failure that is retried: `0.01` or `1%` [default: 0].
    #[arg(long, value_name = "F|P%", value_parser = options::probability, allow_hyphen_values = true, help_heading = OVERLOAD)]
    pub error_rate: Option<f64>,

    /// max_attempts of the retrying policies, first attempt included
    /// [default: 3].
    #[arg(long, value_name = "N", allow_negative_numbers = true, help_heading = OVERLOAD)]
    pub attempts: Option<u32>,

    /// Goodput must reach this share of the offered load in every second of
    /// the recovery window: `0.95` or `95%` [default: 95%].
    #[arg(long, value_name = "F|P%", value_parser = options::probability, allow_hyphen_values = true, help_heading = OVERLOAD)]
    pub recovery_threshold: Option<f64>,

    /// How long goodput must hold the threshold, whole seconds [default: 5s].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true, help_heading = OVERLOAD)]
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
    #[arg(long, value_name = "F|P%", value_parser = options::share, allow_hyphen_values = true, help_heading = BUDGETS)]
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

/// The help heading of the contention options.
const CONTENTION: &str = "Contention options (--scenario contention)";
/// The help heading of the overload options.
const OVERLOAD: &str = "Overload options (--scenario overload)";
/// The help heading of the budgets' options.
const BUDGETS: &str = "Budget options (--scenario overload)";

/// An option of `stagger simulate` that an error message can blame. The
/// spellings are checked against the clap definition by a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    /// `--seed`
    Seed,
    /// `--base`
    Base,
    /// `--cap`
    Cap,
    /// `--plot`
    Plot,
    /// `--clients`
    Clients,
    /// `--runs`
    Runs,
    /// `--strategies`
    Strategies,
    /// `--policies`
    Policies,
    /// `--duration`
    Duration,
    /// `--arrival-rate`
    ArrivalRate,
    /// `--capacity`
    Capacity,
    /// `--timeout`
    Timeout,
    /// `--trigger`
    Trigger,
    /// `--trigger-capacity`
    TriggerCapacity,
    /// `--error-rate`
    ErrorRate,
    /// `--attempts`
    Attempts,
    /// `--recovery-threshold`
    RecoveryThreshold,
    /// `--recovery-window`
    RecoveryWindow,
    /// `--bucket-capacity`
    BucketCapacity,
    /// `--bucket-retry-cost`
    BucketRetryCost,
    /// `--bucket-timeout-cost`
    BucketTimeoutCost,
    /// `--bucket-refund`
    BucketRefund,
    /// `--ratio-percent`
    RatioPercent,
    /// `--ratio-min-per-sec`
    RatioMinPerSec,
    /// `--ratio-ttl`
    RatioTtl,
    /// `--throttle-max-tokens`
    ThrottleMaxTokens,
    /// `--throttle-token-ratio`
    ThrottleTokenRatio,
}

impl Opt {
    /// Every option, in the order of the help text.
    pub const ALL: [Opt; 27] = [
        Opt::Seed,
        Opt::Base,
        Opt::Cap,
        Opt::Plot,
        Opt::Clients,
        Opt::Runs,
        Opt::Strategies,
        Opt::Policies,
        Opt::Duration,
        Opt::ArrivalRate,
        Opt::Capacity,
        Opt::Timeout,
        Opt::Trigger,
        Opt::TriggerCapacity,
        Opt::ErrorRate,
        Opt::Attempts,
        Opt::RecoveryThreshold,
        Opt::RecoveryWindow,
        Opt::BucketCapacity,
        Opt::BucketRetryCost,
        Opt::BucketTimeoutCost,
        Opt::BucketRefund,
        Opt::RatioPercent,
        Opt::RatioMinPerSec,
        Opt::RatioTtl,
        Opt::ThrottleMaxTokens,
        Opt::ThrottleTokenRatio,
    ];

    /// The option as typed on the command line.
    pub const fn flag(self) -> &'static str {
        match self {
            Opt::Seed => "--seed",
            Opt::Base => "--base",
            Opt::Cap => "--cap",
            Opt::Plot => "--plot",
            Opt::Clients => "--clients",
            Opt::Runs => "--runs",
            Opt::Strategies => "--strategies",
            Opt::Policies => "--policies",
            Opt::Duration => "--duration",
            Opt::ArrivalRate => "--arrival-rate",
            Opt::Capacity => "--capacity",
            Opt::Timeout => "--timeout",
            Opt::Trigger => "--trigger",
            Opt::TriggerCapacity => "--trigger-capacity",
            Opt::ErrorRate => "--error-rate",
            Opt::Attempts => "--attempts",
            Opt::RecoveryThreshold => "--recovery-threshold",
            Opt::RecoveryWindow => "--recovery-window",
            Opt::BucketCapacity => "--bucket-capacity",
            Opt::BucketRetryCost => "--bucket-retry-cost",
            Opt::BucketTimeoutCost => "--bucket-timeout-cost",
            Opt::BucketRefund => "--bucket-refund",
            Opt::RatioPercent => "--ratio-percent",
            Opt::RatioMinPerSec => "--ratio-min-per-sec",
            Opt::RatioTtl => "--ratio-ttl",
            Opt::ThrottleMaxTokens => "--throttle-max-tokens",
            Opt::ThrottleTokenRatio => "--throttle-token-ratio",
        }
    }

    /// The one scenario the option belongs to, or `None` for an option every
    /// scenario reads (`--seed`, `--base`, `--cap`, `--plot`).
    pub const fn scenario(self) -> Option<Scenario> {
        match self {
            Opt::Seed | Opt::Base | Opt::Cap | Opt::Plot => None,
            Opt::Clients | Opt::Runs | Opt::Strategies => Some(Scenario::Contention),
            _ => Some(Scenario::Overload),
        }
    }
}

impl SimulateArgs {
    /// Whether `opt` was given on the command line.
    pub fn has(&self, opt: Opt) -> bool {
        match opt {
            Opt::Seed => self.seed.is_some(),
            Opt::Base => self.base.is_some(),
            Opt::Cap => self.cap.is_some(),
            Opt::Plot => self.plot.is_some(),
            Opt::Clients => self.clients.is_some(),
            Opt::Runs => self.runs.is_some(),
            Opt::Strategies => self.strategies.is_some(),
            Opt::Policies => self.policies.is_some(),
            Opt::Duration => self.duration.is_some(),
            Opt::ArrivalRate => self.arrival_rate.is_some(),
            Opt::Capacity => self.capacity.is_some(),
            Opt::Timeout => self.timeout.is_some(),
            Opt::Trigger => self.trigger.is_some(),
            Opt::TriggerCapacity => self.trigger_capacity.is_some(),
            Opt::ErrorRate => self.error_rate.is_some(),
            Opt::Attempts => self.attempts.is_some(),
            Opt::RecoveryThreshold => self.recovery_threshold.is_some(),
            Opt::RecoveryWindow => self.recovery_window.is_some(),
            Opt::BucketCapacity => self.bucket_capacity.is_some(),
            Opt::BucketRetryCost => self.bucket_retry_cost.is_some(),
            Opt::BucketTimeoutCost => self.bucket_timeout_cost.is_some(),
            Opt::BucketRefund => self.bucket_refund.is_some(),
            Opt::RatioPercent => self.ratio_percent.is_some(),
            Opt::RatioMinPerSec => self.ratio_min_per_sec.is_some(),
            Opt::RatioTtl => self.ratio_ttl.is_some(),
            Opt::ThrottleMaxTokens => self.throttle_max_tokens.is_some(),
            Opt::ThrottleTokenRatio => self.throttle_token_ratio.is_some(),
        }
    }

    /// The options given that belong to another scenario than the one chosen.
    pub fn foreign(&self) -> impl Iterator<Item = Opt> + '_ {
        Opt::ALL
            .into_iter()
            .filter(|&opt| self.has(opt) && opt.scenario().is_some_and(|scenario| scenario != self.scenario))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn every_opt_is_a_real_flag_and_every_flag_an_opt() {
        let cli = crate::cli::Cli::command();
        let simulate = cli.find_subcommand("simulate").expect("simulate subcommand");
        let longs: Vec<&str> = simulate.get_arguments().filter_map(|arg| arg.get_long()).collect();
        for opt in Opt::ALL {
            let long = opt.flag().trim_start_matches("--");
            assert!(longs.contains(&long), "{} is not an option of stagger simulate", opt.flag());
        }
        // Every option but --scenario, --format and --help can be blamed.
        let blamable = longs.iter().filter(|long| !["scenario", "format", "help"].contains(long));
        assert_eq!(blamable.count(), Opt::ALL.len(), "{longs:?}");
    }

    #[test]
    fn options_of_the_other_scenario_are_foreign() {
        #[derive(Debug, clap::Parser)]
        struct Options {
            #[command(flatten)]
            args: SimulateArgs,
        }
        let parse = |options: &[&str]| {
            <Options as clap::Parser>::try_parse_from(["simulate"].iter().chain(options)).unwrap().args
        };
        let args = parse(&["--clients", "10", "--seed", "1", "--arrival-rate", "5", "--bucket-refund", "2"]);
        assert_eq!(args.foreign().collect::<Vec<_>>(), [Opt::ArrivalRate, Opt::BucketRefund]);
        let args = parse(&["--scenario", "overload", "--runs", "3", "--base", "1s", "--plot", "a.svg"]);
        assert_eq!(args.foreign().collect::<Vec<_>>(), [Opt::Runs]);
        assert_eq!(parse(&[]).foreign().count(), 0);
    }
}
