//! Configuration errors blame what the file says: a zero deadline is
//! refused naming its field.

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
