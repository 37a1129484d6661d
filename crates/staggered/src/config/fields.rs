//! How the configuration's values are written: human durations, the names
//! of strategies, presets and cap modes, and `max_attempts` as a count or
//! `"unlimited"`. Every reader rejects garbage with a message, never panics.

use core::fmt;
use core::marker::PhantomData;
use core::str::FromStr;
use core::time::Duration;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::duration::{format_duration, parse_duration};

/// `Option<Duration>` as `"250ms"`, `"1.5s"`.
pub(super) mod opt_duration {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(
        value: &Option<Duration>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => serializer.serialize_str(&format_duration(*d)),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Duration>, D::Error> {
        deserializer.deserialize_str(DurationVisitor).map(Some)
    }

    struct DurationVisitor;

    impl Visitor<'_> for DurationVisitor {
        type Value = Duration;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a duration such as \"250ms\" or \"1.5s\"")
        }

        fn visit_str<E: de::Error>(self, text: &str) -> Result<Duration, E> {
            parse_duration(text)
                .map_err(|error| E::custom(format_args!("invalid duration {text:?}: {error}")))
        }
    }
}

/// `Option<T>` as its name (`"full"`, `"standard"`, `"interval"`).
pub(super) mod opt_name {
    use super::*;

    pub(crate) fn serialize<T: fmt::Display, S: Serializer>(
        value: &Option<T>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => serializer.collect_str(value),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, T, D>(deserializer: D) -> Result<Option<T>, D::Error>
    where
        T: FromStr,
        T::Err: fmt::Display,
        D: Deserializer<'de>,
    {
        deserializer.deserialize_str(NameVisitor(PhantomData)).map(Some)
    }

    struct NameVisitor<T>(PhantomData<T>);

    impl<T: FromStr> Visitor<'_> for NameVisitor<T>
    where
        T::Err: fmt::Display,
    {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a name")
        }

        fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
            text.parse().map_err(|error| E::custom(format_args!("{text:?}: {error}")))
        }
    }
}

/// The total number of calls: a count, or no limit (`"unlimited"`, which
/// wants a deadline beside it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttemptLimit {
    /// At most this many calls, the first included.
    Count(u32),
    /// No limit on the number of calls.
    Unlimited,
}

impl Serialize for AttemptLimit {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AttemptLimit::Count(n) => serializer.serialize_u32(*n),
            AttemptLimit::Unlimited => serializer.serialize_str("unlimited"),
        }
    }
}

impl<'de> Deserialize<'de> for AttemptLimit {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(AttemptLimitVisitor)
    }
}

struct AttemptLimitVisitor;

impl Visitor<'_> for AttemptLimitVisitor {
    type Value = AttemptLimit;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number of attempts or \"unlimited\"")
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<AttemptLimit, E> {
        u32::try_from(n)
            .map(AttemptLimit::Count)
            .map_err(|_| E::custom(format_args!("{n} attempts is more than {}", u32::MAX)))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<AttemptLimit, E> {
        match u64::try_from(n) {
            Ok(n) => self.visit_u64(n),
            Err(_) => Err(E::custom(format_args!("{n} attempts: must be at least 1"))),
        }
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<AttemptLimit, E> {
        match text {
            "unlimited" => Ok(AttemptLimit::Unlimited),
            _ => Err(E::invalid_value(de::Unexpected::Str(text), &self)),
        }
    }
}
