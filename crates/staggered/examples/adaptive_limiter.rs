//! A client that a server throttles learns to send at the server's rate.
//!
//! A simulated server admits 40 requests a second (a token bucket holding
//! one second of them) and answers the rest "429 Too Many Requests". One
//! client sends 100 operations a second through a `RetryPolicy` with an
//! `AdaptiveLimiter`. Time is virtual (a mock clock that the sleeper moves),
//! so twenty seconds of traffic run in a blink and the output is the same on
//! every run.
//!
//! ```text
//! cargo run -p staggered --example adaptive_limiter --features test-util
//! ```

use std::cell::Cell;
use std::time::Duration;

use staggered::limiter::AdaptiveLimiter;
use staggered::sleep::Clock;
use staggered::test_util::{MockClock, RecordingSleeper};
use staggered::{Backoff, Failure, RetryPolicy, Strategy};

/// Requests the server admits per second.
const SERVER_RATE: f64 = 40.0;
/// Operations the client offers per second.
const OFFERED: f64 = 100.0;

/// The server: a token bucket refilled at `SERVER_RATE` a second.
struct Server {
    tokens: Cell<f64>,
    last: Cell<Duration>,
}

impl Server {
    fn admit(&self, now: Duration) -> bool {
        let elapsed = now.saturating_sub(self.last.get()).as_secs_f64();
        self.last.set(now);
        let tokens = (self.tokens.get() + elapsed * SERVER_RATE).min(SERVER_RATE);
        let admitted = tokens >= 1.0;
        self.tokens.set(if admitted { tokens - 1.0 } else { tokens });
        admitted
    }
}

/// A throttled response.
#[derive(Debug)]
struct TooManyRequests;

impl std::fmt::Display for TooManyRequests {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("429 Too Many Requests")
    }
}

fn main() {
    let clock = MockClock::new();
    let sleeper = RecordingSleeper::with_clock(clock.clone());
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).expect("the defaults are valid");
    let backoff = Backoff::builder(Strategy::Full)
        .with_base(Duration::from_millis(50))
        .with_max_attempts(3)
        .build()
        .expect("valid parameters");
    let policy = RetryPolicy::new(backoff)
        .classify(|_: &TooManyRequests| Failure::THROTTLED)
        .with_rate_limiter(limiter.clone());
    let server = Server { tokens: Cell::new(SERVER_RATE), last: Cell::new(Duration::ZERO) };

    let gap = Duration::from_secs_f64(1.0 / OFFERED);
    println!("second  attempts  throttled  succeeded  fill rate/s");
    let (mut attempts, mut throttled, mut succeeded) = (0, 0, 0);
    let mut next_second = Duration::from_secs(1);
    let mut next_operation = Duration::ZERO;
    while next_second <= Duration::from_secs(20) {
        // The client offers an operation every `gap`, or as soon as the
        // previous one is done if that is later (a closed loop).
        let now = clock.now();
        if now < next_operation {
            clock.advance(next_operation - now);
        }
        next_operation += gap;
        let outcome = policy
            .retry(|_| {
                attempts += 1;
                if server.admit(clock.now()) {
                    Ok(())
                } else {
                    throttled += 1;
                    Err(TooManyRequests)
                }
            })
            .with_timer(&sleeper, &clock)
            .run();
        succeeded += u32::from(outcome.is_ok());
        if clock.now() >= next_second {
            let metrics = limiter.metrics();
            println!(
                "{:>6}  {attempts:>8}  {throttled:>9}  {succeeded:>9}  {:>11.1}",
                next_second.as_secs(),
                metrics.fill_rate
            );
            (attempts, throttled, succeeded) = (0, 0, 0);
            next_second += Duration::from_secs(1);
        }
    }
    let metrics = limiter.metrics();
    println!(
        "\nThe limiter turned on at the first 429 and now lets {:.1} attempts a second through \
         (the server admits {SERVER_RATE}); {} attempts waited for a token, {:.1} s in all.",
        metrics.fill_rate,
        metrics.waits,
        metrics.waited.as_secs_f64()
    );
}
