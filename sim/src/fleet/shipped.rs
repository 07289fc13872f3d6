//! The default fleet's trade, shipped with the page so that "Compare lease
//! lengths" answers at once for the fleet a learner first sees (its twelve
//! fleets take about 15 s natively on a 2-core machine, longer in a
//! browser). Written by the model, natively: `UPDATE_GOLDEN=1 cargo test
//! --release -p fencing-sim fleet::tests::the_shipped_trades_are_the_fleets`;
//! that test fails whenever a fresh run of the fleets differs. The rows
//! below the marker are not edited by hand.

use super::{base as fleet_base, Rate, TradeRow};
use crate::pauses::PauseShape;
use crate::Scenario;

/// The fleet the rows are of: the page's default fleet (sixteen workers for
/// a day in throttled containers, seed 1). `sim/tests/fleet_properties.rs`
/// checks it is `permalink::fleet::DEFAULT_FLEET`'s.
pub fn base() -> Scenario {
    Scenario {
        ttl_ms: 10_000,
        work_ms: 200,
        fencing: false,
        renewal: false,
        seed: 1,
        ..fleet_base(16, 86_400_000, PauseShape::ThrottledContainer)
    }
}

/// Whether `scenario` is the shipped fleet, whatever its lease, fencing and
/// renewal (a trade sets those per run).
fn is_shipped(scenario: &Scenario) -> bool {
    Scenario { ttl_ms: 10_000, fencing: false, renewal: false, ..scenario.clone() } == base()
}

/// The trade `fleet::trade(scenario, &TRADE_LEASES_MS, false)` would
/// compute, if it is shipped.
pub fn trade(scenario: &Scenario, renewal: bool) -> Option<&'static [TradeRow]> {
    (is_shipped(scenario) && !renewal).then_some(TRADE)
}

/// The rows `fleet::bounded_trade(scenario)` would compute, if shipped.
pub fn bounded(scenario: &Scenario) -> Option<&'static [TradeRow]> {
    is_shipped(scenario).then_some(BOUNDED)
}

// The shipped rows.
pub const TRADE: &[TradeRow] = &[
    TradeRow {
        ttl_ms: 10000,
        fencing: false,
        renewal: false,
        jobs: 358066,
        zombie_rate: Rate { per_10k: 0.47477280724782583, low: 0.2964383433378583, high: 0.7603834160962376 },
        stale_rate: Rate { per_10k: 0.47477280724782583, low: 0.2964383433378583, high: 0.7603834160962376 },
        crash_wait_us: 10692156,
    },
    TradeRow {
        ttl_ms: 20000,
        fencing: false,
        renewal: false,
        jobs: 357442,
        zombie_rate: Rate { per_10k: 0.16785940096575108, low: 0.07693063874147842, high: 0.3662581791529972 },
        stale_rate: Rate { per_10k: 0.16785940096575108, low: 0.07693063874147842, high: 0.3662581791529972 },
        crash_wait_us: 20397939,
    },
    TradeRow {
        ttl_ms: 40000,
        fencing: false,
        renewal: false,
        jobs: 357546,
        zombie_rate: Rate { per_10k: 0.08390528771123155, low: 0.028534893349319423, high: 0.24671624243526988 },
        stale_rate: Rate { per_10k: 0.08390528771123155, low: 0.028534893349319423, high: 0.24671624243526988 },
        crash_wait_us: 40260072,
    },
    TradeRow {
        ttl_ms: 80000,
        fencing: false,
        renewal: false,
        jobs: 356492,
        zombie_rate: Rate { per_10k: 0.112204481446989, low: 0.04363350976634619, high: 0.28853305764306175 },
        stale_rate: Rate { per_10k: 0.112204481446989, low: 0.04363350976634619, high: 0.28853305764306175 },
        crash_wait_us: 80351568,
    },
    TradeRow {
        ttl_ms: 160000,
        fencing: false,
        renewal: false,
        jobs: 355987,
        zombie_rate: Rate { per_10k: 0.05618182686446415, low: 0.015406774374798633, high: 0.20486855531503123 },
        stale_rate: Rate { per_10k: 0.05618182686446415, low: 0.015406774374798633, high: 0.20486855531503123 },
        crash_wait_us: 160849392,
    },
    TradeRow {
        ttl_ms: 10000,
        fencing: true,
        renewal: false,
        jobs: 358304,
        zombie_rate: Rate { per_10k: 0.05581852281861213, low: 0.015307145212552161, high: 0.20354377261787693 },
        stale_rate: Rate { per_10k: 0.0, low: 0.0, high: 0.10721506911056114 },
        crash_wait_us: 10692156,
    },
];
pub const BOUNDED: &[TradeRow] = &[
    TradeRow {
        ttl_ms: 10000,
        fencing: false,
        renewal: false,
        jobs: 358368,
        zombie_rate: Rate { per_10k: 0.2511384945084382, low: 0.1321278561088794, high: 0.47733967076168043 },
        stale_rate: Rate { per_10k: 0.2511384945084382, low: 0.1321278561088794, high: 0.47733967076168043 },
        crash_wait_us: 10692156,
    },
    TradeRow {
        ttl_ms: 20000,
        fencing: false,
        renewal: false,
        jobs: 357960,
        zombie_rate: Rate { per_10k: 0.08380824673147837, low: 0.028501891163523474, high: 0.24643090528906658 },
        stale_rate: Rate { per_10k: 0.08380824673147837, low: 0.028501891163523474, high: 0.24643090528906658 },
        crash_wait_us: 20397939,
    },
    TradeRow {
        ttl_ms: 40000,
        fencing: false,
        renewal: false,
        jobs: 357860,
        zombie_rate: Rate { per_10k: 0.055887777343095066, low: 0.015326136936710186, high: 0.20379630820724198 },
        stale_rate: Rate { per_10k: 0.055887777343095066, low: 0.015326136936710186, high: 0.20379630820724198 },
        crash_wait_us: 40260072,
    },
    TradeRow {
        ttl_ms: 80000,
        fencing: false,
        renewal: false,
        jobs: 357498,
        zombie_rate: Rate { per_10k: 0.055944368919546406, low: 0.015341656090437252, high: 0.2040026685403089 },
        stale_rate: Rate { per_10k: 0.055944368919546406, low: 0.015341656090437252, high: 0.2040026685403089 },
        crash_wait_us: 80351568,
    },
    TradeRow {
        ttl_ms: 160000,
        fencing: false,
        renewal: false,
        jobs: 355292,
        zombie_rate: Rate { per_10k: 0.08443758936311542, low: 0.028715921181528083, high: 0.2482814102727447 },
        stale_rate: Rate { per_10k: 0.08443758936311542, low: 0.028715921181528083, high: 0.2482814102727447 },
        crash_wait_us: 160849392,
    },
    TradeRow {
        ttl_ms: 320000,
        fencing: false,
        renewal: false,
        jobs: 356198,
        zombie_rate: Rate { per_10k: 0.0, low: 0.0, high: 0.10784896514695616 },
        stale_rate: Rate { per_10k: 0.0, low: 0.0, high: 0.10784896514695616 },
        crash_wait_us: 320780511,
    },
];
