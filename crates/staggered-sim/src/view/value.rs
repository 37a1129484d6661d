//! [`Value`]: one cell of a table, or a JSON document.

use std::fmt;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A cell of a [`Table`](super::Table), or a whole JSON document: JSON's
/// values, with the keys of a map kept in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Nothing: JSON `null`, an empty CSV cell (a figure that does not apply).
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A count or an index.
    Int(u64),
    /// A measurement, written as the shortest decimal that reads back as the
    /// same `f64` (`40` in CSV and text, `40.0` in JSON).
    Float(f64),
    /// Text, written as it is.
    Text(String),
    /// A JSON array.
    List(Vec<Value>),
    /// A JSON object, its keys in this order.
    Map(Vec<(String, Value)>),
}

impl fmt::Display for Value {
    /// A cell as CSV and the text table write it: nothing for `Null`, the
    /// number or the text; a list or a map as its items, `;`-separated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => Ok(()),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Text(text) => f.write_str(text),
            Value::List(items) => {
                let items: Vec<String> = items.iter().map(Value::to_string).collect();
                f.write_str(&items.join(";"))
            }
            Value::Map(entries) => {
                let entries: Vec<String> =
                    entries.iter().map(|(key, value)| format!("{key}={value}")).collect();
                f.write_str(&entries.join(";"))
            }
        }
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_none(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Int(n) => serializer.serialize_u64(*n),
            Value::Float(x) => serializer.serialize_f64(*x),
            Value::Text(text) => serializer.serialize_str(text),
            Value::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Map(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Int(n)
    }
}

impl From<u32> for Value {
    fn from(n: u32) -> Self {
        Value::Int(n.into())
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Self {
        Value::Int(n as u64)
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Self {
        Value::Float(x)
    }
}

impl From<&str> for Value {
    fn from(text: &str) -> Self {
        Value::Text(text.to_owned())
    }
}

impl From<String> for Value {
    fn from(text: String) -> Self {
        Value::Text(text)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    /// `None` is [`Value::Null`].
    fn from(value: Option<T>) -> Self {
        value.map_or(Value::Null, Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_json_write_numbers_as_their_formats_do() {
        let row = [Value::from(40.0), Value::from(Some(0.5)), Value::from(None::<f64>), Value::from(3_u32)];
        let cells: Vec<String> = row.iter().map(Value::to_string).collect();
        assert_eq!(cells, ["40", "0.5", "", "3"]);
        let json = serde_json::to_string(&Value::Map(vec![
            ("a".into(), Value::List(row.to_vec())),
            ("b".into(), Value::from("x")),
            ("c".into(), Value::from(true)),
        ]))
        .unwrap();
        assert_eq!(json, r#"{"a":[40.0,0.5,null,3],"b":"x","c":true}"#);
        let nested = Value::List(vec![Value::Map(vec![("k".into(), Value::Int(1))]), Value::Int(2)]);
        assert_eq!(nested.to_string(), "k=1;2");
    }
}
