//! The rate question's trade, shipped with the question so a learner checks
//! at once (running its fleets took about 9 s on a 2-core machine, longer on
//! a phone). Written by the model, natively: `UPDATE_GOLDEN=1 cargo test
//! --release -p fencing-sim quiz::tests::the_shipped_trade_is_the_fleets`;
//! that test fails whenever a fresh run of the fleets differs. Not edited by
//! hand.

use crate::fleet::{Rate, TradeRow};

pub const ROWS: &[TradeRow] = &[
    TradeRow {
        ttl_ms: 10000,
        fencing: false,
        renewal: false,
        jobs: 334950,
        zombie_rate: Rate { per_10k: 0.47768323630392595, low: 0.294043878163153, high: 0.7760020669376001 },
        stale_rate: Rate { per_10k: 0.41797283176593525, low: 0.24898737300234355, high: 0.7016391326648183 },
        crash_wait_us: 10692156,
    },
    TradeRow {
        ttl_ms: 40000,
        fencing: false,
        renewal: false,
        jobs: 334553,
        zombie_rate: Rate { per_10k: 0.08967189055246852, low: 0.0304960289185462, high: 0.26367221923124745 },
        stale_rate: Rate { per_10k: 0.08967189055246852, low: 0.0304960289185462, high: 0.26367221923124745 },
        crash_wait_us: 40260072,
    },
    TradeRow {
        ttl_ms: 10000,
        fencing: true,
        renewal: false,
        jobs: 335449,
        zombie_rate: Rate { per_10k: 0.029810790910093636, low: 0.005262203175431769, high: 0.16887851872567017 },
        stale_rate: Rate { per_10k: 0.0, low: 0.0, high: 0.11451982286621357 },
        crash_wait_us: 10692156,
    },
];
