//! The dotted key path at a place in a TOML text. The TOML parser finds some
//! errors before any field is read (a key given twice, a value nested past
//! its depth limit) and gives only their place; this names the key there.
//!
//! The text is parsed again into the parser's events (keys, separators,
//! tables opened and closed, values), following the tables and keys in
//! effect up to the place.

use toml_parser::parser::{Event, EventKind, RecursionGuard};
use toml_parser::Source;

/// The nesting the `toml` crate's reader allows, past which the parser
/// stops descending (and the reader reports the error this names).
const MAX_DEPTH: u32 = 80;

/// The dotted path (`schedule.base`) of the key or value that starts at
/// byte `offset` of `text`, or `None` when none does (a broken header, a
/// stray character).
pub(super) fn at(text: &str, offset: usize) -> Option<String> {
    let source = Source::new(text);
    let tokens = source.lex().into_vec();
    let mut events: Vec<Event> = Vec::new();
    toml_parser::parser::parse_document(&tokens, &mut RecursionGuard::new(&mut events, MAX_DEPTH), &mut ());

    // The keys of the value being read; for each level of nesting (the
    // table, then each inline table or array opened in it), the length of
    // `path` its own keys start after; the keys read since the last `=`
    // or table header.
    let (mut path, mut levels, mut keys) = (Vec::<String>::new(), vec![0], Vec::<String>::new());
    let mut in_header = false;
    for event in &events {
        let span = event.span();
        let here = span.start() <= offset && offset < span.end();
        match event.kind() {
            EventKind::StdTableOpen | EventKind::ArrayTableOpen => {
                in_header = true;
                keys.clear();
            }
            EventKind::StdTableClose | EventKind::ArrayTableClose => {
                in_header = false;
                path = std::mem::take(&mut keys);
                levels = vec![path.len()];
            }
            EventKind::SimpleKey => {
                let mut key = String::new();
                if let Some(raw) = source.get(event) {
                    raw.decode_key(&mut key, &mut ());
                }
                keys.push(key);
                if here {
                    let start = if in_header { 0 } else { levels.last().copied().unwrap_or(0) };
                    let mut found = path[..start.min(path.len())].to_vec();
                    found.append(&mut keys);
                    return Some(found.join("."));
                }
            }
            EventKind::KeyValSep => {
                path.truncate(levels.last().copied().unwrap_or(0));
                path.append(&mut keys);
            }
            EventKind::InlineTableOpen | EventKind::ArrayOpen | EventKind::Scalar if here => {
                return (!path.is_empty()).then(|| path.join("."));
            }
            EventKind::InlineTableOpen | EventKind::ArrayOpen => levels.push(path.len()),
            EventKind::InlineTableClose | EventKind::ArrayClose => {
                if let Some(start) = levels.pop() {
                    path.truncate(start);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_at(text: &str, marker: &str) -> Option<String> {
        at(text, text.rfind(marker).expect("the marker is in the text"))
    }

    #[test]
    fn names_the_key_or_value_at_a_place() {
        let text = "top = 1\n[schedule]\nbase = \"1s\"\n\"max delay\".x = [1, { a = 2, b = [3] }]\n";
        assert_eq!(key_at(text, "top").as_deref(), Some("top"));
        assert_eq!(key_at(text, "schedule").as_deref(), Some("schedule"));
        assert_eq!(key_at(text, "\"1s\"").as_deref(), Some("schedule.base"));
        assert_eq!(key_at(text, "x =").as_deref(), Some("schedule.max delay.x"));
        assert_eq!(key_at(text, "a =").as_deref(), Some("schedule.max delay.x.a"));
        assert_eq!(key_at(text, "3]").as_deref(), Some("schedule.max delay.x.b"));
        assert_eq!(key_at(text, "[3]").as_deref(), Some("schedule.max delay.x.b"));
        assert_eq!(key_at(text, "\n[schedule]"), None);
    }

    #[test]
    fn after_an_inline_table_the_next_key_starts_from_its_table() {
        let text = "[limits]\nx = { a = 1 }\ny = 2\n";
        assert_eq!(key_at(text, "2").as_deref(), Some("limits.y"));
    }
}
