//! The presets: ready schedules with published values.

use core::fmt;
use core::str::FromStr;
use core::time::Duration;

use crate::schedule::strategy::UnknownName;
use crate::{Backoff, BackoffBuilder, CapMode, Strategy};

/// A ready schedule, with values taken from a published system or guideline.
///
/// | preset | base | multiplier | jitter | max_delay | max_attempts | other | values from |
/// |---|---|---|---|---|---|---|---|
/// | `interactive` | 100 ms | 2 | additive f=0.2 | 3 s | 3 | | common guidance for a person waiting |
/// | `standard` | 1 s | 2 | additive f=0.3 | 30 s | 5 | | common guidance for background work |
/// | `batch` | 5 s | 2 | additive f=0.5 | 300 s | 10 | | common guidance for batch jobs |
/// | `aws` | 1 s | 2 | full | 20 s | 3 | | the AWS SDKs' standard retry mode |
/// | `grpc` | 1 s | 1.6 | proportional f=0.2 | 120 s | 5 | | gRPC connection backoff; 5 attempts is A6's ceiling |
/// | `google` | 500 ms | 1.5 | proportional f=0.5 | 60 s | none | deadline 15 min, [`CapMode::Interval`], whole-millisecond intervals | google-http-java-client's `ExponentialBackOff` |
///
/// `interactive`, `standard` and `batch` keep the hard cap, so their delays
/// never pass `max_delay`. The worked table usually printed with those
/// values (1000-1300 ms, 2000-2600 ms, ... 30000-39000 ms), which caps the
/// interval, comes out of `standard` with [`CapMode::Interval`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Preset {
    /// Fast recovery for a person waiting.
    Interactive,
    /// Background work.
    Standard,
    /// Long recovery for batch jobs.
    Batch,
    /// The AWS SDK's standard retry mode.
    Aws,
    /// gRPC's connection backoff.
    Grpc,
    /// google-http-java-client's `ExponentialBackOff` defaults.
    Google,
}

impl Preset {
    /// Every preset, in the order of the table above.
    pub const ALL: [Preset; 6] =
        [Preset::Interactive, Preset::Standard, Preset::Batch, Preset::Aws, Preset::Grpc, Preset::Google];

    /// The preset's name.
    pub const fn name(self) -> &'static str {
        match self {
            Preset::Interactive => "interactive",
            Preset::Standard => "standard",
            Preset::Batch => "batch",
            Preset::Aws => "aws",
            Preset::Grpc => "grpc",
            Preset::Google => "google",
        }
    }

    /// A builder holding the preset's values, to adjust before building.
    pub const fn builder(self) -> BackoffBuilder {
        const fn additive(base_ms: u64, factor: f64, max_s: u64, attempts: u32) -> BackoffBuilder {
            BackoffBuilder::new(Strategy::Additive)
                .with_base(Duration::from_millis(base_ms))
                .with_multiplier(2.0)
                .with_factor(factor)
                .with_max_delay(Duration::from_secs(max_s))
                .with_max_attempts(attempts)
        }
        match self {
            Preset::Interactive => additive(100, 0.2, 3, 3),
            Preset::Standard => additive(1000, 0.3, 30, 5),
            Preset::Batch => additive(5000, 0.5, 300, 10),
            Preset::Aws => BackoffBuilder::new(Strategy::Full)
                .with_base(Duration::from_secs(1))
                .with_multiplier(2.0)
                .with_max_delay(Duration::from_secs(20))
                .with_max_attempts(3),
            Preset::Grpc => BackoffBuilder::new(Strategy::Proportional)
                .with_base(Duration::from_secs(1))
                .with_multiplier(1.6)
                .with_factor(0.2)
                .with_max_delay(Duration::from_secs(120))
                .with_max_attempts(5),
            Preset::Google => BackoffBuilder::new(Strategy::Proportional)
                .with_base(Duration::from_millis(500))
                .with_multiplier(1.5)
                .with_factor(0.5)
                .with_max_delay(Duration::from_secs(60))
                .without_max_attempts()
                .with_deadline(Duration::from_secs(15 * 60))
                .with_cap_mode(CapMode::Interval)
                .with_granularity(Duration::from_millis(1)),
        }
    }

    /// The preset's schedule.
    pub fn backoff(self) -> Backoff {
        // Every preset's constants satisfy the builder's rules; the test
        // `every_preset_builds` keeps it so.
        self.builder().build().expect("preset values are valid")
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or(UnknownName::new("preset", "interactive, standard, batch, aws, grpc, google"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_builds() {
        for preset in Preset::ALL {
            let b = preset.backoff();
            assert_eq!(preset.name().parse::<Preset>(), Ok(preset));
            assert!(b.max_attempts().is_some() || b.deadline().is_some(), "{preset} has no limit");
        }
    }
}
