//! `--scenario contention`: its flags, and the simulator's configuration
//! they set. What is not given keeps the published value; every error names
//! the option that set the parameter.

use std::fmt;

use anyhow::{anyhow, Context};
use staggered_sim::{ContentionConfig, ContentionError, ContentionStrategy, MAX_CLIENTS};

use super::{given, SimulateArgs};
use crate::exit::UsageError;

/// The help heading of these flags.
const HEADING: &str = "Contention options (--scenario contention)";

/// The contention scenario's own flags (`--seed`, `--base` and `--cap` are
/// shared, on [`SimulateArgs`]).
#[derive(Debug, Clone, Default, clap::Args)]
#[group(id = "contention-options")]
pub struct Flags {
    /// Client counts, one point each: `100`, `10,50,100`, or `FROM..TO/STEP`
    /// with both ends included (`10..190/10`); items combine with commas
    /// [default: 10..190/10]. throttling: the number of clients, one count
    /// [default: 20].
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, help_heading = HEADING)]
    pub clients: Option<String>,

    /// Independent runs averaged into each point [default: 100].
    #[arg(long, value_name = "R", value_parser = crate::numbers::count, allow_negative_numbers = true, help_heading = HEADING)]
    pub runs: Option<u32>,

    /// Strategies to compare, comma-separated: `none` or a strategy of the
    /// library (constant, exponential, full, equal, decorrelated,
    /// proportional, additive, smooth) [default:
    /// none,exponential,equal,full,decorrelated].
    #[arg(long, value_name = "LIST", value_delimiter = ',', allow_hyphen_values = true, help_heading = HEADING)]
    pub strategies: Option<Vec<String>>,
}

impl Flags {
    /// The flags given, as typed.
    pub fn given(&self) -> Vec<String> {
        given!(self; clients, runs, strategies)
    }
}

/// The experiment the options ask for.
///
/// # Errors
/// A [`UsageError`] naming the option at fault.
pub fn configure(args: &SimulateArgs) -> anyhow::Result<(ContentionConfig, Vec<String>)> {
    let flags = &args.contention;
    let mut builder = ContentionConfig::builder();
    if let Some(list) = &flags.clients {
        builder = builder.with_clients(parse_clients(list).context(UsageError::option("--clients"))?);
    }
    if let Some(runs) = flags.runs {
        builder = builder.with_runs(runs);
    }
    if let Some(names) = &flags.strategies {
        let strategies = names.iter().map(|name| name.trim().parse::<ContentionStrategy>());
        let strategies =
            strategies.collect::<Result<Vec<_>, _>>().context(UsageError::option("--strategies"))?;
        builder = builder.with_strategies(strategies);
    }
    if let Some(seed) = args.seed {
        builder = builder.with_seed(seed);
    }
    if let Some(base) = &args.base {
        builder = builder.with_base(time_units(base).context(UsageError::option("--base"))?);
    }
    if let Some(cap) = &args.cap {
        builder = builder.with_cap(time_units(cap).context(UsageError::option("--cap"))?);
    }
    let config = builder.build().map_err(|err| blame(err, args))?;
    Ok((config, Vec::new()))
}

/// The simulator's error, blamed on the option that set the parameter: a
/// cap below the first delay on `--base` when only it was given.
fn blame(err: ContentionError, args: &SimulateArgs) -> anyhow::Error {
    let flag = match err.parameter() {
        "cap" if args.cap.is_none() && args.base.is_some() => "--base".to_owned(),
        "hop-mean" | "hop-sd" => return anyhow::Error::new(err).context(UsageError::options()),
        parameter => format!("--{parameter}"),
    };
    anyhow::Error::new(err).context(UsageError::option(flag))
}

/// The most client counts one `--clients` list may hold: enough for every
/// count from 1 to 1000, few enough for a table and a chart.
pub const MAX_POINTS: usize = 1000;

/// The most time units `--base` or `--cap` may be: about 30 years of
/// simulated time at one millisecond per unit, far past any schedule's use,
/// and far from the edge of `Duration`.
pub const MAX_TIME_UNITS: f64 = 1e12;

/// A positive number of time units, at most [`MAX_TIME_UNITS`].
///
/// # Errors
/// For text that is not a number (such as a duration, `5ms`: contention's
/// times are unitless), zero, a negative number, NaN, infinity or a number
/// above the limit.
pub fn time_units(text: &str) -> anyhow::Result<f64> {
    let Ok(value) = text.trim().parse::<f64>() else {
        return Err(anyhow!(
            "{text:?} is not a number: contention counts the model's time units, such as 5, not durations"
        ));
    };
    if value > 0.0 && value <= MAX_TIME_UNITS {
        Ok(value)
    } else {
        let value = staggered_sim::view::number(value);
        Err(anyhow!("{value} is not a positive number of time units up to {MAX_TIME_UNITS:e}"))
    }
}

/// Why a client list did not parse. The caller names the option, so the
/// messages say only what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListError {
    /// Nothing was given, or an item between commas is empty.
    Empty,
    /// An item is not `N` or `FROM..TO/STEP`.
    Malformed(String),
    /// A count is 0 or above [`MAX_CLIENTS`] (the text, which may not fit
    /// any integer).
    OutOfRange(String),
    /// A range counts down.
    Descending(String),
    /// A range's step is 0.
    ZeroStep(String),
    /// The list holds more than [`MAX_POINTS`] counts.
    TooMany(u64),
}

impl fmt::Display for ListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const EXPECTED: &str = "expected counts and ranges such as 100, 10,50,100 or 10..190/10";
        match self {
            ListError::Empty => write!(f, "empty list item: {EXPECTED}"),
            ListError::Malformed(item) => write!(f, "{item:?} is not a count or a range: {EXPECTED}"),
            ListError::OutOfRange(n) => write!(f, "client count {n} is not between 1 and {MAX_CLIENTS}"),
            ListError::Descending(item) => write!(f, "range {item} counts down: FROM must not exceed TO"),
            ListError::ZeroStep(item) => write!(f, "range {item} has step 0: the step must be at least 1"),
            ListError::TooMany(n) => write!(f, "{n} client counts are more than the limit of {MAX_POINTS}"),
        }
    }
}

impl std::error::Error for ListError {}

/// Parses a client list: comma-separated items, each a count `N` or a range
/// `FROM..TO/STEP` (`/STEP` may be left out for 1) that runs from FROM up to
/// TO, both included, so `10..190/10` is 10, 20, ..., 190. The order is
/// kept; repeats are left for the simulator to refuse.
///
/// # Errors
/// A [`ListError`] for an empty, malformed, out-of-range, descending,
/// zero-step or too long list. It never panics.
pub fn parse_clients(text: &str) -> Result<Vec<u32>, ListError> {
    let mut clients = Vec::new();
    for item in text.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(ListError::Empty);
        }
        let (from, to, step) = match item.split_once("..") {
            None => {
                let n = count(item, item)?;
                (n, n, 1)
            }
            Some((from, rest)) => {
                let (to, step) = rest.split_once('/').unwrap_or((rest, "1"));
                let step = number(step, item)?;
                (count(from, item)?, count(to, item)?, step)
            }
        };
        if from > to {
            return Err(ListError::Descending(item.to_owned()));
        }
        if step == 0 {
            return Err(ListError::ZeroStep(item.to_owned()));
        }
        let total = clients.len() as u64 + u64::from(to - from) / step + 1;
        if total > MAX_POINTS as u64 {
            return Err(ListError::TooMany(total));
        }
        // `step` may exceed u32, and then `from` is the only count.
        clients.extend((from..=to).step_by(usize::try_from(step).unwrap_or(usize::MAX)));
    }
    Ok(clients)
}

/// A client count of `item`: 1 to [`MAX_CLIENTS`].
fn count(text: &str, item: &str) -> Result<u32, ListError> {
    match u32::try_from(number(text, item)?) {
        Ok(n) if (1..=MAX_CLIENTS).contains(&n) => Ok(n),
        _ => Err(ListError::OutOfRange(text.trim().to_owned())),
    }
}

/// Decimal digits alone (no sign, no exponent), as a `u64`; too many digits
/// for a `u64` is out of range rather than malformed.
fn number(text: &str, item: &str) -> Result<u64, ListError> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ListError::Malformed(item.to_owned()));
    }
    text.parse().map_err(|_| ListError::OutOfRange(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{flags_of, parse};
    use super::*;
    use crate::exit::Exit;

    fn config(options: &[&str]) -> anyhow::Result<ContentionConfig> {
        configure(&parse(options)).map(|(config, _)| config)
    }

    fn usage_message(options: &[&str]) -> String {
        let err = config(options).unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage, "{err:#}");
        format!("{err:#}")
    }

    #[test]
    fn every_flag_is_given_by_its_name() {
        let args = parse(&["--clients", "10", "--runs", "3", "--strategies", "full"]);
        assert_eq!(args.contention.given(), flags_of::<Flags>());
    }

    #[test]
    fn defaults_are_the_published_experiment_and_options_set_it() {
        assert_eq!(config(&[]).unwrap(), ContentionConfig::published());
        let options = ["--clients", "10..30/10", "--runs", "7", "--strategies", "full,none", "--seed", "9"];
        let c = config(&[&options[..], &["--base", "2.5", "--cap", "500"]].concat()).unwrap();
        assert_eq!(
            (c.clients(), c.runs(), c.seed(), c.base(), c.cap()),
            (&[10, 20, 30][..], 7, 9, 2.5, 500.0)
        );
        assert_eq!(c.strategies().iter().map(|s| s.name()).collect::<Vec<_>>(), ["full", "none"]);
    }

    #[test]
    fn errors_name_the_option() {
        let cases: [(&[&str], &str); 11] = [
            (&["--clients", "0"], "invalid value for --clients: client count 0"),
            (&["--clients", "10,20,10"], "invalid value for --clients: invalid clients: 10 is given twice"),
            (&["--strategies", "nope"], "invalid value for --strategies: unknown strategy \"nope\""),
            (&["--runs", "0"], "invalid value for --runs: invalid runs 0"),
            (&["--base", "-1"], "invalid value for --base: -1 is not a positive number"),
            (&["--base", "5ms"], "invalid value for --base: \"5ms\" is not a number: contention counts"),
            (&["--cap", "NaN"], "invalid value for --cap: NaN is not a positive number"),
            (&["--base", "1e300"], "invalid value for --base: 1e300 is not a positive number of time units up to 1e12"),
            (
                &["--base", "5", "--cap", "6"],
                "invalid value for --cap: invalid cap 6: below exponential's first delay, 10 time units; the cap \
                 must be at least that",
            ),
            (&["--base", "3000"], "invalid value for --base: invalid cap 2000: below exponential's first delay, 6000"),
            (&["--runs", "1000000"], "invalid value for --runs: invalid clients, strategies and runs: 95000000 runs"),
        ];
        for (options, expected) in cases {
            let message = usage_message(options);
            assert!(message.starts_with(expected), "{options:?}: {message}");
        }
        // Decorrelated alone starts at base, so a cap of 8 is fine for it.
        assert!(config(&["--strategies", "decorrelated", "--base", "5", "--cap", "8"]).is_ok());
        let work = usage_message(&["--clients", "100000", "--runs", "3"]);
        assert!(
            work.starts_with(
                "invalid value for --runs: invalid clients, strategies and runs: 1.500e11 client pairs"
            ),
            "{work}"
        );
    }

    #[test]
    fn client_lists_are_counts_and_ranges() {
        assert_eq!(parse_clients("10,50,100"), Ok(vec![10, 50, 100]));
        assert_eq!(parse_clients("10..190/10"), Ok((1..=19).map(|i| 10 * i).collect()));
        assert_eq!(parse_clients(" 5 , 1..3 , 20..45/10"), Ok(vec![5, 1, 2, 3, 20, 30, 40]));
        assert_eq!(parse_clients("1..10/99999999999"), Ok(vec![1]));
        assert_eq!(parse_clients("1..1000/1").map(|l| l.len()), Ok(MAX_POINTS));
        let out_of_range = |n: &str| Err(ListError::OutOfRange(n.to_owned()));
        assert_eq!(parse_clients("0..10/5"), out_of_range("0"));
        assert_eq!(parse_clients("100001"), out_of_range("100001"));
        assert_eq!(parse_clients("99999999999999999999999"), out_of_range("99999999999999999999999"));
        assert_eq!(parse_clients("10..5/1"), Err(ListError::Descending("10..5/1".to_owned())));
        assert_eq!(parse_clients("10..190/0"), Err(ListError::ZeroStep("10..190/0".to_owned())));
        assert_eq!(parse_clients("1..1000,5"), Err(ListError::TooMany(1001)));
        assert_eq!(parse_clients("10,,20"), Err(ListError::Empty));
        for garbage in ["abc", "-5", "+5", "1e3", "10..", "..10", "10..20/x", "1...5", "10-20", "½"] {
            assert!(matches!(parse_clients(garbage), Err(ListError::Malformed(_))), "{garbage}");
        }
        assert_eq!(
            parse_clients("10..5/1").unwrap_err().to_string(),
            "range 10..5/1 counts down: FROM must not exceed TO"
        );
        assert!(parse_clients("x").unwrap_err().to_string().contains("such as 100, 10,50,100 or 10..190/10"));
    }
}
