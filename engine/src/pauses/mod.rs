//! Pauses drawn from distributions, so that "rarer, not impossible" is a
//! rate a run measures rather than a threshold a learner tunes past. Each
//! shape is a log-normal body (its median and 99th percentile) with a
//! Pareto tail above the 99th percentile (its exponent: the smaller, the
//! heavier), and a rate: pauses per minute of a worker's running time, as a
//! Poisson process. Every draw comes from the worker's own pause stream of
//! the run's seed and uses only exactly rounded arithmetic (`math`), so a
//! run replays byte for byte natively and in wasm.

mod math;

use serde::{Deserialize, Serialize};

/// A pause distribution by its figures (whole numbers, so a scenario stays
/// comparable and its JSON exact).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PauseLaw {
    pub median_us: u64,
    pub p99_us: u64,
    /// The Pareto tail's exponent above the 99th percentile, in thousandths.
    pub tail_exponent_milli: u32,
    /// Pauses per hour of running time.
    pub per_hour: u32,
    /// The longest pause drawn, if the shape is bounded: a draw past it is
    /// this long (`ShapeFacts::bound` states each built-in shape's cap and
    /// its source). None: the tail is unbounded up to `PAUSE_US_MAX`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap_us: Option<u64>,
}

/// The built-in shapes, and a custom one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseShape {
    JvmFullGc,
    VmMigration,
    ThrottledContainer,
    Custom(PauseLaw),
}

/// A shape as people read it: its name and what its figures rest on. A
/// figure with no source says "illustrative" in the name (the command line
/// shows only the name) and in the basis (the page and the lesson show
/// both), and so does a tail that draws pauses longer than its source
/// reports.
pub struct ShapeFacts {
    pub shape: PauseShape,
    pub id: &'static str,
    pub name: &'static str,
    pub law: PauseLaw,
    pub basis: &'static str,
    /// The cap the bounded version of this shape draws under.
    pub bound: Bound,
}

/// A cited longest pause: the bounded version of a shape never draws a
/// longer one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    pub cap_us: u64,
    /// The cap in a learner's words: "4 minutes".
    pub words: &'static str,
    /// Where the figure comes from.
    pub source: &'static str,
}

/// ZOOKEEPER-601 (issues.apache.org/jira/browse/ZOOKEEPER-601) reports JVM
/// garbage-collection pauses of up to 4 minutes in production: the longest
/// stop-the-world pause a source cited here reports.
const JVM_LONGEST_REPORTED: Bound =
    Bound { cap_us: 240_000_000, words: "4 minutes", source: "the longest JVM pause ZOOKEEPER-601 reports in production" };

pub const SHAPES: [ShapeFacts; 3] = [
    ShapeFacts {
        shape: PauseShape::JvmFullGc,
        id: "jvm_full_gc",
        name: "JVM full GC on a large heap (illustrative figures)",
        law: PauseLaw { median_us: 60_000, p99_us: 900_000, tail_exponent_milli: 1_500, per_hour: 60, cap_us: None },
        basis: "illustrative figures, not a measurement: a median of 60 ms and a 99th percentile of 0.9 s at 60 an hour fit young and mixed collections better than full collections of a large heap, which are rarer and longer; the tail (about one pause in 600 is over 3 s) is a Pareto assumption, not capped at the longest JVM pauses production reports cite (up to 4 minutes, ZOOKEEPER-601), so a rare draw can be longer than any source reports",
        bound: JVM_LONGEST_REPORTED,
    },
    ShapeFacts {
        shape: PauseShape::VmMigration,
        id: "vm_migration",
        name: "VM live migration (QEMU's 300 ms limit; the rest illustrative)",
        law: PauseLaw { median_us: 120_000, p99_us: 300_000, tail_exponent_milli: 3_000, per_hour: 1, cap_us: None },
        basis: "QEMU's default migration downtime limit, 300 ms (DEFAULT_MIGRATE_SET_DOWNTIME), as the 99th percentile of the final stop-and-copy blackout; the median (120 ms), the rate (one migration an hour) and the light tail for migrations whose last dirty pages overrun the limit are illustrative",
        // QEMU's migration/migration.h: DEFAULT_MIGRATE_SET_DOWNTIME 300
        // (ms), the downtime QEMU waits to get under before it stops the
        // guest for the final copy. A target, not a guarantee: the bounded
        // shape takes it as a hard cap and says so.
        bound: Bound {
            cap_us: 300_000,
            words: "300 ms",
            source: "QEMU's default downtime limit, DEFAULT_MIGRATE_SET_DOWNTIME, taken as a hard cap (QEMU aims for it; a real blackout can overrun it)",
        },
    },
    ShapeFacts {
        shape: PauseShape::ThrottledContainer,
        id: "throttled_container",
        name: "CPU-throttled container (illustrative tail)",
        law: PauseLaw { median_us: 50_000, p99_us: 2_000_000, tail_exponent_milli: 1_100, per_hour: 360, cap_us: None },
        basis: "Linux CFS bandwidth control's 100 ms period (the default cpu.cfs_period_us): a container over its quota stalls for the rest of the period (median 50 ms). Throttling alone stalls a runnable container for less than a period, since the quota is refilled every period; the 2 s 99th percentile and the tail (exponent 1.1, unbounded in practice: a simulated day can freeze one worker for minutes) are illustrative, standing for work slowed inside the quota such as a collection running at a fraction of a CPU, not a measurement",
        // CFS alone would cap a stall at one period (cpu.cfs_period_us,
        // 100 ms by default; Documentation/scheduler/sched-bwc.rst), but the
        // tail stands for slowed collections: capped at the longest JVM pause
        // reported, not at a period.
        bound: JVM_LONGEST_REPORTED,
    },
];

/// The most pauses a custom shape may ask for, per hour (ten a second).
pub const PER_HOUR_MAX: u32 = 36_000;
/// No drawn pause is longer (a day): a bound, not a figure.
pub const PAUSE_US_MAX: u64 = 86_400_000_000;

impl PauseShape {
    pub fn law(self) -> PauseLaw {
        match self {
            PauseShape::Custom(law) => law,
            built_in => built_in.facts().expect("a built-in shape is in SHAPES").law,
        }
    }

    /// A built-in shape's name and basis (None for a custom one).
    pub fn facts(self) -> Option<&'static ShapeFacts> {
        SHAPES.iter().find(|facts| facts.shape == self)
    }

    /// This shape capped at its cited bound (a custom shape has none).
    pub fn bounded(self) -> Option<(PauseShape, &'static Bound)> {
        let facts = self.facts()?;
        Some((PauseShape::Custom(PauseLaw { cap_us: Some(facts.bound.cap_us), ..facts.law }), &facts.bound))
    }

    /// The built-in shape a command line or link names by its id.
    pub fn built_in(id: &str) -> Option<PauseShape> {
        SHAPES.iter().find(|facts| facts.id == id).map(|facts| facts.shape)
    }
}

impl PauseLaw {
    /// Why these figures make no distribution, if they do not.
    pub fn problem(&self) -> Option<String> {
        let PauseLaw { median_us, p99_us, tail_exponent_milli, per_hour, cap_us } = *self;
        match () {
            _ if !(100..=PAUSE_US_MAX).contains(&median_us) => Some(format!("a pause's median must be from 100 µs to {PAUSE_US_MAX} µs")),
            _ if !(median_us < p99_us && p99_us <= PAUSE_US_MAX) => {
                Some("a pause's 99th percentile must be above its median and at most a day".to_string())
            }
            _ if !(500..=20_000).contains(&tail_exponent_milli) => Some("a pause tail's exponent must be from 0.5 to 20".to_string()),
            _ if !(1..=PER_HOUR_MAX).contains(&per_hour) => Some(format!("pauses per hour must be from 1 to {PER_HOUR_MAX}")),
            _ if cap_us.is_some_and(|cap_us| !(p99_us..=PAUSE_US_MAX).contains(&cap_us)) => {
                Some("a pause cap must be at least the 99th percentile and at most a day".to_string())
            }
            _ => None,
        }
    }

    fn floats(&self) -> (f64, f64, f64) {
        (self.median_us as f64, self.p99_us as f64, f64::from(self.tail_exponent_milli) / 1000.0)
    }

    /// A pause length for a uniform draw `u` in (0, 1), in µs: the body's
    /// quantile below the 99th percentile, the tail's above it.
    pub fn length_us(&self, u: f64) -> u64 {
        let (median, p99, exponent) = self.floats();
        let us = if u < 0.99 {
            let sigma = math::ln(p99 / median) / Z_99;
            median * math::exp(sigma * normal_quantile(u))
        } else {
            // Pareto above the 99th percentile: P(X > x) = 0.01 (p99/x)^α.
            p99 * math::exp(math::ln(0.01 / (1.0 - u)) / exponent)
        };
        (us.round() as u64).min(self.longest_us())
    }

    /// The longest pause this law draws: its cap, or a day.
    pub fn longest_us(&self) -> u64 {
        self.cap_us.unwrap_or(PAUSE_US_MAX).min(PAUSE_US_MAX)
    }

    /// The running time before the next pause for a uniform draw `u` in
    /// (0, 1), in µs: exponential at the shape's rate.
    pub fn gap_us(&self, u: f64) -> u64 {
        let hours = -math::ln(u) / f64::from(self.per_hour);
        ((hours * 3_600_000_000.0).round() as u64).clamp(1, PAUSE_US_MAX)
    }

    /// The share of pauses longer than `us`, from the same law.
    pub fn share_longer_than(&self, us: f64) -> f64 {
        let (median, p99, exponent) = self.floats();
        if us >= self.longest_us() as f64 {
            return 0.0;
        }
        if us >= p99 {
            return 0.01 * math::exp(exponent * math::ln(p99 / us));
        }
        let sigma = math::ln(p99 / median) / Z_99;
        1.0 - normal_cdf(math::ln(us / median) / sigma)
    }
}

/// The standard normal's 99th percentile.
const Z_99: f64 = 2.326_347_874_040_841;

/// The standard normal's quantile (Acklam's rational approximation, relative
/// error below 1.2e-9), with `math::ln` and the exactly rounded square root.
fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] =
        [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
    const B: [f64; 5] = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
    const C: [f64; 6] =
        [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
    const D: [f64; 4] = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        let q = (-2.0 * math::ln(q)).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail(p)
    } else if p > 1.0 - 0.02425 {
        -tail(1.0 - p)
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// The standard normal's distribution function, by bisection on the
/// quantile (60 halvings: exact to the last bit that matters here).
fn normal_cdf(z: f64) -> f64 {
    let (mut low, mut high) = (1e-300, 1.0 - 1e-16);
    for _ in 0..60 {
        let middle = 0.5 * (low + high);
        if normal_quantile(middle) < z {
            low = middle;
        } else {
            high = middle;
        }
    }
    0.5 * (low + high)
}

#[cfg(test)]
mod tests;
