//! Announced quotas: what a server says of its rate limit before it
//! throttles, read from its response headers into a [`Quota`], never
//! panicking on hostile text.
//!
//! Two families of header fields say it:
//!
//! - The IETF's `RateLimit` and `RateLimit-Policy` (the HTTP API working
//!   group's draft "RateLimit header fields for HTTP"), in the structured
//!   field syntax of RFC 8941: `RateLimit: "default";r=50;t=30` says that
//!   the policy `default` has 50 quota units left, restored in 30 seconds,
//!   and `RateLimit-Policy: "default";q=100;w=60` that it allows 100 a
//!   minute. A field that does not parse as a structured-field list is
//!   ignored whole, as RFC 8941 asks. Every parameter of a member is read,
//!   however many it has, the last winning when a key comes twice; members
//!   without a non-negative `r` and `t` are skipped. Given several
//!   policies, the one that leaves the least per second ([`ratelimit`]) is
//!   the quota: the client must keep to every one of them. The numbers
//!   are compared exactly, however large.
//! - The older `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
//!   `X-RateLimit-Reset` (GitHub, most public HTTP APIs, and the draft's
//!   first versions without the `X-`), three plain numbers
//!   ([`x_ratelimit`]). The reset is sent two ways: seconds to wait
//!   (`60`), or the moment of the reset as a Unix timestamp (GitHub's
//!   `1735689600`; some APIs add a fraction or count milliseconds). They
//!   are told apart by size: a reset of 1,000,000,000 or more (31 years as
//!   a wait, September 2001 as a timestamp) is a timestamp in seconds, and
//!   of 1,000,000,000,000 or more one in milliseconds; anything smaller is
//!   seconds to wait. No window lasts 31 years, and no server sends a
//!   timestamp from before 2001, so the two never meet.
//!
//! What a quota does is the rate limiter's business: an
//! [`AdaptiveLimiter`](crate::limiter::AdaptiveLimiter) told of one paces
//! the attempts to the quota left over the time left (see its
//! [`announce`](crate::limiter::AdaptiveLimiter::announce)).

use core::time::Duration;

/// What a server announced of its rate limit on one response: how many
/// requests it will still admit, and when that count is restored.
///
/// ```
/// use staggered::classify::quota::{ratelimit, Quota};
/// use std::time::Duration;
///
/// let quota = ratelimit(r#""default";r=50;t=30"#).unwrap();
/// assert_eq!(quota, Quota::new(50, Duration::from_secs(30)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Quota {
    /// The requests the server will still admit before the reset.
    pub remaining: u64,
    /// The time from the response to the reset, when the quota is restored.
    pub reset: Duration,
    /// The whole quota of a window, if the server said it.
    pub limit: Option<u64>,
}

impl Quota {
    /// `remaining` requests left, restored `reset` from now; no limit known.
    pub const fn new(remaining: u64, reset: Duration) -> Self {
        Quota { remaining, reset, limit: None }
    }

    /// The same quota with the whole quota of a window.
    pub const fn with_limit(mut self, limit: u64) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Whether `self` leaves fewer requests per second than `other`: the
    /// one to keep to when a server announces both. Of two that leave as
    /// many, the one with the farther reset. A quota restored now (a zero
    /// `reset`) limits nothing. Exact for every count and reset.
    fn tighter_than(&self, other: &Quota) -> bool {
        match (self.reset.is_zero(), other.reset.is_zero()) {
            (true, _) => false,
            (false, true) => true,
            // remaining / reset below other's, without dividing.
            (false, false) => {
                let mine = widening_mul(self.remaining, other.reset.as_nanos());
                let theirs = widening_mul(other.remaining, self.reset.as_nanos());
                mine < theirs || (mine == theirs && self.reset > other.reset)
            }
        }
    }
}

/// `a * b` exactly, as the `(high, low)` 128-bit halves of a 256-bit
/// number, which compare as tuples compare. A count times a reset in
/// nanoseconds reaches 2^158, past a u128: `a` times each 64-bit half of
/// `b` fits one, and adding the two carries at most one into `high`.
fn widening_mul(a: u64, b: u128) -> (u128, u128) {
    let a = u128::from(a);
    let low = a * (b & u128::from(u64::MAX));
    let high = a * (b >> 64);
    let (sum, carry) = low.overflowing_add(high << 64);
    ((high >> 64) + u128::from(carry), sum)
}

/// A reset at least this large is a Unix timestamp in seconds.
const EPOCH_SECONDS: u64 = 1_000_000_000;
/// A reset at least this large is a Unix timestamp in milliseconds.
const EPOCH_MILLIS: u64 = 1_000_000_000_000;

/// The IETF `RateLimit` field (every line of it, joined by commas): the
/// tightest of the policies it lists, or `None` if it does not parse or
/// lists none with both `r` and `t`.
///
/// The tightest leaves the fewest requests per second, `r / t`; of two
/// that leave as many, the one with the farther reset, and of two the
/// same, the first. A policy restored now (`t=0`) limits nothing: it is
/// the quota only if every policy listed is, and then the first.
pub fn ratelimit(value: &str) -> Option<Quota> {
    ratelimit_with_policy(value, None)
}

/// The IETF `RateLimit` field with its `RateLimit-Policy` field, if the
/// response has one: the tightest of the policies `RateLimit` lists, its
/// [`limit`](Quota::limit) the `q` of the policy of the same name. A
/// policy field that does not parse only leaves the limit unknown.
pub fn ratelimit_with_policy(value: &str, policy: Option<&str>) -> Option<Quota> {
    let mut tightest: Option<(Quota, &str)> = None;
    sf::list(value, |name, params| {
        let (Some(remaining), Some(reset)) = (params.get(b'r'), params.get(b't')) else { return };
        let quota = Quota::new(remaining, Duration::from_secs(reset));
        if tightest.as_ref().is_none_or(|(best, _)| quota.tighter_than(best)) {
            tightest = Some((quota, name));
        }
    })?;
    let (mut quota, name) = tightest?;
    if let Some(policy) = policy {
        let _ = sf::list(policy, |policy_name, params| {
            if policy_name == name {
                quota.limit = params.get(b'q');
            }
        });
    }
    Some(quota)
}

/// `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`
/// (or the same without `X-`), with `now` the time since the Unix epoch:
/// `None` unless both the remaining count and the reset read as
/// non-negative numbers. The reset is seconds to wait, or a Unix timestamp
/// in seconds or milliseconds (see the [module docs](self) for how they
/// are told apart); a timestamp in the past is a reset now. A limit that
/// does not read is left unknown.
pub fn x_ratelimit(limit: Option<&str>, remaining: &str, reset: &str, now: Duration) -> Option<Quota> {
    let remaining = parse_unsigned(remaining)?;
    let reset = parse_seconds(reset)?;
    let reset = if reset.as_secs() >= EPOCH_MILLIS {
        // Milliseconds: the whole number of seconds is the number of milliseconds.
        Duration::from_millis(reset.as_secs()).saturating_sub(now)
    } else if reset.as_secs() >= EPOCH_SECONDS {
        reset.saturating_sub(now)
    } else {
        reset
    };
    let quota = Quota::new(remaining, reset);
    Some(match limit.and_then(parse_unsigned) {
        Some(limit) => quota.with_limit(limit),
        None => quota,
    })
}

/// A non-negative integer, saturating; `None` for anything else. Spaces
/// around it are allowed.
fn parse_unsigned(value: &str) -> Option<u64> {
    let digits = value.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.bytes().fold(0u64, |n, b| n.saturating_mul(10).saturating_add(u64::from(b - b'0'))))
}

/// Non-negative seconds with an optional fraction (`60`, `1.5`), the
/// fraction read to the nanosecond; `None` for anything else.
fn parse_seconds(value: &str) -> Option<Duration> {
    let value = value.trim();
    let (whole, fraction) = value.split_once('.').unwrap_or((value, ""));
    let secs = parse_unsigned(whole).filter(|_| whole == whole.trim())?;
    if !fraction.bytes().all(|b| b.is_ascii_digit()) || (value.ends_with('.')) {
        return None;
    }
    let nanos = fraction
        .bytes()
        .chain(core::iter::repeat(b'0'))
        .take(9)
        .fold(0u32, |n, b| n * 10 + u32::from(b - b'0'));
    Some(Duration::new(secs, nanos))
}

/// A reader of RFC 8941 lists, as far as the rate-limit fields need: every
/// member is parsed (so that a malformed field is refused whole), and each
/// one's string name and non-negative integer parameters are handed on.
mod sf {
    /// A member's integer parameters: `r`, `t`, `q`, `w` and the like.
    /// RFC 8941 bounds their number only by the field's size, so there is
    /// a slot for every one-letter key, `a` to `z`, rather than a list.
    #[derive(Default)]
    pub(super) struct Params {
        /// The value of each one-letter key, if it is a non-negative
        /// integer, the last given winning (RFC 8941, 4.2.3.2).
        values: [Option<u64>; 26],
    }

    impl Params {
        /// The value of the one-letter key `key`, if it is a non-negative integer.
        pub(super) fn get(&self, key: u8) -> Option<u64> {
            self.values[slot(&[key])?]
        }

        fn set(&mut self, key: &[u8], value: Option<u64>) {
            if let Some(slot) = slot(key) {
                self.values[slot] = value;
            }
        }
    }

    /// The slot of a one-letter key; none for longer keys and `*`, which
    /// the rate-limit fields do not define.
    fn slot(key: &[u8]) -> Option<usize> {
        match *key {
            [key @ b'a'..=b'z'] => Some(usize::from(key - b'a')),
            _ => None,
        }
    }

    /// Reads `field` as a list, handing each member's name (the text of a
    /// string item, `""` for any other item) and parameters to `member`;
    /// `None` if it is not a valid list.
    pub(super) fn list<'a>(field: &'a str, mut member: impl FnMut(&'a str, &Params)) -> Option<()> {
        let mut input = Cursor { text: field, at: 0 };
        input.skip_sp();
        if input.done() {
            return None;
        }
        loop {
            let name = if input.peek() == Some(b'(') { input.inner_list()? } else { input.bare_item()? };
            let params = input.params()?;
            member(name.unwrap_or(""), &params);
            input.skip_ows();
            if input.done() {
                return Some(());
            }
            input.eat(b',')?;
            input.skip_ows();
            if input.done() {
                return None;
            }
        }
    }

    struct Cursor<'a> {
        text: &'a str,
        at: usize,
    }

    /// A bare item: the text of a string, `None` for any other kind.
    type Item<'a> = Option<&'a str>;

    impl<'a> Cursor<'a> {
        fn done(&self) -> bool {
            self.at >= self.text.len()
        }

        fn peek(&self) -> Option<u8> {
            self.text.as_bytes().get(self.at).copied()
        }

        fn eat(&mut self, byte: u8) -> Option<()> {
            (self.peek() == Some(byte)).then(|| self.at += 1)
        }

        fn skip_sp(&mut self) {
            while self.peek() == Some(b' ') {
                self.at += 1;
            }
        }

        fn skip_ows(&mut self) {
            while matches!(self.peek(), Some(b' ' | b'\t')) {
                self.at += 1;
            }
        }

        fn take_while(&mut self, keep: impl Fn(u8) -> bool) -> &'a str {
            let start = self.at;
            while self.peek().is_some_and(&keep) {
                self.at += 1;
            }
            &self.text[start..self.at]
        }

        /// `( item item ... )` and its parameters' place: the items are
        /// parsed and dropped.
        fn inner_list(&mut self) -> Option<Item<'a>> {
            self.eat(b'(')?;
            loop {
                self.skip_sp();
                if self.eat(b')').is_some() {
                    return Some(None);
                }
                self.bare_item()?;
                self.params()?;
                if !matches!(self.peek(), Some(b' ' | b')')) {
                    return None;
                }
            }
        }

        /// A bare item: the text of a string, `None` for another kind.
        fn bare_item(&mut self) -> Option<Item<'a>> {
            self.value().map(|(item, _)| item)
        }

        /// A bare item: `(its string text, its value if a non-negative integer)`.
        fn value(&mut self) -> Option<(Item<'a>, Option<u64>)> {
            match self.peek()? {
                b'-' | b'0'..=b'9' => self.number().map(|n| (None, n)),
                b'"' => self.string().map(|text| (Some(text), None)),
                b':' => {
                    self.at += 1;
                    self.take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
                    self.eat(b':').map(|()| (None, None))
                }
                b'?' => {
                    self.at += 1;
                    self.take_while(|b| b == b'0' || b == b'1').len().eq(&1).then_some((None, None))
                }
                b'@' => {
                    self.at += 1;
                    self.number().map(|_| (None, None))
                }
                b'%' => {
                    self.at += 1;
                    self.string().map(|_| (None, None))
                }
                b if b.is_ascii_alphabetic() || b == b'*' => {
                    self.take_while(|b| b.is_ascii_graphic() && !b"\"(),;<=>?@[\\]{}".contains(&b));
                    Some((None, None))
                }
                _ => None,
            }
        }

        /// An integer (at most 15 digits) or a decimal (at most 12 digits,
        /// a point, 1 to 3 digits): the integer's value if it is not negative.
        fn number(&mut self) -> Option<Option<u64>> {
            let negative = self.eat(b'-').is_some();
            let whole = self.take_while(|b| b.is_ascii_digit());
            if whole.is_empty() {
                return None;
            }
            if self.eat(b'.').is_some() {
                let fraction = self.take_while(|b| b.is_ascii_digit());
                return (whole.len() <= 12 && (1..=3).contains(&fraction.len())).then_some(None);
            }
            if whole.len() > 15 {
                return None;
            }
            let value = whole.bytes().fold(0u64, |n, b| n * 10 + u64::from(b - b'0'));
            Some((!negative).then_some(value))
        }

        /// A quoted string: the text between the quotes, escapes as sent.
        fn string(&mut self) -> Option<&'a str> {
            self.eat(b'"')?;
            let start = self.at;
            loop {
                match self.peek()? {
                    b'"' => {
                        let text = &self.text[start..self.at];
                        self.at += 1;
                        return Some(text);
                    }
                    b'\\' => {
                        self.at += 1;
                        if !matches!(self.peek()?, b'"' | b'\\') {
                            return None;
                        }
                        self.at += 1;
                    }
                    b' '..=b'~' => self.at += 1,
                    _ => return None,
                }
            }
        }

        /// `;key[=value]...`: the one-letter keys with non-negative
        /// integer values; a key with no value is `true`, no integer.
        fn params(&mut self) -> Option<Params> {
            let mut params = Params::default();
            while self.eat(b';').is_some() {
                self.skip_sp();
                if !matches!(self.peek(), Some(b'a'..=b'z' | b'*')) {
                    return None;
                }
                let key =
                    self.take_while(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' | b'*'));
                let value = if self.eat(b'=').is_some() { self.value()?.1 } else { None };
                params.set(key.as_bytes(), value);
            }
            Some(params)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Duration = Duration::from_secs(1_735_689_000); // 2024-12-31T23:50:00Z

    fn secs(remaining: u64, reset: u64) -> Quota {
        Quota::new(remaining, Duration::from_secs(reset))
    }

    #[test]
    fn the_drafts_examples() {
        assert_eq!(ratelimit(r#""default";r=50;t=30"#), Some(secs(50, 30)));
        assert_eq!(
            ratelimit_with_policy(r#""default";r=50;t=30"#, Some(r#""default";q=100;w=60"#)),
            Some(secs(50, 30).with_limit(100))
        );
        // Two policies: the one that leaves the least per second (1 in
        // 36,000 s is tighter than 50 in 30 s).
        let both = r#""permin";r=50;t=30, "perday";r=1;t=36000"#;
        let policies = r#""permin";q=50;w=60, "perday";q=1000;w=86400"#;
        assert_eq!(ratelimit_with_policy(both, Some(policies)), Some(secs(1, 36_000).with_limit(1000)));
        // A spent quota, and one restored now (which limits nothing).
        assert_eq!(ratelimit(r#""problemPolicy";r=0;t=10"#), Some(secs(0, 10)));
        assert_eq!(ratelimit(r#""a";r=0;t=0, "b";r=5;t=10"#), Some(secs(5, 10)));
        // Unknown parameters and items of other kinds are skipped.
        assert_eq!(
            ratelimit(r#"token;x=?1, "p";r=3;t=2;pk=:cHsdsRa894==:;qu="requests", (1 2);r=0"#),
            Some(secs(3, 2))
        );
    }

    #[test]
    fn policies_of_any_size_compare_exactly() {
        // 1 in 31.7 million years is tighter than 10^15 - 1 a second; the
        // cross products (10^39 ns) overflowed a u128.
        let huge = 999_999_999_999_999;
        let field = r#""a";r=1;t=999999999999999, "b";r=999999999999999;t=1"#;
        assert_eq!(ratelimit(field), Some(secs(1, huge)));
        let reversed = r#""b";r=999999999999999;t=1, "a";r=1;t=999999999999999"#;
        assert_eq!(ratelimit(reversed), Some(secs(1, huge)));
        // Every value a quota holds, to the nanosecond.
        let max = Quota::new(u64::MAX, Duration::MAX);
        let almost = Quota::new(u64::MAX - 1, Duration::MAX);
        assert!(almost.tighter_than(&max) && !max.tighter_than(&almost));
        let shorter = Quota::new(u64::MAX, Duration::MAX - Duration::from_nanos(1));
        assert!(max.tighter_than(&shorter) && !shorter.tighter_than(&max));
        let one = Quota::new(1, Duration::from_nanos(1));
        assert!(max.tighter_than(&one) && !one.tighter_than(&max));
        // The same rate: the farther reset is tighter; the same quota is not.
        assert!(secs(2 * huge, 2 * huge).tighter_than(&secs(huge, huge)));
        assert!(!secs(huge, huge).tighter_than(&secs(2 * huge, 2 * huge)));
        assert!(!max.tighter_than(&max));
        // A reset now limits nothing, however few remain.
        assert!(!secs(0, 0).tighter_than(&max) && max.tighter_than(&secs(0, 0)));
    }

    #[test]
    fn the_widening_product_is_exact() {
        // Below 2^128 it is the u128 product.
        for (a, b) in [(0, u128::MAX), (u64::MAX, 0), (3, 1 << 64), (u64::MAX, u128::from(u64::MAX))] {
            assert_eq!(widening_mul(a, b), (0, u128::from(a) * b), "{a} * {b}");
        }
        // (2^64 - 1)(2^128 - 1) = (2^64 - 2) 2^128 + 2^128 - 2^64 + 1.
        let max64 = u128::from(u64::MAX);
        assert_eq!(widening_mul(u64::MAX, u128::MAX), (max64 - 1, u128::MAX - max64 + 1));
        // 2^63 2^127 = 2^62 2^128.
        assert_eq!(widening_mul(1 << 63, 1 << 127), (1 << 62, 0));
        // (2^64 - 1)(2^128 - 2^64 - 1) = (2^64 - 2) 2^128 + 1: the two
        // partial products' sum carries into the high half.
        assert_eq!(widening_mul(u64::MAX, u128::MAX - (1 << 64)), (max64 - 1, 1));
    }

    #[test]
    fn every_one_letter_parameter_is_read() {
        // RFC 8941 bounds a member's parameters only by the field's size.
        assert_eq!(ratelimit(r#""default";a=1;b=2;c=3;r=0;t=30"#), Some(secs(0, 30)));
        let alphabet: String = (b'a'..=b'z').map(|key| format!(";{}={key}", char::from(key))).collect();
        assert_eq!(ratelimit(&format!("\"p\"{alphabet}")), Some(secs(u64::from(b'r'), u64::from(b't'))));
        assert_eq!(
            ratelimit_with_policy(r#""p";r=1;t=2"#, Some(&format!("\"p\"{alphabet}"))),
            Some(secs(1, 2).with_limit(u64::from(b'q')))
        );
        // The last value of a key wins, as RFC 8941 says; one that is not a
        // non-negative integer unsets it.
        assert_eq!(ratelimit(r#""p";r=1;t=2;r=3;x;t=4"#), Some(secs(3, 4)));
        assert_eq!(ratelimit(r#""p";r=1;t=2;r"#), None);
        assert_eq!(ratelimit(r#""p";r=1;t=2;t="30""#), None);
        // Keys of more than one letter are no `r` or `t`.
        assert_eq!(ratelimit(r#""p";rr=1;tt=2;r1=3;t-=4;*=5"#), None);
        assert_eq!(ratelimit(r#""p";r=1;rt=9;t=2;tr=9"#), Some(secs(1, 2)));
    }

    #[test]
    fn malformed_fields_are_ignored_whole() {
        for bad in [
            "",
            " ",
            r#""default";r=50;t=30,"#,
            r#""default";r=50;t=30,,"#,
            r#""default";r=-1;t=30"#,
            r#""default";r=50"#,
            r#""default";r=5.5;t=30"#,
            r#""default";R=50;t=30"#,
            r#""default;r=50;t=30"#,
            r#""default";r=1234567890123456;t=30"#,
            "r=50;t=30",
            "\"d\u{e9}\";r=1;t=1",
        ] {
            assert_eq!(ratelimit(bad), None, "{bad:?}");
        }
        // A policy field that does not parse leaves the limit unknown.
        assert_eq!(ratelimit_with_policy(r#""d";r=1;t=2"#, Some("q=5")), Some(secs(1, 2)));
    }

    #[test]
    fn github_and_the_older_fields() {
        // GitHub: the reset is the Unix time of the end of the hour.
        let github = x_ratelimit(Some("5000"), "4999", "1735689600", NOW);
        assert_eq!(github, Some(secs(4999, 600).with_limit(5000)));
        // Seconds to wait, as most APIs and the draft's first versions send.
        assert_eq!(x_ratelimit(Some("10"), "9", "1", NOW), Some(secs(9, 1).with_limit(10)));
        assert_eq!(x_ratelimit(None, "0", " 60 ", NOW), Some(secs(0, 60)));
        // Discord's fractional timestamp, and milliseconds since the epoch.
        assert_eq!(
            x_ratelimit(None, "1", "1735689000.25", NOW),
            Some(Quota::new(1, Duration::from_millis(250)))
        );
        assert_eq!(x_ratelimit(None, "1", "1735689030000", NOW), Some(secs(1, 30)));
        // A timestamp in the past: the quota was restored.
        assert_eq!(x_ratelimit(None, "0", "1600000000", NOW), Some(secs(0, 0)));
        // The edge between the two forms.
        assert_eq!(x_ratelimit(None, "1", "999999999", NOW), Some(secs(1, 999_999_999)));
        assert_eq!(x_ratelimit(None, "1", "1000000000", NOW), Some(secs(1, 0)));
        // A limit that does not read is unknown; a count or reset that does not, no quota.
        assert_eq!(x_ratelimit(Some("lots"), "1", "1", NOW), Some(secs(1, 1)));
        for (remaining, reset) in
            [("-1", "1"), ("1", "-1"), ("x", "1"), ("1", "soon"), ("1", "1."), ("1", ".5")]
        {
            assert_eq!(x_ratelimit(None, remaining, reset, NOW), None, "{remaining:?} {reset:?}");
        }
        assert_eq!(
            x_ratelimit(None, &"9".repeat(40), &"9".repeat(40), NOW).map(|q| q.remaining),
            Some(u64::MAX)
        );
    }
}
