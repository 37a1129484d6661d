//! Where a field is in the text of a configuration: the line and column of
//! its value, for the errors that are found after the text was read (a
//! rule between values, a budget's parameters).
//!
//! The text is read again by the format's own deserializer, skipping
//! everything but the path to the field; at the field, the walk stops with
//! an error, and the deserializer's error tells where it was.

use core::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The message that marks the field found.
const FOUND: &str = "\u{0}staggered: the field is here";

/// One step of a field's path: a key, or an index in a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// `schedule.max_delay`, `classification.retry_statuses[2]` as steps, in
/// `operation`'s table if there is one.
fn steps<'a>(operation: Option<&'a str>, path: &'a str) -> Option<Vec<Step<'a>>> {
    let mut steps: Vec<Step<'a>> = operation.map(Step::Key).into_iter().collect();
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(key, rest)| (key, rest));
        if key.is_empty() {
            return None;
        }
        steps.push(Step::Key(key));
        while let Some((index, after)) = rest.split_once(']') {
            steps.push(Step::Index(index.parse().ok()?));
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    Some(steps)
}

/// The line and column (from 1) of the value of `path` in a TOML `text`
/// (in `operation`'s table, in a file of several).
pub(super) fn in_toml(text: &str, operation: Option<&str>, path: &str) -> Option<(usize, usize)> {
    let steps = steps(operation, path)?;
    let deserializer = toml::Deserializer::parse(text).ok()?;
    let error = Walk(&steps).deserialize(deserializer).err()?;
    if !error.message().contains(FOUND) {
        return None;
    }
    error.span().map(|span| line_column(text, span.start))
}

/// The line and column (from 1) of the value of `path` in a JSON `text`
/// (in `operation`'s object, in a file of several).
pub(super) fn in_json(text: &str, operation: Option<&str>, path: &str) -> Option<(usize, usize)> {
    let steps = steps(operation, path)?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let error = Walk(&steps).deserialize(&mut deserializer).err()?;
    (error.to_string().contains(FOUND) && error.line() > 0).then(|| (error.line(), error.column()))
}

/// The line and column (from 1) of byte `offset` in `text`.
pub(super) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Walks to the value at the end of its steps and stops there with [`FOUND`].
struct Walk<'p, 'a>(&'p [Step<'a>]);

impl<'de> DeserializeSeed<'de> for Walk<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.0 {
            // Reading the value makes the format attach its position to the error.
            [] => deserializer.deserialize_any(Here),
            _ => deserializer.deserialize_any(self),
        }
    }
}

/// The value found: every visit stops with [`FOUND`].
struct Here;

impl<'de> Visitor<'de> for Here {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("anything")
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
}

impl<'de> Visitor<'de> for Walk<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("anything")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((Step::Key(wanted), rest)) = self.0.split_first() else { return Ok(()) };
        while let Some(key) = map.next_key::<String>()? {
            if key == *wanted {
                return map.next_value_seed(Walk(rest));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((Step::Index(wanted), rest)) = self.0.split_first() else { return Ok(()) };
        for _ in 0..*wanted {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        seq.next_element_seed(Walk(rest)).map(|_| ())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_steps() {
        assert_eq!(steps(None, "schedule.base"), Some(vec![Step::Key("schedule"), Step::Key("base")]));
        assert_eq!(
            steps(None, "classification.retry_statuses[2]"),
            Some(vec![Step::Key("classification"), Step::Key("retry_statuses"), Step::Index(2)])
        );
        assert_eq!(
            steps(Some("a.b"), "schedule.base"),
            Some(vec![Step::Key("a.b"), Step::Key("schedule"), Step::Key("base")])
        );
        assert_eq!(steps(None, "a..b"), None);
        assert_eq!(steps(None, "a[x]"), None);
    }

    #[test]
    fn finds_the_line_of_a_field_in_toml_and_json() {
        let toml = "[schedule]\nbase = \"1s\"\n\n[classification]\nretry_statuses = [503,\n  42]\n";
        assert_eq!(in_toml(toml, None, "schedule.base").map(|(line, _)| line), Some(2));
        assert_eq!(in_toml(toml, None, "classification.retry_statuses[1]").map(|(line, _)| line), Some(6));
        assert_eq!(in_toml(toml, None, "schedule.max_delay"), None);
        let operations = "[\"a.b\".schedule]\nbase = \"1s\"\n";
        assert_eq!(in_toml(operations, Some("a.b"), "schedule.base").map(|(line, _)| line), Some(2));
        let json = "{\n  \"schedule\": {\"base\": \"1s\"},\n  \"classification\": {\n    \"retry_statuses\": [503, 42]\n  }\n}";
        assert_eq!(in_json(json, None, "schedule.base").map(|(line, _)| line), Some(2));
        assert_eq!(in_json(json, None, "classification.retry_statuses[1]").map(|(line, _)| line), Some(4));
        assert_eq!(in_json(json, None, "budget.capacity"), None);
    }
}
