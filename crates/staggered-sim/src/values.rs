//! The types of the scenarios' parameters, each with its unit: a parameter
//! reads the same from a command-line flag and from an experiment file,
//! because both go through its type's [`FromStr`], and writes back what
//! reads back equal through its [`Display`].
//!
//! A type checks what a value means alone (a rate above 0, a window that
//! starts before it ends); the scenario's `validate` checks the rest.

use std::fmt::{self, Display};
use std::str::FromStr;
use std::time::Duration;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use staggered::config::{format_duration, parse_duration};

/// A span of time as people write it: `100ms`, `1.5s`, `1m30s`, `0`.
///
/// ```
/// use std::time::Duration;
/// use staggered_sim::values::Span;
///
/// let span: Span = "1m30s".parse()?;
/// assert_eq!((span.0, span.to_string()), (Duration::from_secs(90), "1m30s".to_owned()));
/// # Ok::<(), String>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Span(pub Duration);

impl FromStr for Span {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        parse_duration(s.trim()).map(Span).map_err(|err| err.to_string())
    }
}

impl Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_duration(self.0))
    }
}

/// Events per second: `700` or `700/s`, a finite number above 0.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Rate(pub f64);

impl FromStr for Rate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let number = s.trim().strip_suffix("/s").unwrap_or(s.trim());
        match finite(number) {
            Some(rate) if rate > 0.0 => Ok(Rate(rate)),
            Some(_) => Err("the rate must be above 0 requests per second".to_owned()),
            None => Err("expected requests per second, such as 700 or 700/s".to_owned()),
        }
    }
}

impl Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/s", self.0)
    }
}

/// A probability: `0.01` or `1%`, from 0 to 1.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Fraction(pub f64);

impl FromStr for Fraction {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match percent_or_number(s) {
            Some(p) if (0.0..=1.0).contains(&p) => Ok(Fraction(p)),
            Some(_) => Err("must be between 0 and 1 (0% and 100%)".to_owned()),
            None => Err("expected a fraction such as 0.05 or a percentage such as 5%".to_owned()),
        }
    }
}

/// A share that may exceed 1: `0.2` or `20%`, finite and at least 0.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Share(pub f64);

impl FromStr for Share {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match percent_or_number(s) {
            Some(share) if share >= 0.0 => Ok(Share(share)),
            Some(_) => Err("must be at least 0".to_owned()),
            None => Err("expected a fraction such as 0.2 or a percentage such as 20%".to_owned()),
        }
    }
}

/// The contention model's own time units (a hop takes about 10): a positive
/// number up to [`Units::MAX`], never a duration.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Units(pub f64);

impl Units {
    /// The most time units a base or cap may be: about 30 years of simulated
    /// time at one millisecond per unit, far past any schedule's use and far
    /// from the edge of `Duration`.
    pub const MAX: f64 = 1e12;
}

impl FromStr for Units {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let Ok(value) = s.trim().parse::<f64>() else {
            return Err(format!(
                "{s:?} is not a number: contention counts the model's time units, such as 5, not durations"
            ));
        };
        if value > 0.0 && value <= Units::MAX {
            Ok(Units(value))
        } else {
            let max = Units::MAX;
            Err(format!(
                "{} is not a positive number of time units up to {max:e}",
                crate::view::number(value)
            ))
        }
    }
}

/// Client counts, one point each: `100`, `10,50,100`, or `FROM..TO/STEP`
/// with both ends included (`10..190/10`); items combine with commas.
/// Written back as ranges where the counts step evenly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clients(pub Vec<u32>);

impl Clients {
    /// The most client counts one list may hold: enough for every count
    /// from 1 to 1000, few enough for a table and a chart.
    pub const MAX_POINTS: usize = 1000;
}

impl FromStr for Clients {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        const EXPECTED: &str = "expected counts and ranges such as 100, 10,50,100 or 10..190/10";
        let mut counts: Vec<u32> = Vec::new();
        for item in text.split(',').map(str::trim) {
            // Decimal digits alone; too many for a `u64` is out of range.
            let number = |text: &str| {
                let text = text.trim();
                if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!("{item:?} is not a count or a range: {EXPECTED}"));
                }
                text.parse::<u64>()
                    .map_err(|_| format!("client count {text} is not between 1 and {}", crate::MAX_CLIENTS))
            };
            let count = |text: &str| match number(text)? {
                n @ 1.. if n <= u64::from(crate::MAX_CLIENTS) => Ok(n as u32),
                _ => Err(format!("client count {} is not between 1 and {}", text.trim(), crate::MAX_CLIENTS)),
            };
            if item.is_empty() {
                return Err(format!("empty list item: {EXPECTED}"));
            }
            let (from, to, step) = match item.split_once("..") {
                None => {
                    let n = count(item)?;
                    (n, n, 1)
                }
                Some((from, rest)) => {
                    let (to, step) = rest.split_once('/').unwrap_or((rest, "1"));
                    let step = number(step)?;
                    (count(from)?, count(to)?, step)
                }
            };
            if from > to {
                return Err(format!("range {item} counts down: FROM must not exceed TO"));
            }
            if step == 0 {
                return Err(format!("range {item} has step 0: the step must be at least 1"));
            }
            let total = counts.len() as u64 + u64::from(to - from) / step + 1;
            if total > Clients::MAX_POINTS as u64 {
                return Err(format!(
                    "{total} client counts are more than the limit of {}",
                    Clients::MAX_POINTS
                ));
            }
            // `step` may exceed u32, and then `from` is the only count.
            counts.extend((from..=to).step_by(usize::try_from(step).unwrap_or(usize::MAX)));
        }
        Ok(Clients(counts))
    }
}

impl Display for Clients {
    /// Runs of three or more evenly stepped counts as `FROM..TO/STEP`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut items = Vec::new();
        let mut rest = &self.0[..];
        while let [first, tail @ ..] = rest {
            let step = tail.first().map_or(0, |next| i64::from(*next) - i64::from(*first));
            let run = 1 + tail
                .iter()
                .zip(rest)
                .take_while(|(b, a)| i64::from(**b) - i64::from(**a) == step)
                .count();
            if run >= 3 && step > 0 {
                items.push(format!("{first}..{}/{step}", rest[run - 1]));
                rest = &rest[run..];
            } else {
                items.push(first.to_string());
                rest = tail;
            }
        }
        f.write_str(&items.join(","))
    }
}

/// Numbers: `1,1.5,2`, or ranges `FROM..TO/STEP` that run from FROM up to
/// TO, both included (`1..3/0.5` is 1, 1.5, 2, 2.5, 3). Range values are
/// `FROM + k * STEP` rounded to 12 significant digits, so they print as
/// written; TO is included when it is within a millionth of a step of the
/// last value.
///
/// ```
/// use staggered_sim::values::Values;
///
/// assert_eq!("1..2/0.25".parse::<Values>()?.0, [1.0, 1.25, 1.5, 1.75, 2.0]);
/// assert_eq!("0.1..0.3/0.1, 2".parse::<Values>()?.0, [0.1, 0.2, 0.3, 2.0]);
/// assert!("3..1/1".parse::<Values>().is_err());
/// # Ok::<(), String>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Values(pub Vec<f64>);

impl Values {
    /// The most values one list may hold.
    pub const MAX: usize = 1000;
}

impl FromStr for Values {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        const EXPECTED: &str = "expected numbers and ranges such as 2, 1,1.5,2 or 1..3/0.5";
        let mut values = Vec::new();
        for item in text.split(',').map(str::trim) {
            if item.is_empty() {
                return Err(format!("empty list item: {EXPECTED}"));
            }
            let number = |text: &str| {
                finite(text).ok_or_else(|| format!("{item:?} is not a number or a range: {EXPECTED}"))
            };
            let Some((from, rest)) = item.split_once("..") else {
                values.push(number(item)?);
                continue;
            };
            let (to, step) = rest.split_once('/').map_or((rest, None), |(to, step)| (to, Some(step)));
            let (from, to) = (number(from)?, number(to)?);
            let step_needed = || format!("range {item} needs a positive step, such as 1..3/0.5");
            let step = number(step.ok_or_else(step_needed)?)?;
            if from > to {
                return Err(format!("range {item} counts down: FROM must not exceed TO"));
            }
            if step <= 0.0 {
                return Err(step_needed());
            }
            let steps = ((to - from) / step + 1e-6).floor();
            if !steps.is_finite() || values.len() as f64 + steps + 1.0 > Values::MAX as f64 {
                return Err(format!("more than {} values", Values::MAX));
            }
            values.extend((0..=steps as usize).map(|k| round12(from + k as f64 * step)));
        }
        if values.len() > Values::MAX {
            return Err(format!("more than {} values", Values::MAX));
        }
        Ok(Values(values))
    }
}

/// `value` rounded to 12 significant digits: `0.1 + 2 * 0.1` prints as
/// `0.3`, not `0.30000000000000004`.
fn round12(value: f64) -> f64 {
    if value == 0.0 {
        return 0.0;
    }
    format!("{value:.11e}").parse().unwrap_or(value)
}

impl Display for Values {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = self.0.iter().map(f64::to_string).collect();
        f.write_str(&items.join(","))
    }
}

/// Names, comma-separated: `none,full`; each parsed by `T`, which says what
/// it expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct List<T>(pub Vec<T>);

impl<T: FromStr<Err = String>> FromStr for List<T> {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        s.split(',').map(|item| item.trim().parse()).collect::<Result<_, _>>().map(List)
    }
}

impl<T: Display> Display for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = self.0.iter().map(T::to_string).collect();
        f.write_str(&items.join(","))
    }
}

impl<T> List<T> {
    /// The items, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }
}

/// When the server loses capacity: `START..END` since the run began
/// (`10s..15s`), START before END; or `none`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// `none`: the server keeps its capacity.
    None,
    /// From the first time to the second.
    Between(Duration, Duration),
}

impl FromStr for Window {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let text = s.trim();
        if text.eq_ignore_ascii_case("none") {
            return Ok(Window::None);
        }
        let Some((start, end)) = text.split_once("..") else {
            return Err("expected START..END, such as 10s..15s, or none".to_owned());
        };
        let start: Span = start.parse().map_err(|err| format!("the start: {err}"))?;
        let end: Span = end.parse().map_err(|err| format!("the end: {err}"))?;
        if start >= end {
            return Err(format!("the trigger must start before it ends: {start} is not before {end}"));
        }
        Ok(Window::Between(start.0, end.0))
    }
}

impl Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Window::None => f.write_str("none"),
            Window::Between(start, end) => write!(f, "{}..{}", Span(start), Span(end)),
        }
    }
}

/// A capacity: a rate (`500`, `500/s`) or a share of another (`0.5x`,
/// `50%`), above 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Capacity {
    /// Requests per second.
    Rate(f64),
    /// A share of the full capacity.
    Share(f64),
}

impl Capacity {
    /// The share of `full` (requests per second) this leaves.
    pub fn share_of(self, full: f64) -> f64 {
        match self {
            Capacity::Rate(rate) => rate / full,
            Capacity::Share(share) => share,
        }
    }
}

impl FromStr for Capacity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let text = s.trim();
        let parsed = if text.ends_with('x') || text.ends_with('%') {
            percent_or_number(text.strip_suffix('x').unwrap_or(text))
                .map(|share| (Capacity::Share(share), share))
        } else {
            finite(text.strip_suffix("/s").unwrap_or(text)).map(|rate| (Capacity::Rate(rate), rate))
        };
        match parsed {
            Some((capacity, value)) if value > 0.0 => Ok(capacity),
            Some(_) => Err("the capacity must be above 0".to_owned()),
            None => {
                Err("expected a rate such as 500/s or a share of --capacity such as 0.5x or 50%".to_owned())
            }
        }
    }
}

impl Display for Capacity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Capacity::Rate(rate) => write!(f, "{rate}/s"),
            Capacity::Share(share) => write!(f, "{share}x"),
        }
    }
}

/// One of the library's strategies, by name: `full`, `decorrelated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Jitter(pub staggered::Strategy);

impl FromStr for Jitter {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        s.trim().parse().map(Jitter).map_err(|err: staggered::UnknownName| err.to_string())
    }
}

impl Display for Jitter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

/// A finite number (`0.5`), or a percentage (`50%`) as a fraction.
fn percent_or_number(text: &str) -> Option<f64> {
    match text.trim().strip_suffix('%') {
        Some(percent) => finite(percent).map(|p| p / 100.0),
        None => finite(text),
    }
}

/// A finite decimal number, sign and exponent allowed; not `inf` or `NaN`.
fn finite(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// A count, as a flag takes it: a whole number from 0 to [`u32::MAX`]; 0 is
/// left to the validation of what it counts, which says it must be at least
/// 1, as it says for a file.
///
/// # Errors
/// A message saying what a count is, for anything else.
pub fn count(text: &str) -> Result<u32, String> {
    match whole(text) {
        Ok(n) => u32::try_from(n).map_err(|_| format!("must be at most {}", u32::MAX)),
        Err(Whole::Negative) => Err("must be at least 1".to_owned()),
        Err(Whole::TooLarge) => Err(format!("must be at most {}", u32::MAX)),
        Err(Whole::NotANumber) => Err(format!("must be a whole number from 1 to {}", u32::MAX)),
    }
}

/// A seed, as a flag takes it: a whole number from 0 to [`u64::MAX`].
///
/// # Errors
/// A message giving the range, for anything else.
pub fn seed(text: &str) -> Result<u64, String> {
    whole(text).map_err(|_| format!("a seed is a whole number from 0 to {}", u64::MAX))
}

/// What a piece of text that is not a `u64` is.
enum Whole {
    Negative,
    TooLarge,
    NotANumber,
}

/// Reads digits (spaces around them allowed), telling a negative number and
/// one past [`u64::MAX`] from text that is no number at all.
fn whole(text: &str) -> Result<u64, Whole> {
    let text = text.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Whole::NotANumber);
    }
    if negative {
        return if digits.bytes().all(|b| b == b'0') { Ok(0) } else { Err(Whole::Negative) };
    }
    digits.parse().map_err(|_| Whole::TooLarge)
}

/// Each value type as text in a file (what its `Display` writes), read back
/// from text or from a bare number or list, as people also write them.
macro_rules! text_serde {
    ($($type:ty),+) => {$(
        impl Serialize for $type {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_any(FromText::default())
            }
        }
    )+};
}
text_serde!(Span, Rate, Clients, Window, Capacity, Jitter);

/// Each number type as a bare number in a file, read back from a number or
/// text (`5%`), and written as the number.
macro_rules! number_serde {
    ($($type:ty),+) => {$(
        impl Display for $type {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
        impl Serialize for $type {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_f64(self.0)
            }
        }
        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_any(FromText::default())
            }
        }
    )+};
}
number_serde!(Fraction, Share, Units);

impl Serialize for Values {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Values {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FromText::default())
    }
}

impl<T: Serialize> Serialize for List<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de, T: FromStr<Err = String>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FromText::default())
    }
}

/// Reads a value of `T` from text, a number, or a list of either (joined
/// with commas), through `T`'s `FromStr`.
struct FromText<T>(std::marker::PhantomData<T>);

impl<T> Default for FromText<T> {
    fn default() -> Self {
        FromText(std::marker::PhantomData)
    }
}

impl<'de, T: FromStr<Err = String>> Visitor<'de> for FromText<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number, text or a list")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        text.parse().map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<T, E> {
        self.visit_str(&n.to_string())
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<T, E> {
        self.visit_str(&n.to_string())
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<T, E> {
        self.visit_str(&x.to_string())
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Item>()? {
            items.push(item.0);
        }
        self.visit_str(&items.join(","))
    }
}

/// One item of a list in a file, a number or text, as text.
struct Item(String);

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FromText::<Item>::default())
    }
}

impl FromStr for Item {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(Item(s.to_owned()))
    }
}

/// A closed set of names (strategies, policies, families): each value's
/// `name`, every value in `ALL`, and what the set is called in a message.
/// [`named!`] gives such a type its `Display`, case-insensitive `FromStr`
/// and serde as its name.
pub(crate) trait Named: Copy + 'static {
    /// Every value, in the order a message lists them.
    const ALL: &'static [Self];
    /// What one value is called: `strategy`, `policy`.
    const KIND: &'static str;
    /// The value's name.
    fn name(self) -> &'static str;
}

/// Parses the name of a [`Named`] value, ignoring ASCII case, or says
/// which names there are.
pub(crate) fn parse_named<T: Named>(text: &str) -> Result<T, String> {
    T::ALL.iter().copied().find(|value| value.name().eq_ignore_ascii_case(text.trim())).ok_or_else(|| {
        let names: Vec<&str> = T::ALL.iter().map(|value| value.name()).collect();
        format!("unknown {} {text:?}: expected one of {}", T::KIND, names.join(", "))
    })
}

/// `Display`, `FromStr` and serde for [`Named`] types, by name.
macro_rules! named {
    ($($type:ty),+) => {$(
        impl std::fmt::Display for $type {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(crate::values::Named::name(*self))
            }
        }
        impl std::str::FromStr for $type {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                crate::values::parse_named(s)
            }
        }
        impl serde::Serialize for $type {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(crate::values::Named::name(*self))
            }
        }
        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = String::deserialize(deserializer)?;
                name.parse().map_err(serde::de::Error::custom)
            }
        }
    )+};
}
pub(crate) use named;
