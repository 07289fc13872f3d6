//! What the property tests share: how a failure is printed, and the
//! schedules they draw (`strategy`).

pub mod strategy;

use fencing_sim::{Kind, Scenario, Trace};

/// The line a failing property prints: the seed and the whole scenario.
pub fn replay(scenario: &Scenario) -> String {
    format!("seed {} — replay with this scenario: {}", scenario.seed, serde_json::to_string(scenario).unwrap())
}

pub fn accepted_tokens(trace: &Trace) -> Vec<u64> {
    trace.events.iter().filter(|event| matches!(event.kind, Kind::WriteAccepted { .. })).filter_map(|event| event.token).collect()
}

/// A fresh runner seed for the soak: the wall clock, mixed with the round
/// number. Only the soak uses it; every other test draws from fixed seeds.
#[allow(dead_code)]
pub fn fresh_seed(round: u64) -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64);
    nanos ^ round.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}
