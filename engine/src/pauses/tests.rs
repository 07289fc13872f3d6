use super::*;

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

fn median_ms(law: &PauseLaw) -> f64 {
    law.median_us as f64 / 1000.0
}

fn p99_ms(law: &PauseLaw) -> f64 {
    law.p99_us as f64 / 1000.0
}

#[test]
fn the_figures_are_the_laws_own_percentiles() {
    for shape in SHAPES {
        let law = shape.law;
        assert!(law.problem().is_none(), "{}", shape.id);
        assert!((ms(law.length_us(0.5)) - median_ms(&law)).abs() < 0.01, "{}: median", shape.id);
        assert!((ms(law.length_us(0.99)) - p99_ms(&law)).abs() < 0.01, "{}: the body ends at the 99th percentile", shape.id);
        assert!((ms(law.length_us(0.990_000_1)) - p99_ms(&law)).abs() < 1.0, "{}: and the tail starts there", shape.id);
        assert!((law.share_longer_than(law.p99_us as f64) - 0.01).abs() < 1e-12);
        assert!((law.share_longer_than(law.median_us as f64) - 0.5).abs() < 1e-6);
    }
}

#[test]
fn the_gc_shapes_tail_is_as_its_basis_says() {
    let gc = SHAPES[0].law;
    let one_in = 1.0 / gc.share_longer_than(3_000_000.0);
    assert!((550.0..650.0).contains(&one_in), "one pause in {one_in:.0} is over 3 s");
    assert!(SHAPES[0].basis.contains("about one pause in 600 is over 3 s"));
}

/// Issue 41, finding 4: every built-in shape names the source of each
/// figure it has one for, and says "illustrative" of the rest, in its name
/// (all the command line shows) and its basis (the page and the lesson).
#[test]
fn every_shape_cites_its_sources_or_says_illustrative() {
    for shape in &SHAPES {
        assert!(shape.basis.contains("illustrative"), "{}: {}", shape.id, shape.basis);
        assert!(shape.name.contains("illustrative"), "{}: {}", shape.id, shape.name);
    }
    assert!(SHAPES[0].basis.contains("ZOOKEEPER-601") && SHAPES[0].name.contains("illustrative"));
    assert!(SHAPES[1].basis.contains("DEFAULT_MIGRATE_SET_DOWNTIME") && SHAPES[1].basis.contains("300 ms"));
    // The throttled tail is not what CFS alone does: it says so.
    assert!(SHAPES[2].basis.contains("refilled every period") && SHAPES[2].name.contains("illustrative tail"));
}

#[test]
fn draws_from_a_stream_fall_as_the_law_says() {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let law = SHAPES[2].law;
    let draws = 200_000;
    let (mut over_p99, mut over_10s) = (0u32, 0u32);
    for _ in 0..draws {
        let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
        let length_ms = ms(law.length_us(u));
        over_p99 += u32::from(length_ms > p99_ms(&law));
        over_10s += u32::from(length_ms > 10_000.0);
    }
    let share = |count: u32| f64::from(count) / f64::from(draws);
    assert!((share(over_p99) - 0.01).abs() < 0.001, "{}", share(over_p99));
    let expected = law.share_longer_than(10_000_000.0);
    assert!((share(over_10s) - expected).abs() < 0.3 * expected, "{} vs {expected}", share(over_10s));
}

#[test]
fn gaps_average_the_rate() {
    let law = SHAPES[0].law;
    // The exponential's mean is 1/rate: 60 s at one a minute; its median ln 2 times that.
    assert!((law.gap_us(0.5) as f64 / 1e6 - 60.0 * std::f64::consts::LN_2).abs() < 1e-3);
}

#[test]
fn bad_figures_are_named() {
    let good = SHAPES[0].law;
    for (bad, says) in [
        (PauseLaw { p99_us: 10_000, ..good }, "above its median"),
        (PauseLaw { median_us: 0, ..good }, "median"),
        (PauseLaw { tail_exponent_milli: 100, ..good }, "exponent"),
        (PauseLaw { per_hour: 0, ..good }, "per hour"),
    ] {
        assert!(bad.problem().is_some_and(|problem| problem.contains(says)), "{bad:?}");
    }
}

/// Issue 41, finding 4: the bounded version of every built-in shape draws
/// no pause longer than its cited cap, however far into the tail the draw
/// is, and says what the cap rests on.
#[test]
fn no_draw_from_a_bounded_shape_exceeds_its_cap() {
    use rand::{RngExt, SeedableRng};
    for facts in &SHAPES {
        let (bounded, bound) = facts.shape.bounded().expect("every built-in shape has a bound");
        let law = bounded.law();
        assert_eq!(law.cap_us, Some(bound.cap_us));
        assert!(law.problem().is_none(), "{}: {:?}", facts.id, law.problem());
        assert!(!bound.source.is_empty() && !bound.words.is_empty());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(41);
        let mut longest_us = 0;
        for _ in 0..100_000 {
            let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
            longest_us = longest_us.max(law.length_us(u));
        }
        for u in [0.999_999, 1.0 - 1e-12, 1.0 - f64::EPSILON] {
            longest_us = longest_us.max(law.length_us(u));
        }
        assert!(longest_us <= bound.cap_us, "{}: {longest_us} µs over the cap", facts.id);
        // The unbounded shape's tail goes past the cap: the cap is what stops it.
        assert!(facts.law.length_us(1.0 - 1e-12) > bound.cap_us, "{}", facts.id);
        assert_eq!(law.share_longer_than(bound.cap_us as f64), 0.0);
        assert_eq!(law.length_us(0.5), facts.law.length_us(0.5), "{}: the body is the shape's own", facts.id);
    }
    assert!(SHAPES[0].bound.source.contains("ZOOKEEPER-601"));
    assert!(SHAPES[1].bound.source.contains("DEFAULT_MIGRATE_SET_DOWNTIME"));
    assert!(PauseShape::Custom(SHAPES[0].law).bounded().is_none());
}
