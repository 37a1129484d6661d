//! Configuration errors blame what the file says: a zero deadline, a
//! duplicate key, a value nested past the parser's depth and a seed TOML
//! cannot hold are each refused naming their field.

use staggered::config::{LoadErrorKind, RetryConfig};

#[test]
fn config_zero_deadline_is_refused() {
    for (toml, json, field) in [
        ("[limits]\ndeadline = \"0s\"\n", "{\"limits\":\n {\"deadline\": \"0s\"}}", "limits.deadline"),
        (
            "[schedule]\ndeadline = \"0ms\"\n",
            "{\"schedule\":\n {\"deadline\": \"0ms\"}}",
            "schedule.deadline",
        ),
    ] {
        for err in
            [RetryConfig::from_toml_str(toml).unwrap_err(), RetryConfig::from_json_str(json).unwrap_err()]
        {
            assert_eq!(
                (err.kind(), err.field(), err.line()),
                (LoadErrorKind::Invalid, field, Some(2)),
                "{err}"
            );
            assert!(err.message().starts_with("invalid deadline 0s: must be more than 0"), "{err}");
        }
    }
    // The same kind of error as a zero per-attempt timeout.
    let err = RetryConfig::from_toml_str("[limits]\nattempt_timeout = \"0s\"\n").unwrap_err();
    assert_eq!(err.kind(), LoadErrorKind::Invalid);
    assert!(RetryConfig::from_toml_str("[limits]\ndeadline = \"1ns\"\n").is_ok());
}

#[test]
fn config_duplicate_key_and_recursion_errors_name_the_field() {
    let deep_list = format!("[classification]\nretry_statuses = {}{}\n", "[".repeat(200), "]".repeat(200));
    let deep_table = format!("[budget]\nkind = \"ratio\"\nx = {}1{}\n", "{a = ".repeat(200), "}".repeat(200));
    let cases = [
        ("[schedule]\nbase = \"1s\"\nbase = \"2s\"\n", "schedule.base", 3),
        ("[schedule]\nbase = \"1s\"\n\n[schedule]\nmax_delay = \"2s\"\n", "schedule", 4),
        ("[schedule]\n\"base\" = \"1s\"\n  'base' = \"2s\"\n", "schedule.base", 3),
        ("schedule.base = \"1s\"\nschedule.base = \"2s\"\n", "schedule.base", 2),
        ("[limits]\na.b = 1\na.b = 2\n", "limits.a.b", 3),
        ("[budget]\nkind = \"ratio\"\nx = { y = 1, y = 2 }\n", "budget.x.y", 3),
        (&deep_list, "classification.retry_statuses", 2),
    ];
    for (text, field, line) in cases {
        let err = RetryConfig::from_toml_str(text).expect_err(text);
        assert_eq!(
            (err.kind(), err.field(), err.line()),
            (LoadErrorKind::Syntax, field, Some(line)),
            "{err}"
        );
    }
    // JSON's parser reads fields as they come, and names them too.
    for (json, field) in [
        ("{\"schedule\": {\"base\": \"1s\",\n \"base\": \"2s\"}}", "schedule.base"),
        ("{\"schedule\": {},\n \"schedule\": {}}", "schedule"),
    ] {
        let err = RetryConfig::from_json_str(json).unwrap_err();
        assert_eq!((err.kind(), err.field(), err.line()), (LoadErrorKind::Syntax, field, Some(2)), "{err}");
    }
    let err = RetryConfig::from_toml_str(&deep_table).unwrap_err();
    assert!(err.field().starts_with("budget.x.a.a.a."), "{err}");
    assert!(err.to_string().len() < 400, "{err}");
    assert_eq!(err.line(), Some(3));
}

#[test]
fn config_seed_above_tomls_largest_integer_is_refused() {
    for (text, json) in [
        ("[schedule]\nseed = 9223372036854775808\n", "{\"schedule\": {\n\"seed\": 9223372036854775808}}"),
        ("[schedule]\nseed = 18446744073709551615\n", "{\"schedule\": {\n\"seed\": 18446744073709551615}}"),
    ] {
        for err in
            [RetryConfig::from_toml_str(text).unwrap_err(), RetryConfig::from_json_str(json).unwrap_err()]
        {
            assert_eq!(
                (err.kind(), err.field(), err.line()),
                (LoadErrorKind::Invalid, "schedule.seed", Some(2))
            );
            assert!(err.message().contains("must be at most 9223372036854775807"), "{err}");
        }
    }
    // The largest seed TOML holds is taken, and written back as it was.
    let config = RetryConfig::from_toml_str("[schedule]\nseed = 9223372036854775807\n").unwrap();
    assert_eq!(RetryConfig::from_toml_str(&config.to_toml_string().unwrap()).unwrap(), config);
    // A configuration built in code with a larger seed is refused, and not written.
    let mut config = RetryConfig::default();
    config.schedule.seed = Some(u64::MAX);
    assert_eq!(config.validate().unwrap_err().field(), "schedule.seed");
    for err in [config.to_toml_string().unwrap_err(), config.to_json_string().unwrap_err()] {
        assert_eq!((err.kind(), err.field()), (LoadErrorKind::Serialize, "schedule.seed"), "{err}");
    }
}
