//! What loading a configuration promises: a file that loads validates,
//! builds its schedule, limits, budget, limiter and policies, and writes
//! back to text that loads equal; a file that does not load says which
//! field or which line is at fault, in a short message.

use std::collections::BTreeMap;

use staggered::config::{LoadError, RetryConfig};
use staggered::{Decision, Failure, NoBudget};

/// The longest an error may be, with its field, line and column, as the
/// crate's tests promise: what it quotes is cut to a short prefix, field
/// names to twice that, and the message to 280 characters.
const MAX_MESSAGE_CHARS: usize = 400;

/// Checks one file's outcome.
pub fn check(loaded: Result<RetryConfig, LoadError>) {
    match loaded {
        Ok(config) => check_loaded(&config),
        Err(error) => check_error(&error),
    }
}

/// Checks the outcome of a file of several operations.
pub fn check_operations(loaded: Result<BTreeMap<String, RetryConfig>, LoadError>) {
    match loaded {
        Ok(operations) => operations.values().for_each(check_loaded),
        Err(error) => check_error(&error),
    }
}

fn check_error(error: &LoadError) {
    assert!(!error.field().is_empty() || error.line().is_some(), "names no field and no line: {error}");
    let chars = error.to_string().chars().count();
    assert!(chars <= MAX_MESSAGE_CHARS, "a message of {chars} characters: {error}");
}

fn check_loaded(config: &RetryConfig) {
    config.validate().expect("a loaded configuration validates");
    let backoff = config.backoff().expect("a loaded configuration has a schedule");
    let limits = config.limits().expect("a loaded configuration has limits");
    config.budget().expect("a loaded budget builds");
    config.rate_limiter().expect("a loaded rate limiter builds");
    config.async_policy().expect("a loaded configuration makes an async policy");
    match (config.policy(), config.attempt_timeout()) {
        (Ok(_), None) => {}
        (Err(error), Some(_)) => assert_eq!(error.field(), "limits.attempt_timeout", "{error}"),
        (policy, timeout) => panic!("policy {:?} with a timeout of {timeout:?}", policy.err()),
    }
    // The schedule and the limits it makes drive a decision without a panic.
    let ceiling = backoff.delay_ceiling();
    assert!(backoff.delays_seeded(1).take(8).all(|delay| delay <= ceiling), "a delay above {ceiling:?}");
    let mut decision = Decision::for_schedule(&backoff, limits, NoBudget);
    let _ = decision.on_failure(&Failure::TRANSIENT, ceiling);

    let toml = config.to_toml_string().expect("a loaded configuration writes TOML");
    assert_eq!(
        RetryConfig::from_toml_str(&toml).as_ref(),
        Ok(config),
        "TOML that loads differently:\n{toml}"
    );
    let json = config.to_json_string().expect("a loaded configuration writes JSON");
    assert_eq!(
        RetryConfig::from_json_str(&json).as_ref(),
        Ok(config),
        "JSON that loads differently:\n{json}"
    );
}
