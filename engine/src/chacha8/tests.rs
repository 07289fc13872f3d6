//! The model's ChaCha8 (one block at a time) draws exactly
//! the numbers `rand_chacha::ChaCha8Rng` draws, for any seed and stream and
//! any mix of 32-bit words, 64-bit values (straddling blocks included) and
//! ranges. Fixed seeds: the same cases on every machine.

use super::ChaCha8;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 0x_c4ac_4a08;

/// One draw, as the model makes them (and the words it does not).
#[derive(Clone, Debug)]
enum Draw {
    Word,
    Value,
    Between(u64, u64),
}

fn draw() -> impl Strategy<Value = Draw> {
    prop_oneof![
        Just(Draw::Word),
        Just(Draw::Value), // Spans as the model's (latencies, jitter) and wide ones, where ranges reject draws.
        (0u64..1_000_000, prop_oneof![0u64..100_000, 0u64..u64::MAX / 2]).prop_map(|(low, span)| Draw::Between(low, low + span))
    ]
}

fn take(rng: &mut impl RngExt, draw: &Draw) -> u64 {
    match *draw {
        Draw::Word => u64::from(rng.random::<u32>()),
        Draw::Value => rng.random::<u64>(),
        Draw::Between(low, high) => rng.random_range(low..=high),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, rng_seed: RngSeed::Fixed(SEED), ..ProptestConfig::default() })]
    #[test]
    fn every_draw_equals_rand_chacha(seed: u64, stream in 0u64..64, draws in prop::collection::vec(draw(), 0..300)) {
        let mut ours = ChaCha8::seed_from_u64(seed);
        ours.set_stream(stream);
        let mut reference = ChaCha8Rng::seed_from_u64(seed);
        reference.set_stream(stream);
        for (at, draw) in draws.iter().enumerate() {
            prop_assert_eq!(take(&mut ours, draw), take(&mut reference, draw), "draw {} ({:?}), seed {}, stream {}", at, draw, seed, stream);
        }
    }
}

/// A long run of 64-bit values from an odd offset: every one straddles a
/// block boundary somewhere in the first thousand blocks.
#[test]
fn values_across_a_thousand_blocks() {
    let mut ours = ChaCha8::seed_from_u64(7);
    let mut reference = ChaCha8Rng::seed_from_u64(7);
    assert_eq!(ours.random::<u32>(), reference.random::<u32>());
    for at in 0..8_000 {
        assert_eq!(ours.random::<u64>(), reference.random::<u64>(), "value {at}");
    }
}
