//! The few float functions the schedules need, from `std` when it is there and
//! from `libm` under `no_std` (core has no `sqrt`, `tanh` or `exp2`).

#[cfg(feature = "std")]
mod imp {
    #[inline]
    pub fn exp2(x: f64) -> f64 {
        x.exp2()
    }
    #[inline]
    pub fn sqrt(x: f64) -> f64 {
        x.sqrt()
    }
    #[inline]
    pub fn tanh(x: f64) -> f64 {
        x.tanh()
    }
    #[inline]
    pub fn trunc(x: f64) -> f64 {
        x.trunc()
    }
}

#[cfg(not(feature = "std"))]
mod imp {
    #[inline]
    pub fn exp2(x: f64) -> f64 {
        libm::exp2(x)
    }
    #[inline]
    pub fn sqrt(x: f64) -> f64 {
        libm::sqrt(x)
    }
    #[inline]
    pub fn tanh(x: f64) -> f64 {
        libm::tanh(x)
    }
    #[inline]
    pub fn trunc(x: f64) -> f64 {
        libm::trunc(x)
    }
}

pub(crate) use imp::*;

/// Nanoseconds in a second, as a float.
pub(crate) const NANOS_PER_SEC: f64 = 1e9;

/// `Duration` to float nanoseconds: exact below 2^53 ns (104 days), and finite
/// for every `Duration` up to `Duration::MAX`.
#[inline]
pub(crate) fn to_nanos(d: core::time::Duration) -> f64 {
    d.as_secs() as f64 * NANOS_PER_SEC + f64::from(d.subsec_nanos())
}

/// Float nanoseconds to `Duration`, saturating: NaN and negatives give zero,
/// anything past `Duration::MAX` gives `Duration::MAX`. Never panics.
#[inline]
pub(crate) fn from_nanos(ns: f64) -> core::time::Duration {
    // The common case fits in u64 nanoseconds (584 years); `as` saturates and maps NaN to 0.
    if ns < 18_446_744_073_709_551_615.0 {
        core::time::Duration::from_nanos(ns as u64)
    } else {
        let secs = ns / NANOS_PER_SEC;
        if secs >= u64::MAX as f64 {
            core::time::Duration::MAX
        } else {
            let whole = trunc(secs);
            let nanos = ((secs - whole) * NANOS_PER_SEC) as u32;
            core::time::Duration::new(whole as u64, nanos.min(999_999_999))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::time::Duration;

    #[test]
    fn round_trips_and_saturates() {
        assert_eq!(from_nanos(to_nanos(Duration::from_millis(1500))), Duration::from_millis(1500));
        assert_eq!(from_nanos(f64::NAN), Duration::ZERO);
        assert_eq!(from_nanos(-5.0), Duration::ZERO);
        assert_eq!(from_nanos(f64::INFINITY), Duration::MAX);
        let big = from_nanos(to_nanos(Duration::MAX));
        assert!(big > Duration::from_secs(u64::MAX / 2));
        let mid = Duration::from_secs(1 << 40);
        let back = from_nanos(to_nanos(mid));
        assert!(back.as_secs().abs_diff(mid.as_secs()) <= 1);
    }
}
