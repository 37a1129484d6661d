//! A configuration's budget and rate limiter are built once and shared by
//! every policy built from it: building the policy per operation, as the
//! guide's examples read naturally, must not hand each operation a full
//! budget of its own.

use std::io;

use staggered::config::{AnyBudget, RetryConfig};
use staggered::test_util::{MockClock, RecordingSleeper};
use staggered::{Backoff, Budget, DefaultRules, Failure, RetryPolicy};

type FilePolicy = RetryPolicy<Backoff, DefaultRules>;

/// Five attempts each, and a budget of 20 tokens at 5 a retry: four retries
/// for all operations together.
const FILE: &str =
    "[schedule]\nbase = \"1ms\"\nmax_attempts = 5\n\n[budget]\nkind = \"token_bucket\"\ncapacity = 20\n";
const OPERATIONS: u32 = 10;

/// The attempts of [`OPERATIONS`] always-failing operations, each with the
/// policy `policy_for` gives.
fn attempts(
    policy_for: impl Fn() -> FilePolicy,
    run: impl Fn(&FilePolicy, &mut dyn FnMut() -> io::Result<()>),
) -> u32 {
    let mut attempts = 0;
    for _ in 0..OPERATIONS {
        let policy = policy_for();
        run(&policy, &mut || {
            attempts += 1;
            Err(io::Error::from(io::ErrorKind::ConnectionReset))
        });
    }
    attempts
}

#[test]
fn config_budget_is_shared_by_every_policy() {
    let clock = MockClock::new();
    let sleeper = RecordingSleeper::with_clock(clock.clone());
    let run = |policy: &FilePolicy, op: &mut dyn FnMut() -> io::Result<()>| {
        let _ = policy.retry(|_| op()).with_timer(&sleeper, &clock).run();
    };
    // One policy for every operation: 10 first attempts and 4 retries.
    let config = RetryConfig::from_toml_str(FILE).unwrap();
    let one = config.policy().unwrap();
    assert_eq!(attempts(|| one.clone(), run), OPERATIONS + 4);
    // A policy per operation, from one configuration: the same.
    let config = RetryConfig::from_toml_str(FILE).unwrap();
    assert_eq!(attempts(|| config.policy().unwrap(), run), OPERATIONS + 4);
    // The configuration's own budget is that same budget, now empty.
    let budget = config.budget().unwrap().unwrap();
    assert_eq!(budget.metrics().unwrap().level, 0.0, "{budget:?}");
}

#[test]
fn config_rate_limiter_is_shared_by_every_policy() {
    let config = RetryConfig::from_toml_str("[rate_limiter]\n").unwrap();
    let (first, second) = (config.policy().unwrap(), config.async_policy().unwrap());
    first.rate_limiter().unwrap().record_response(true);
    for limiter in [second.rate_limiter().unwrap(), &config.rate_limiter().unwrap().unwrap()] {
        assert!(limiter.metrics().unwrap().enabled, "one throttle turned every policy's limiter on");
    }
}

#[test]
fn a_config_clone_shares_them_until_its_section_changes() {
    let config = RetryConfig::from_toml_str(FILE).unwrap();
    let clone = config.clone();
    let before = clone.budget().unwrap().unwrap().metrics().unwrap().level;
    assert!(config.budget().unwrap().unwrap().withdraw(&Failure::TRANSIENT));
    let after = clone.budget().unwrap().unwrap().metrics().unwrap().level;
    assert_eq!(before - after, 5.0, "a clone is the same configuration, with the same budget");
    // A clone whose budget section changed builds its own, and leaves the
    // original's alone.
    let mut changed = config.clone();
    changed.budget = RetryConfig::from_toml_str("[budget]\nkind = \"throttle\"\n").unwrap().budget;
    assert!(matches!(changed.budget().unwrap(), Some(AnyBudget::Throttle(_))));
    assert!(matches!(config.budget().unwrap(), Some(AnyBudget::TokenBucket(_))));
    assert_eq!(config.budget().unwrap().unwrap().metrics().unwrap().level, after);
}
