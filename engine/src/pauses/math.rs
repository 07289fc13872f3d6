//! `exp` and `ln` from additions, multiplications and divisions only. The
//! standard library's versions call the platform's maths library, whose
//! last bits differ between a native build and wasm; these give the same
//! bits everywhere (IEEE 754 rounds the four operations exactly), so a
//! pause drawn from a distribution replays byte for byte. Accurate to a few
//! units in the last place, which is far more than a pause in microseconds
//! needs.

const LN_2: f64 = std::f64::consts::LN_2;
/// Terms of the series: enough for full precision on the reduced ranges.
const EXP_TERMS: u32 = 24;
const LN_TERMS: u32 = 40;

/// e^x. Below -700 it is 0, above 700 it is capped (no pause is that long).
pub fn exp(x: f64) -> f64 {
    let x = x.clamp(-700.0, 700.0);
    // x = k·ln 2 + r with |r| ≤ ln 2 / 2, then e^x = 2^k · e^r.
    let k = (x / LN_2).round();
    let r = x - k * LN_2;
    let mut term = 1.0;
    let mut sum = 1.0;
    for n in 1..=EXP_TERMS {
        term *= r / f64::from(n);
        sum += term;
    }
    sum * two_to(k as i32)
}

/// ln x for x > 0 (and -inf for 0, as a pause drawn at u = 0 would need).
pub fn ln(x: f64) -> f64 {
    assert!(x >= 0.0 && x.is_finite(), "ln of {x}");
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    // x = m · 2^e with m in [1, 2), then ln x = e·ln 2 + ln m, and
    // ln m = 2·atanh(s) with s = (m - 1)/(m + 1) in [0, 1/3).
    let (m, e) = split(x);
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut power = s;
    let mut sum = 0.0;
    for n in 0..LN_TERMS {
        sum += power / f64::from(2 * n + 1);
        power *= s2;
    }
    f64::from(e) * LN_2 + 2.0 * sum
}

/// 2^k, exactly, for the exponents `exp` can reach.
fn two_to(k: i32) -> f64 {
    let k = k.clamp(-1022, 1023);
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// x = m · 2^e with m in [1, 2), for a positive normal or subnormal x.
fn split(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    if exponent == 0 {
        // Subnormal: scale up first.
        let (m, e) = split(x * two_to(64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | (1023u64 << 52));
    (m, exponent - 1023)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn they_agree_with_the_platforms_to_twelve_digits() {
        for x in [-20.0, -3.5, -1.0, -1e-9, 0.0, 0.3, 1.0, 2.4, 7.0, 50.0] {
            assert!(close(exp(x), x.exp()), "exp({x}) = {} not {}", exp(x), x.exp());
        }
        for x in [1e-300, 1e-9, 0.01, 0.5, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e12] {
            assert!(close(ln(x), x.ln()), "ln({x}) = {} not {}", ln(x), x.ln());
        }
    }

    #[test]
    fn they_undo_each_other_and_known_values_hold() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(ln(1.0), 0.0);
        for x in [0.001, 0.7, 3.0, 400.0] {
            assert!(close(exp(ln(x)), x));
        }
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert_eq!(exp(-1000.0), exp(-700.0));
    }
}
