//! Configuration errors blame what the file says: the field it set (never
//! one it left to a preset), with its line; in a file of several
//! operations, the operation too; a zero deadline, a duplicate key, a value
//! nested past the parser's depth and a seed TOML cannot hold are each
//! refused naming their field.

use staggered::config::{LoadErrorKind, RetryConfig};

#[test]
fn config_error_blames_the_field_the_file_set() {
    let err = RetryConfig::from_toml_str("[schedule]\npreset = \"interactive\"\nbase = \"1h\"").unwrap_err();
    assert_eq!(
        (err.kind(), err.field(), err.line()),
        (LoadErrorKind::Invalid, "schedule.base", Some(3)),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "schedule.base: invalid base 1h: must not be above max_delay (3s, the interactive preset's) at line 3 \
         column 8"
    );
    let err = RetryConfig::from_json_str("{\"schedule\": {\n  \"base\": \"1m\"\n}}").unwrap_err();
    assert_eq!((err.field(), err.line()), ("schedule.base", Some(2)), "{err}");
    assert!(err.message().contains("must not be above max_delay (30s, the default)"), "{err}");
    // When the file sets max_delay, it is the one blamed, as before.
    let err = RetryConfig::from_toml_str("[schedule]\nbase = \"1s\"\nmax_delay = \"10ms\"\n").unwrap_err();
    assert_eq!((err.field(), err.line()), ("schedule.max_delay", Some(3)), "{err}");
    let err = RetryConfig::from_toml_str("[schedule]\npreset = \"aws\"\nmax_delay = \"1ms\"\n").unwrap_err();
    assert_eq!((err.field(), err.line()), ("schedule.max_delay", Some(3)), "{err}");
}

#[test]
fn config_errors_in_a_file_of_several_operations_name_the_operation() {
    let text = "[reports.schedule]\npreset = \"interactive\"\nbase = \"1h\"\n\n[uploads.limits]\ndeadline = \"10s\"\n";
    let err = RetryConfig::operations_from_toml_str(text).unwrap_err();
    assert_eq!((err.field(), err.line()), ("reports.schedule.base", Some(3)), "{err}");
    assert!(err.to_string().starts_with("reports.schedule.base: invalid base 1h: "), "{err}");

    // Errors of every kind: the format's own, a rule's, a budget's.
    let cases = [
        ("[uploads.limits]\ndeadlin = \"10s\"\n", "uploads.limits.deadlin", 2),
        ("[a.schedule]\nmax_attempts = 3\n[b.schedule]\nmultiplier = 0.5\n", "b.schedule.multiplier", 4),
        ("[jobs.budget]\nkind = \"ratio\"\n\nttl = \"90s\"\n", "jobs.budget.ttl", 4),
        ("[jobs.limits]\ndeadline = \"0s\"\n", "jobs.limits.deadline", 2),
        ("[jobs.schedule]\nbase = \"1s\"\nbase = \"2s\"\n", "jobs.schedule.base", 3),
        ("jobs = 5\n", "jobs", 1),
    ];
    for (text, field, line) in cases {
        let err = RetryConfig::operations_from_toml_str(text).expect_err(text);
        assert_eq!((err.field(), err.line()), (field, Some(line)), "{text:?}: {err}");
    }
    let json = "{\"reports\": {\"schedule\": {\n  \"preset\": \"interactive\",\n  \"base\": \"1h\"}}}";
    let err = RetryConfig::operations_from_json_str(json).unwrap_err();
    assert_eq!((err.field(), err.line()), ("reports.schedule.base", Some(3)), "{err}");

    // A good file: one configuration per operation, each as loaded alone.
    let text = "[reports.schedule]\npreset = \"interactive\"\n\n[uploads.limits]\ndeadline = \"10s\"\n";
    let operations = RetryConfig::operations_from_toml_str(text).unwrap();
    assert_eq!(operations.keys().collect::<Vec<_>>(), ["reports", "uploads"]);
    assert_eq!(
        operations["reports"],
        RetryConfig::from_toml_str("[schedule]\npreset = \"interactive\"").unwrap()
    );
    assert_eq!(operations["uploads"].limits.deadline, Some(std::time::Duration::from_secs(10)));
    assert!(RetryConfig::operations_from_json_str("{}").unwrap().is_empty());

    // From a file, by its extension.
    let path = std::env::temp_dir().join(format!("staggered-operations-{}.json", std::process::id()));
    std::fs::write(&path, json).unwrap();
    let err = RetryConfig::operations_from_path(&path).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert_eq!((err.field(), err.line()), ("reports.schedule.base", Some(3)), "{err}");
    let err = RetryConfig::operations_from_path(&path).unwrap_err();
    assert_eq!(err.kind(), LoadErrorKind::Io);
}

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
