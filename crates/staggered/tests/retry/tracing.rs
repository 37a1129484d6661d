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
        let _ = RetryPolicy::new(exponential(3)).run_with(
            |_| Err::<(), _>(std::io::Error::other("connection reset")),
            &sleeper,
            &sleeper.clock(),
        );
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
        let _ = RetryPolicy::new(exponential(5)).with_budget(bucket.clone()).run_with(
            |_| Err::<(), _>("down"),
            &sleeper,
            &sleeper.clock(),
        );
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
