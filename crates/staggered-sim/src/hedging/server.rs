//! The hedging scenario's server: a concurrency limit, a bounded queue,
//! and service times with a long tail.

use std::collections::VecDeque;

use staggered::{FastRng, Rng};

use super::HedgingParams;
use crate::rng::{derive, Normal};
use crate::units::to_units;

/// The service time of one request: log-normal, and a stall added to a
/// share of them.
#[derive(Debug, Clone)]
pub(super) struct Service {
    /// `Normal(ln median, sigma)`: its exponential is the log-normal draw.
    log: Normal,
    stall_rate: f64,
    stall: f64,
}

impl Service {
    pub(super) fn of(config: &HedgingParams) -> Self {
        Service {
            log: Normal::new(to_units(config.service_median.0).ln(), config.service_sigma),
            stall_rate: config.stall_rate.0,
            stall: to_units(config.stall.0),
        }
    }

    /// The service time of copy (or attempt) `copy` of operation `op`, in
    /// time units: a function of `(seed, op, copy)` alone, so that every
    /// policy draws the same for the same copy.
    #[inline]
    pub(super) fn time(&self, seed: u64, op: u32, copy: u32) -> f64 {
        let mut rng = FastRng::seed(derive(&[seed, u64::from(op), u64::from(copy)]));
        let stalled = rng.next_f64() < self.stall_rate;
        let time = self.log.sample(&mut rng).exp();
        if stalled {
            time + self.stall
        } else {
            time
        }
    }
}

/// A request at the server: copy (or attempt) `copy` of the operation
/// numbered `op`, which is in the client's slot `slot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Request {
    pub slot: u32,
    pub op: u32,
    pub copy: u32,
}

/// What the server does with a request that arrives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Admission {
    /// A worker was free: the request departs at this time.
    Served(f64),
    /// It waits in the queue.
    Queued,
    /// The queue was full: it is rejected at once.
    Rejected,
}

/// `workers` requests in service at once and up to `limit` waiting, first
/// come first served. It serves every request it admits to the end: it is
/// never told that a client stopped waiting.
#[derive(Debug)]
pub(super) struct Server {
    workers: u32,
    busy: u32,
    limit: usize,
    /// The waiting requests, each with its service time.
    queue: VecDeque<(Request, f64)>,
}

impl Server {
    pub(super) fn new(workers: u32, limit: u32) -> Self {
        Server { workers, busy: 0, limit: limit as usize, queue: VecDeque::new() }
    }

    /// `request`, taking `service` time units, arrives at `now`.
    #[inline]
    pub(super) fn arrive(&mut self, request: Request, service: f64, now: f64) -> Admission {
        if self.busy < self.workers {
            self.busy += 1;
            Admission::Served(now + service)
        } else if self.queue.len() < self.limit {
            self.queue.push_back((request, service));
            Admission::Queued
        } else {
            Admission::Rejected
        }
    }

    /// A request departed at `now`: the next waiting one, if any, takes its
    /// worker, and departs at the time returned.
    #[inline]
    pub(super) fn depart(&mut self, now: f64) -> Option<(Request, f64)> {
        match self.queue.pop_front() {
            Some((request, service)) => Some((request, now + service)),
            None => {
                self.busy -= 1;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{Fraction, Span};
    use std::time::Duration;

    fn request(op: u32) -> Request {
        Request { slot: 0, op, copy: 1 }
    }

    #[test]
    fn workers_then_the_queue_then_rejections_in_order() {
        let mut server = Server::new(2, 1);
        assert_eq!(server.arrive(request(1), 5.0, 0.0), Admission::Served(5.0));
        assert_eq!(server.arrive(request(2), 7.0, 1.0), Admission::Served(8.0));
        assert_eq!(server.arrive(request(3), 3.0, 2.0), Admission::Queued);
        assert_eq!(server.arrive(request(4), 3.0, 2.0), Admission::Rejected);
        // The first departure hands its worker to the queued request.
        assert_eq!(server.depart(5.0), Some((request(3), 8.0)));
        assert_eq!(server.depart(8.0), None);
        assert_eq!(server.depart(8.0), None);
        assert_eq!(server.arrive(request(5), 1.0, 9.0), Admission::Served(10.0));
        assert_eq!(server.arrive(request(6), 1.0, 9.0), Admission::Served(10.0));
    }

    #[test]
    fn service_times_have_the_median_the_stalls_and_the_mean_of_the_parameters() {
        let config = HedgingParams::default();
        let service = Service::of(&config);
        let n = 200_000;
        let mut times: Vec<f64> = (0..n).map(|op| service.time(7, op, 1)).collect();
        let mean = times.iter().sum::<f64>() / f64::from(n);
        times.sort_by(f64::total_cmp);
        let median = times[n as usize / 2];
        assert!((median - 10.0).abs() < 0.2, "{median}");
        let stalled = times.iter().filter(|&&t| t > 1000.0).count() as f64 / f64::from(n);
        assert!((stalled - 0.01).abs() < 0.001, "{stalled}");
        let expected = config.mean_service_time();
        assert!((mean / expected - 1.0).abs() < 0.02, "{mean} against {expected}");
        // The same copy draws the same; another copy draws anew.
        assert_eq!(service.time(7, 3, 1), service.time(7, 3, 1));
        assert_ne!(service.time(7, 3, 1), service.time(7, 3, 2));
        // Without spread or stalls, every request takes the median.
        let flat = HedgingParams {
            service_sigma: 0.0,
            stall_rate: Fraction(0.0),
            service_median: Span(Duration::from_millis(4)),
            ..config
        };
        assert!((Service::of(&flat).time(1, 2, 3) - 4.0).abs() < 1e-12);
    }
}
