//! The run's only source of randomness: a ChaCha8 stream seeded from the
//! scenario's seed (`chacha8`: `rand_chacha`'s numbers, a block at a time).
//! Each actor draws from its own sub-stream so that adding a worker does not
//! reshuffle the network's latencies (and vice versa).

use crate::chacha8::ChaCha8;
use rand::{RngExt, SeedableRng};

pub struct SimRng(ChaCha8);

/// Sub-stream labels: fixed numbers, so the same seed means the same draws
/// in every build.
#[derive(Clone, Copy)]
pub enum Stream {
    Network,
    Worker(u8),
    /// A fleet worker's pauses: apart from its own draws, so a story's
    /// numbers do not move when pauses are drawn.
    Pauses(u8),
}

impl SimRng {
    pub fn new(seed: u64, stream: Stream) -> SimRng {
        let stream_id: u64 = match stream {
            Stream::Network => 1,
            Stream::Worker(index) => 16 + u64::from(index),
            Stream::Pauses(index) => 1024 + u64::from(index),
        };
        let mut rng = ChaCha8::seed_from_u64(seed);
        rng.set_stream(stream_id);
        SimRng(rng)
    }

    /// Uniform in `low..=high` (u64 only: `usize` would differ on wasm32).
    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        assert!(low <= high, "empty range {low}..={high}");
        self.0.random_range(low..=high)
    }

    /// Uniform in (0, 1), never 0: 53 random bits, plus a half.
    pub fn unit(&mut self) -> f64 {
        let bits: u64 = self.0.random();
        ((bits >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A random 64-bit value, e.g. a Redlock lock value.
    pub fn value(&mut self) -> u64 {
        self.0.random()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let draw = |stream| {
            let mut rng = SimRng::new(7, stream);
            (0..4).map(|_| rng.between(0, 1_000_000)).collect::<Vec<_>>()
        };
        assert_eq!(draw(Stream::Network), draw(Stream::Network));
        assert_ne!(draw(Stream::Network), draw(Stream::Worker(0)));
        assert_ne!(draw(Stream::Worker(0)), draw(Stream::Worker(1)));
    }
}
