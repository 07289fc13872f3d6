//! The retry delay after a refused acquire, shared by the model's workers and
//! the real workers of `fencing-lab live`, so both back off by one formula.

/// Exponential backoff with "equal jitter": the cap doubles from `min_ms` with
/// each attempt up to `max_ms`; half the cap is waited for sure, the other
/// half at random, so retries neither stampede nor starve.
///
/// `jitter_us(half_us)` must return a value in `0..=half_us`: the model draws
/// it from its seeded generator, a live worker from its own entropy. It is
/// called exactly once, so the model's random stream stays as it was.
pub fn backoff_us(attempt: u32, min_ms: u64, max_ms: u64, jitter_us: impl FnOnce(u64) -> u64) -> u64 {
    let doublings = attempt.saturating_sub(1).min(20);
    let cap_ms = min_ms.saturating_mul(1 << doublings).min(max_ms);
    let half_us = cap_ms.saturating_mul(1000) / 2;
    let jitter_us = jitter_us(half_us);
    assert!(jitter_us <= half_us, "jitter {jitter_us} µs is more than half the cap ({half_us} µs)");
    half_us + jitter_us
}

#[cfg(test)]
mod tests {
    use super::backoff_us;

    #[test]
    fn the_cap_doubles_then_stops_and_jitter_fills_the_upper_half() {
        let none = |_| 0;
        let all = |half_us| half_us;
        assert_eq!(backoff_us(1, 100, 1000, none), 50_000);
        assert_eq!(backoff_us(1, 100, 1000, all), 100_000);
        assert_eq!(backoff_us(2, 100, 1000, all), 200_000);
        assert_eq!(backoff_us(4, 100, 1000, all), 800_000);
        assert_eq!(backoff_us(5, 100, 1000, all), 1_000_000);
        assert_eq!(backoff_us(u32::MAX, 100, 1000, none), 500_000);
        // Attempt 0 is treated as the first; no overflow on huge inputs.
        assert_eq!(backoff_us(0, 10, 50, all), 10_000);
        assert_eq!(backoff_us(30, u64::MAX / 2, u64::MAX, none), u64::MAX / 2);
    }

    #[test]
    #[should_panic(expected = "more than half the cap")]
    fn jitter_beyond_the_half_is_a_bug() {
        backoff_us(1, 100, 1000, |half_us| half_us + 1);
    }
}
