//! A retry configuration from a TOML file: the policy it gives carries
//! everything the file says, and a mistake in the file is named with its
//! field and line.
//!
//! `cargo run -p staggered --example toml_config --features serde`

use std::io;

use staggered::config::RetryConfig;

const CONFIG: &str = r#"
[schedule]
preset = "interactive"   # 100 ms base, additive jitter, 3 s cap
max_attempts = 4

[limits]
deadline = "5s"

[classification]
stop_statuses = [501]    # for the HTTP integrations

[budget]
kind = "token_bucket"
capacity = 100
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::temp_dir().join(format!("staggered-example-{}.toml", std::process::id()));
    std::fs::write(&path, CONFIG)?;
    let config = RetryConfig::from_path(&path);
    std::fs::remove_file(&path)?;
    let config = config?;

    let policy = config.policy()?; // for blocking calls
    println!("limits: {:?}", policy.limits());
    let value =
        policy
            .retry(|attempt| {
                if attempt < 3 {
                    Err(io::Error::from(io::ErrorKind::ConnectionReset))
                } else {
                    Ok(attempt)
                }
            })
            .on_retry(|event| println!("{event}"))
            .call()?;
    assert_eq!(value, 3);

    // Mistakes name the field and the line of its value.
    let typo = "[budget]\nkind = \"ratio\"\ncapacity = 5\n";
    let err = RetryConfig::from_toml_str(typo).unwrap_err();
    println!("{err}");
    assert_eq!((err.field(), err.line()), ("budget.capacity", Some(3)));
    // A per-attempt timeout cannot cut a blocking call: refused, not dropped.
    let timed = RetryConfig::from_toml_str("[limits]\nattempt_timeout = \"2s\"\n")?;
    println!("{}", timed.policy().unwrap_err());
    assert!(timed.async_policy().is_ok());
    Ok(())
}
