//! `RetryConfig`: TOML and JSON round trips, and errors that name the field.

use std::time::Duration;

use staggered::config::{AnyBudget, AttemptLimit, BudgetConfig, LoadErrorKind, RetryConfig};
use staggered::{Budget, CapMode, ErrorKind, Preset, Strategy};

const FULL: &str = r#"
[schedule]
preset = "standard"
strategy = "proportional"
base = "250ms"
multiplier = 1.5
max_delay = "1m30.5s"
factor = 0.25
cap_mode = "interval"
max_attempts = 7
deadline = "15m"
granularity = "1ms"
seed = 42

[limits]
deadline = "2m"
max_hint = "45s"
hint_jitter = 0.2
attempt_timeout = "1.5s"

[classification]
retry_statuses = [409]
stop_statuses = [501]
retry_exit_codes = [75, 111]
stop_exit_codes = [2]
throttling_codes = ["QuotaExceeded", "Client.Busy"]
bare_503_is_throttle = true

[budget]
kind = "ratio"
ttl = "30s"
min_per_sec = 5
retry_percent = 0.1
"#;

#[test]
fn every_field_loads_into_the_library_types() {
    let config = RetryConfig::from_toml_str(FULL).unwrap();
    let backoff = config.backoff().unwrap();
    assert_eq!(backoff.strategy(), Strategy::Proportional);
    assert_eq!(backoff.base(), Duration::from_millis(250));
    assert_eq!(backoff.multiplier(), 1.5);
    assert_eq!(backoff.max_delay(), Duration::from_millis(90_500));
    assert_eq!(backoff.factor(), 0.25);
    assert_eq!(backoff.cap_mode(), CapMode::Interval);
    assert_eq!(backoff.max_attempts(), Some(7));
    assert_eq!(backoff.deadline(), Some(Duration::from_secs(900)));
    assert_eq!(backoff.seed(), Some(42));
    let limits = config.limits().unwrap();
    assert_eq!(limits.max_attempts, Some(7));
    assert_eq!(limits.deadline, Some(Duration::from_secs(120)), "limits.deadline overrides the schedule's");
    assert_eq!(limits.max_hint, Some(Duration::from_secs(45)));
    assert_eq!(limits.hint_jitter, 0.2);
    assert_eq!(config.attempt_timeout(), Some(Duration::from_millis(1500)));
    assert!(matches!(config.budget().unwrap(), Some(AnyBudget::Ratio(_))));
    let c = &config.classification;
    assert_eq!(c.status_kind(409), Some(ErrorKind::Transient));
    assert_eq!(c.status_kind(501), Some(ErrorKind::Permanent));
    assert_eq!(c.status_kind(503), Some(ErrorKind::Transient));
    assert_eq!(c.status_kind(200), None);
    assert_eq!(c.exit_code_kind(75), Some(ErrorKind::Transient));
    assert_eq!(c.exit_code_kind(1), Some(ErrorKind::Permanent), "only the listed codes retry");
    assert_eq!(c.exit_code_kind(2), Some(ErrorKind::Permanent));
    assert_eq!(c.exit_code_kind(0), None);
    assert_eq!(c.http().status_kind(409), Some(ErrorKind::Transient));
    assert_eq!(c.throttling_codes, ["QuotaExceeded", "Client.Busy"]);
    assert!(c.bare_503_is_throttle);
    assert_eq!(c.http().throttling_codes().collect::<Vec<_>>(), ["QuotaExceeded", "Client.Busy"]);
    assert!(c.http().is_throttling_code("SlowDown") && c.http().bare_503_is_throttle());

    let policy = config.async_policy().unwrap();
    assert_eq!(policy.limits().deadline, Some(Duration::from_secs(120)));
    assert_eq!(policy.limits().max_hint, Some(Duration::from_secs(45)));
    assert!(policy.budget().is_some());
    assert_eq!(policy.classifier().http().status_kind(409), Some(ErrorKind::Transient));
    assert_eq!(policy.classifier().http(), &c.http(), "the throttling settings reach the policy");
}

#[test]
fn throttling_settings_load_from_toml_and_json_and_default_to_off() {
    let toml = "[classification]\nthrottling_codes = [\"QuotaExceeded\"]\nbare_503_is_throttle = true\n";
    let json = r#"{"classification": {"throttling_codes": ["QuotaExceeded"], "bare_503_is_throttle": true}}"#;
    for config in [RetryConfig::from_toml_str(toml).unwrap(), RetryConfig::from_json_str(json).unwrap()] {
        let http = config.policy().unwrap().classifier().http().clone();
        assert!(http.is_throttling_code("QuotaExceeded") && http.bare_503_is_throttle());
        assert_eq!(RetryConfig::from_toml_str(&config.to_toml_string().unwrap()).unwrap(), config);
        assert_eq!(RetryConfig::from_json_str(&config.to_json_string().unwrap()).unwrap(), config);
    }
    let default = RetryConfig::default().policy().unwrap().classifier().http().clone();
    assert!(!default.is_throttling_code("QuotaExceeded") && !default.bare_503_is_throttle());
    // Off is not written.
    let mut off = RetryConfig::default();
    off.classification.bare_503_is_throttle = false;
    assert_eq!(off.to_toml_string().unwrap(), "");
}

#[test]
fn an_empty_file_is_the_default_schedule() {
    for config in [RetryConfig::from_toml_str("").unwrap(), RetryConfig::from_json_str("{}").unwrap()] {
        assert_eq!(config, RetryConfig::default());
        let backoff = config.backoff().unwrap();
        assert_eq!((backoff.strategy(), backoff.max_attempts()), (Strategy::Full, Some(5)));
        assert_eq!(config.budget().unwrap().map(|_| ()), None);
        // No budget still makes a policy: `Option<AnyBudget>` is a budget.
        assert!(None::<AnyBudget>.withdraw(&staggered::Failure::TRANSIENT));
    }
    let google = RetryConfig::from_json_str(r#"{"schedule": {"preset": "google"}}"#).unwrap();
    assert_eq!(google.backoff().unwrap(), Preset::Google.backoff());
    let unlimited =
        RetryConfig::from_toml_str("[schedule]\nmax_attempts = \"unlimited\"\ndeadline = \"1m\"").unwrap();
    assert_eq!(unlimited.schedule.max_attempts, Some(AttemptLimit::Unlimited));
    assert_eq!(unlimited.backoff().unwrap().max_attempts(), None);
}

#[test]
fn a_rate_limiter_table_builds_the_limiter_into_the_policy() {
    let config = RetryConfig::from_toml_str("[rate_limiter]\nbeta = 0.6\nmin_rate = 2.0").unwrap();
    let limiter = config.rate_limiter().unwrap().expect("a limiter");
    assert_eq!((limiter.config().beta(), limiter.config().min_rate()), (0.6, 2.0));
    assert_eq!(limiter.config().smoothing(), 0.8, "the default kept");
    let policy = config.policy().unwrap();
    let metrics = policy.rate_limiter().and_then(|limiter| limiter.metrics()).expect("an adaptive limiter");
    assert!(!metrics.enabled);
    // An empty table is the limiter with the defaults; none, no limiter.
    assert!(RetryConfig::from_json_str(r#"{"rate_limiter": {}}"#).unwrap().rate_limiter().unwrap().is_some());
    assert!(RetryConfig::from_toml_str("").unwrap().policy().unwrap().rate_limiter().is_none());
}

#[test]
fn round_trips_through_toml_and_json() {
    let config = RetryConfig::from_toml_str(FULL).unwrap();
    let toml = config.to_toml_string().unwrap();
    assert_eq!(RetryConfig::from_toml_str(&toml).unwrap(), config, "{toml}");
    let json = config.to_json_string().unwrap();
    assert_eq!(RetryConfig::from_json_str(&json).unwrap(), config, "{json}");

    for budget in [
        BudgetConfig::TokenBucket {
            capacity: Some(100),
            retry_cost: Some(3),
            timeout_cost: None,
            throttled_cost: Some(1),
            success_refund: Some(0),
        },
        BudgetConfig::Throttle { max_tokens: Some(20), token_ratio: Some(0.5) },
        BudgetConfig::Ratio { ttl: None, min_per_sec: None, retry_percent: None },
    ] {
        let mut config = RetryConfig::default();
        config.budget = Some(budget);
        let mut limiter = staggered::config::RateLimiterConfig::default();
        limiter.beta = Some(0.6);
        limiter.rate_bucket = Some(Duration::from_millis(250));
        config.rate_limiter = Some(limiter);
        config.schedule.seed = Some(u64::MAX >> 1);
        config.schedule.max_delay = Some(Duration::new(12_345, 678_901_234));
        config.schedule.base = Some(Duration::from_nanos(1));
        let toml = config.to_toml_string().unwrap();
        assert_eq!(RetryConfig::from_toml_str(&toml).unwrap(), config, "{toml}");
        let json = config.to_json_string().unwrap();
        assert_eq!(RetryConfig::from_json_str(&json).unwrap(), config, "{json}");
    }
}

/// `(TOML, JSON, field, message fragment)`: each error names its field.
const BAD: &[(&str, &str, &str, &str)] = &[
    (
        "[schedule]\nmultiplier = 0.5",
        r#"{"schedule": {"multiplier": 0.5}}"#,
        "schedule.multiplier",
        "invalid multiplier 0.5: must be at least 1",
    ),
    (
        "[schedule]\nbase = \"1s\"\nmax_delay = \"10ms\"",
        r#"{"schedule": {"base": "1s", "max_delay": "10ms"}}"#,
        "schedule.max_delay",
        "invalid max_delay 10ms: must not be below base",
    ),
    (
        "[schedule]\nfactor = 1.5",
        r#"{"schedule": {"factor": 1.5}}"#,
        "schedule.factor",
        "must be between 0 and 1",
    ),
    (
        "[schedule]\nmax_attempts = 0",
        r#"{"schedule": {"max_attempts": 0}}"#,
        "schedule.max_attempts",
        "must be at least 1",
    ),
    (
        "[schedule]\nmax_attempts = -3",
        r#"{"schedule": {"max_attempts": -3}}"#,
        "schedule.max_attempts",
        "must be at least 1",
    ),
    (
        "[schedule]\nmax_attempts = 99999999999",
        r#"{"schedule": {"max_attempts": 99999999999}}"#,
        "schedule.max_attempts",
        "more than 4294967295",
    ),
    (
        "[schedule]\ngranularity = \"0s\"",
        r#"{"schedule": {"granularity": "0s"}}"#,
        "schedule.granularity",
        "must not be zero",
    ),
    (
        "[schedule]\nbase = \"abc\"",
        r#"{"schedule": {"base": "abc"}}"#,
        "schedule.base",
        "invalid duration \"abc\"",
    ),
    ("[schedule]\nbase = \"-1s\"", r#"{"schedule": {"base": "-1s"}}"#, "schedule.base", "cannot be negative"),
    ("[schedule]\nbase = 250", r#"{"schedule": {"base": 250}}"#, "schedule.base", "expected a duration"),
    (
        "[schedule]\nmax_delay = \"99999999999999999999999h\"",
        r#"{"schedule": {"max_delay": "99999999999999999999999h"}}"#,
        "schedule.max_delay",
        "duration too large",
    ),
    (
        "[schedule]\nstrategy = \"fibonacci\"",
        r#"{"schedule": {"strategy": "fibonacci"}}"#,
        "schedule.strategy",
        "unknown strategy",
    ),
    (
        "[schedule]\npreset = \"fast\"",
        r#"{"schedule": {"preset": "fast"}}"#,
        "schedule.preset",
        "unknown preset",
    ),
    (
        "[schedule]\ncap_mode = \"soft\"",
        r#"{"schedule": {"cap_mode": "soft"}}"#,
        "schedule.cap_mode",
        "unknown cap mode",
    ),
    (
        "[schedule]\njitter = 0.1",
        r#"{"schedule": {"jitter": 0.1}}"#,
        "schedule.jitter",
        "unknown field `jitter`",
    ),
    ("[retry]\nbase = \"1s\"", r#"{"retry": {}}"#, "retry", "unknown field `retry`"),
    (
        "[limits]\nhint_jitter = 2.0",
        r#"{"limits": {"hint_jitter": 2.0}}"#,
        "limits.hint_jitter",
        "invalid hint_jitter 2: must be between 0 and 1",
    ),
    (
        "[limits]\nattempt_timeout = \"0s\"",
        r#"{"limits": {"attempt_timeout": "0s"}}"#,
        "limits.attempt_timeout",
        "must not be zero",
    ),
    (
        "[limits]\nmax_hint = \"soon\"",
        r#"{"limits": {"max_hint": "soon"}}"#,
        "limits.max_hint",
        "invalid duration",
    ),
    (
        "[classification]\nretry_statuses = [503, 42]",
        r#"{"classification": {"retry_statuses": [503, 42]}}"#,
        "classification.retry_statuses[1]",
        "invalid status 42: must be between 100 and 599",
    ),
    (
        "[classification]\nretry_statuses = [503]\nstop_statuses = [503]",
        r#"{"classification": {"retry_statuses": [503], "stop_statuses": [503]}}"#,
        "classification.retry_statuses[0]",
        "also in stop_statuses",
    ),
    (
        "[classification]\nthrottling_codes = [\"QuotaExceeded\", \"ns#Busy\"]",
        r#"{"classification": {"throttling_codes": ["QuotaExceeded", "ns#Busy"]}}"#,
        "classification.throttling_codes[1]",
        "invalid throttling code \"ns#Busy\": must be letters, digits, '.', '_' or '-'",
    ),
    (
        "[classification]\nthrottling_codes = [\"\"]",
        r#"{"classification": {"throttling_codes": [""]}}"#,
        "classification.throttling_codes[0]",
        "invalid throttling code \"\"",
    ),
    (
        "[classification]\nbare_503_is_throttle = \"yes\"",
        r#"{"classification": {"bare_503_is_throttle": "yes"}}"#,
        "classification.bare_503_is_throttle",
        "invalid type",
    ),
    (
        "[classification]\nretry_exit_codes = [0]",
        r#"{"classification": {"retry_exit_codes": [0]}}"#,
        "classification.retry_exit_codes[0]",
        "0 is a success",
    ),
    (
        "[budget]\nkind = \"ratio\"\nttl = \"90s\"",
        r#"{"budget": {"kind": "ratio", "ttl": "90s"}}"#,
        "budget.ttl",
        "invalid ttl 90s: must be between 1s and 60s",
    ),
    (
        "[budget]\nkind = \"ratio\"\nretry_percent = -1.0",
        r#"{"budget": {"kind": "ratio", "retry_percent": -1.0}}"#,
        "budget.retry_percent",
        "must be between 0 and 1000",
    ),
    (
        "[budget]\nkind = \"throttle\"\nmax_tokens = 0",
        r#"{"budget": {"kind": "throttle", "max_tokens": 0}}"#,
        "budget.max_tokens",
        "must be between 1 and 1000",
    ),
    (
        "[budget]\nkind = \"throttle\"\ntoken_ratio = 0.0",
        r#"{"budget": {"kind": "throttle", "token_ratio": 0.0}}"#,
        "budget.token_ratio",
        "invalid token_ratio 0",
    ),
    (
        "[rate_limiter]\nbeta = 1.0",
        r#"{"rate_limiter": {"beta": 1.0}}"#,
        "rate_limiter.beta",
        "invalid beta 1: must be less than 1",
    ),
    (
        "[rate_limiter]\nrate_bucket = \"0s\"",
        r#"{"rate_limiter": {"rate_bucket": "0s"}}"#,
        "rate_limiter.rate_bucket",
        "invalid rate_bucket",
    ),
    (
        "[rate_limiter]\nmin_rate = -1.0",
        r#"{"rate_limiter": {"min_rate": -1.0}}"#,
        "rate_limiter.min_rate",
        "invalid min_rate -1",
    ),
    (
        "[rate_limiter]\nbeat = 0.5",
        r#"{"rate_limiter": {"beat": 0.5}}"#,
        "rate_limiter.beat",
        "unknown field `beat`",
    ),
    (
        "[budget]\nkind = \"leaky\"",
        r#"{"budget": {"kind": "leaky"}}"#,
        "budget.kind",
        "unknown variant `leaky`",
    ),
    // A parameter of another kind of budget, and one of no kind, are named.
    (
        "[budget]\nkind = \"ratio\"\ncapacity = 5",
        r#"{"budget": {"kind": "ratio", "capacity": 5}}"#,
        "budget.capacity",
        "capacity is a parameter of the token_bucket budget, not of kind = \"ratio\"",
    ),
    (
        "[budget]\nkind = \"token_bucket\"\ncapcity = 5",
        r#"{"budget": {"kind": "token_bucket", "capcity": 5}}"#,
        "budget.capcity",
        "unknown field `capcity`",
    ),
    (
        "[budget]\nkind = \"token_bucket\"\ncapacity = -5",
        r#"{"budget": {"kind": "token_bucket", "capacity": -5}}"#,
        "budget.capacity",
        "invalid value",
    ),
    // A ratio past gRPC's three decimals is refused, not rounded.
    (
        "[budget]\nkind = \"throttle\"\ntoken_ratio = 0.0004",
        r#"{"budget": {"kind": "throttle", "token_ratio": 0.0004}}"#,
        "budget.token_ratio",
        "invalid token_ratio 0.0004: must be between 0.001 and 10",
    ),
    (
        "[budget]\nkind = \"throttle\"\ntoken_ratio = 0.0015",
        r#"{"budget": {"kind": "throttle", "token_ratio": 0.0015}}"#,
        "budget.token_ratio",
        "invalid token_ratio 0.0015: must be a multiple of 0.001",
    ),
    // A section is a table.
    ("schedule = []", r#"{"schedule": []}"#, "schedule", "expected a table of settings"),
    ("budget = [1]", r#"{"budget": [1]}"#, "budget", "expected a table of settings"),
];

#[test]
fn errors_name_the_field_in_toml_and_json() {
    for &(toml, json, field, fragment) in BAD {
        for (format, result) in
            [("TOML", RetryConfig::from_toml_str(toml)), ("JSON", RetryConfig::from_json_str(json))]
        {
            let err = result.expect_err(toml);
            assert_eq!(err.field(), field, "{format} {toml:?}: {err}");
            assert!(err.to_string().starts_with(&format!("{field}: ")), "{format}: {err}");
            assert!(err.message().contains(fragment), "{format} {toml:?}: {err}");
        }
    }
}

#[test]
fn the_spec_example_message_and_error_kinds() {
    let err = RetryConfig::from_toml_str("[schedule]\nmultiplier = 0.5").unwrap_err();
    assert_eq!(
        err.to_string(),
        "schedule.multiplier: invalid multiplier 0.5: must be at least 1 at line 2 column 14"
    );
    assert_eq!(err.kind(), LoadErrorKind::Invalid);
    let err = RetryConfig::from_toml_str("[schedule\n").unwrap_err();
    assert_eq!((err.kind(), err.field()), (LoadErrorKind::Syntax, ""));
    assert!(err.message().contains("line 1"), "{err}");
    let err = RetryConfig::from_json_str("{").unwrap_err();
    assert_eq!((err.kind(), err.field()), (LoadErrorKind::Syntax, ""));
    let err = RetryConfig::from_json_str(r#"{"schedule": {}} trailing"#).unwrap_err();
    assert_eq!(err.kind(), LoadErrorKind::Syntax);
    let err = RetryConfig::from_path("/nonexistent/staggered.toml").unwrap_err();
    assert_eq!(err.kind(), LoadErrorKind::Io);
}

#[test]
fn garbage_never_panics() {
    let samples = [
        "\u{0}",
        "[[schedule]]",
        "[schedule]\nbase = \"1.s\"",
        "[schedule]\nseed = -1",
        "[schedule]\nmultiplier = nan",
        "[schedule]\nmultiplier = inf",
        "[limits]\nhint_jitter = nan",
        "[budget]\nkind = 5",
        "[budget]\n",
        "[classification]\nretry_statuses = \"503\"",
        "[classification]\nretry_statuses = [70000]",
        "[classification]\nretry_exit_codes = [99999999999]",
    ];
    for text in samples {
        assert!(RetryConfig::from_toml_str(text).is_err(), "{text:?}");
    }
    for text in ["", "null", "{\"schedule\": null}", "{\"schedule\": {\"base\": \"\u{b5}\"}}", "1e999"] {
        assert!(RetryConfig::from_json_str(text).is_err(), "{text:?}");
    }
}

#[test]
fn every_error_names_the_line_of_its_field() {
    // (TOML, JSON, field, line): rules checked after reading, and errors of
    // the format's own reading, in a section of several lines.
    let cases: [(&str, &str, &str, usize, usize); 7] = [
        (
            "[rate_limiter]\nbeta = 0.5\n\nmax_rate_scale = 0.5\n",
            "{\"rate_limiter\": {\n  \"beta\": 0.5,\n  \"max_rate_scale\": 0.5\n}}",
            "rate_limiter.max_rate_scale",
            4,
            3,
        ),
        (
            "[schedule]\nbase = \"1s\"\nmax_delay = \"10ms\"\n",
            "{\n  \"schedule\": {\n    \"base\": \"1s\",\n    \"max_delay\": \"10ms\"\n  }\n}",
            "schedule.max_delay",
            3,
            4,
        ),
        (
            "[budget]\nkind = \"ratio\"\n\nttl = \"90s\"\n",
            "{\"budget\": {\n  \"kind\": \"ratio\",\n  \"ttl\": \"90s\"\n}}",
            "budget.ttl",
            4,
            3,
        ),
        (
            "[budget]\nkind = \"ratio\"\ncapacity = 5\n",
            "{\"budget\": {\n  \"kind\": \"ratio\",\n  \"capacity\": 5\n}}",
            "budget.capacity",
            3,
            3,
        ),
        (
            "[budget]\nkind = \"throttle\"\n\n\ntoken_ratio = 0.0004\n",
            "{\"budget\": {\"kind\": \"throttle\",\n\n  \"token_ratio\": 0.0004}}",
            "budget.token_ratio",
            5,
            3,
        ),
        (
            "[classification]\nretry_statuses = [\n  503,\n  42,\n]\n",
            "{\"classification\": {\"retry_statuses\": [\n  503,\n  42\n]}}",
            "classification.retry_statuses[1]",
            4,
            3,
        ),
        (
            "[limits]\nhint_jitter = 0.5\nattempt_timeout = \"0s\"\n",
            "{\"limits\": {\"hint_jitter\": 0.5,\n \"attempt_timeout\": \"0s\"}}",
            "limits.attempt_timeout",
            3,
            2,
        ),
    ];
    for (toml, json, field, toml_line, json_line) in cases {
        let err = RetryConfig::from_toml_str(toml).unwrap_err();
        assert_eq!((err.field(), err.line()), (field, Some(toml_line)), "TOML {toml:?}: {err}");
        assert!(err.to_string().contains(&format!("at line {toml_line} ")), "{err}");
        let err = RetryConfig::from_json_str(json).unwrap_err();
        assert_eq!((err.field(), err.line()), (field, Some(json_line)), "JSON {json:?}: {err}");
    }
    // A rule between a field the file sets and one it leaves to its default
    // blames the one it sets, with its line.
    let err = RetryConfig::from_toml_str("[schedule]\nbase = \"1m\"\n").unwrap_err();
    assert_eq!((err.field(), err.line()), ("schedule.base", Some(2)), "{err}");
}

#[test]
fn a_top_level_of_the_wrong_shape_is_refused() {
    for json in ["[]", "[{}]", "\"schedule\"", "42", "null", "true"] {
        let err = RetryConfig::from_json_str(json).unwrap_err();
        assert_eq!(err.kind(), LoadErrorKind::Syntax, "{json}: {err}");
        assert!(err.message().contains("expected a table of settings"), "{json}: {err}");
    }
    assert_eq!(RetryConfig::from_json_str("{}").unwrap(), RetryConfig::default());
}

#[test]
fn errors_quote_a_short_prefix_of_a_bad_value() {
    let huge = "9".repeat(1 << 20);
    for text in [
        format!("[schedule]\nbase = \"{huge}x\""),
        format!("[schedule]\nbase = \"{huge}\""),
        format!("[schedule]\nstrategy = \"{huge}\""),
        format!("[schedule]\nmax_attempts = \"{huge}\""),
        format!("[budget]\nkind = \"{huge}\""),
        format!("[budget]\nkind = \"ratio\"\nmin_per_sec = \"{huge}\""),
        format!("[{huge}]"),
    ] {
        let err = RetryConfig::from_toml_str(&text).unwrap_err();
        assert!(err.to_string().len() < 400, "{} bytes: {}", err.to_string().len(), &err.to_string()[..400]);
    }
    let json = format!("{{\"schedule\": {{\"base\": \"{huge}\"}}}}");
    let err = RetryConfig::from_json_str(&json).unwrap_err();
    assert!(err.to_string().len() < 400, "{}", &err.to_string()[..400]);
}

#[test]
fn a_name_with_backticks_still_gives_a_short_message() {
    // Found by the config_json fuzz target: serde quotes names in
    // backticks, so a key with backticks of its own left runs of it
    // outside any quote, and they were kept in full.
    let key = format!("sched`{}`ule", "p".repeat(1 << 20));
    let json = format!("{{\"{key}\": {{}}}}");
    let toml = format!("\"{key}\" = {{}}");
    for err in
        [RetryConfig::from_json_str(&json).unwrap_err(), RetryConfig::from_toml_str(&toml).unwrap_err()]
    {
        let message = err.to_string();
        assert!(message.len() < 400, "{} bytes: {}…", message.len(), &message[..400]);
        assert!(err.line().is_some(), "{message}");
    }
}

#[test]
fn long_classification_lists_are_checked_in_linear_time() {
    // 150,000 entries in each list: a check of every pair would compare
    // 2.25e10 of them, minutes of work; one pass each takes milliseconds.
    const ENTRIES: usize = 150_000;
    let mut config = RetryConfig::default();
    config.classification.retry_statuses = (0..ENTRIES).map(|i| 500 + (i % 50) as u16).collect();
    config.classification.stop_statuses = (0..ENTRIES).map(|i| 400 + (i % 50) as u16).collect();
    config.classification.retry_exit_codes = (0..ENTRIES).map(|i| 1 + (i % 100) as i32).collect();
    config.classification.stop_exit_codes = (0..ENTRIES).map(|i| 101 + (i % 100) as i32).collect();
    config.validate().unwrap();
    config.classification.stop_statuses.push(549);
    let err = config.validate().unwrap_err();
    assert_eq!(err.field(), "classification.retry_statuses[49]");
}

#[test]
fn a_hedging_section_builds_one_shared_hedging_and_names_its_mistakes() {
    use staggered::config::RetryConfig;
    let config =
        RetryConfig::from_toml_str("[hedging]\npercentile = 0.9\nmax_attempts = 3\nmin_samples = 10")
            .unwrap();
    let hedging = config.hedging().unwrap().unwrap();
    assert_eq!((hedging.max_attempts(), hedging.delay()), (3, None));
    // Built once: what one handle learns, the next one knows.
    for _ in 0..10 {
        hedging.record(std::time::Duration::from_millis(20));
    }
    assert!(config.hedging().unwrap().unwrap().delay().is_some());
    let fixed = RetryConfig::from_json_str(r#"{"hedging": {"delay": "10ms"}}"#).unwrap();
    assert_eq!(fixed.hedging().unwrap().unwrap().delay(), Some(std::time::Duration::from_millis(10)));
    // It loads back equal.
    assert_eq!(RetryConfig::from_toml_str(&config.to_toml_string().unwrap()).unwrap(), config);

    for (text, field, line) in [
        ("[hedging]\npercentile = 0.2", "hedging.percentile", 2),
        ("[hedging]\ndelay = \"10ms\"\nmax_attempts = 9", "hedging.max_attempts", 3),
        ("[hedging]\ndelay = \"10ms\"\npercentile = 0.9", "hedging.percentile", 3),
        ("[hedging]\nmax_attempts = 3", "hedging", 1),
        ("[hedging]\npercentile = 0.9\nwindow = 1", "hedging.window", 3),
        ("[hedging]\ndelay = \"soon\"", "hedging.delay", 2),
        ("[hedging]\ndelay = \"10ms\"\nspeed = 2", "hedging.speed", 3),
    ] {
        let err = RetryConfig::from_toml_str(text).unwrap_err();
        assert_eq!((err.field(), err.line()), (field, Some(line)), "{text}: {err}");
    }
}
