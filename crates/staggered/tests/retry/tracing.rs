use std::io::Write;
use std::sync::{Arc, Mutex};

use staggered::test_util::RecordingSleeper;
use staggered::RetryPolicy;

use super::exponential;

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn one_structured_event_per_retry_and_one_on_give_up() {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt().json().with_writer(move || writer.clone()).finish();
    tracing::subscriber::with_default(subscriber, || {
        let sleeper = RecordingSleeper::new();
        let _ = RetryPolicy::new(exponential(3))
            .retry(|_| Err::<(), _>(std::io::Error::other("connection reset")))
            .with_timer(&sleeper, &sleeper.clock())
            .run();
    });
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    let events: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events.len(), 3, "{text}");
    for (event, (attempt, delay)) in events.iter().zip([(1, 100), (2, 200)]) {
        let fields = &event["fields"];
        assert_eq!(fields["attempt"], attempt);
        assert_eq!(fields["max_attempts"], 3);
        assert_eq!(fields["delay_ms"], delay);
        assert_eq!(fields["error_type"], "std::io::Error");
        assert_eq!(fields["error_message"], "connection reset");
        assert_eq!(event["level"], "WARN");
    }
    let give_up = &events[2]["fields"];
    assert_eq!(give_up["reason"], "attempts_exhausted");
    assert_eq!(give_up["attempt"], 3);
    assert_eq!(events[2]["level"], "WARN");
}

#[test]
fn retry_events_carry_the_budgets_level_and_refusals() {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt().json().with_writer(move || writer.clone()).finish();
    let bucket = staggered::TokenBucket::builder().with_capacity(12).build();
    tracing::subscriber::with_default(subscriber, || {
        let sleeper = RecordingSleeper::new();
        let _ = RetryPolicy::new(exponential(5))
            .with_budget(bucket.clone())
            .retry(|_| Err::<(), _>("down"))
            .with_timer(&sleeper, &sleeper.clock())
            .run();
    });
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    let events: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // 12 tokens pay for two retries of 5; the third is refused.
    assert_eq!(events.len(), 3, "{text}");
    assert_eq!(events[0]["fields"]["budget_level"], 7.0);
    assert_eq!(events[1]["fields"]["budget_level"], 2.0);
    assert_eq!(events[1]["fields"]["budget_refused"], 0);
    let give_up = &events[2]["fields"];
    assert_eq!(give_up["reason"], "budget_exhausted");
    assert_eq!(give_up["budget_level"], 2.0);
    assert_eq!(give_up["budget_refused"], 1);
}

/// The events `run` logs, at every level, as JSON values.
fn events_of(run: impl FnOnce()) -> Vec<serde_json::Value> {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .json()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, run);
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn a_permanent_failure_on_the_first_attempt_is_not_an_error() {
    let events = events_of(|| {
        let sleeper = RecordingSleeper::new();
        let _ = RetryPolicy::new(exponential(3))
            .classify(staggered::classify::io::classify_io)
            .retry(|_| Err::<(), _>(std::io::Error::from(std::io::ErrorKind::NotFound)))
            .with_timer(&sleeper, &sleeper.clock())
            .run();
    });
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["level"], "DEBUG");
    assert_eq!(events[0]["fields"]["message"], "not retrying: permanent error");
    assert_eq!(events[0]["fields"]["reason"], "permanent");
    assert_eq!(events[0]["fields"]["error_type"], "std::io::Error");
}

#[test]
fn the_give_up_level_is_the_callers_choice() {
    let events = events_of(|| {
        let sleeper = RecordingSleeper::new();
        let _ = RetryPolicy::new(exponential(2))
            .with_give_up_level(tracing::Level::ERROR)
            .retry(|_| Err::<(), _>("down"))
            .with_timer(&sleeper, &sleeper.clock())
            .run();
    });
    let levels: Vec<_> = events.iter().map(|e| e["level"].as_str().unwrap().to_owned()).collect();
    assert_eq!(levels, ["WARN", "ERROR"]);
    assert_eq!(events[1]["fields"]["error_type"], "&str");
}

#[test]
fn error_types_are_named_whole() {
    #[derive(Debug)]
    struct Error;
    impl std::fmt::Display for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("mine")
        }
    }
    let events = events_of(|| {
        let sleeper = RecordingSleeper::new();
        let _ = RetryPolicy::new(exponential(2))
            .retry(|_| Err::<(), _>(Error))
            .with_timer(&sleeper, &sleeper.clock())
            .run();
    });
    let error_type = events[0]["fields"]["error_type"].as_str().unwrap();
    assert!(error_type.ends_with("::Error") && error_type.starts_with("tests::"), "{error_type}");
}
